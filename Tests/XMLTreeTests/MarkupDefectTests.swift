import Testing

@testable import XMLTree

/// Markup the XML layer must read as libxml2 does: each document is one
/// that a naive scan of the internal subset would misread.
@Suite struct DoctypeInternalSubsetTests {
    /// Every document here is one `xmllint --noout` accepts.
    @Test(arguments: [
        // A quote inside a comment of the internal subset is not a literal.
        """
        <!DOCTYPE rss [
          <!-- don't "quote" me -->
        ]>
        <rss version="2.0"><channel><title>Plain</title></channel></rss>
        """,
        // Nor inside a processing instruction.
        """
        <!DOCTYPE rss [<?pi it's odd?>]>
        <rss version="2.0"><channel><title>Plain</title></channel></rss>
        """,
        // Literals of a declaration may hold `>` and `]`; a parameter entity reference is skipped.
        """
        <?xml version="1.0"?>
        <!DOCTYPE rss [
          <!ENTITY % pe "<!ENTITY ignored 'x'>">
          %pe;
          <!ATTLIST item note CDATA "a > b ] c">
          <!-- it's -->
        ]>
        <rss version="2.0"><channel><title>Plain</title></channel></rss>
        """,
        // The external ID's literals may hold `[` and `>`.
        """
        <!DOCTYPE rss SYSTEM "http://example.org/[odd]>.dtd" [<!-- it's -->]>
        <rss version="2.0"><channel><title>Plain</title></channel></rss>
        """,
    ])
    func rootSurvivesTheDoctype(_ text: String) throws {
        let document = try DOMDocument(parsing: Array(text.utf8))
        #expect(document.root.name == "rss")
        #expect(document.isWellFormed)
        #expect(document.root.child("channel")?.child("title")?.text == "Plain")
    }

    @Test func entityDeclaredAfterACommentWithAnApostropheIsExpanded() throws {
        let text = """
            <!DOCTYPE rss [
              <!-- the feed's entities -->
              <!ENTITY who "Zo&#235;">
              <!ENTITY site "Example's site">
            ]>
            <rss version="2.0"><channel><title>&site;</title></channel></rss>
            """
        let document = try DOMDocument(parsing: Array(text.utf8))
        #expect(document.root.child("channel")?.child("title")?.text == "Example's site")
    }

    /// An entity "declared" inside a comment is no declaration.
    @Test func declarationInsideACommentIsIgnored() throws {
        let text = """
            <!DOCTYPE rss [<!-- <!ENTITY fake "no"> -->]>
            <rss version="2.0"><channel><title>&fake;</title></channel></rss>
            """
        let document = try DOMDocument(parsing: Array(text.utf8))
        #expect(document.root.child("channel")?.child("title")?.text == "&fake;")
    }
}

@Suite struct InnerMarkupNamespaceTests {
    /// One element as a reader of the markup sees it.
    struct Shape: Equatable, CustomStringConvertible {
        var namespaceURI: String?
        var name: String
        var attributes: [String]
        var children: [Shape]
        var description: String { "\(namespaceURI ?? "-") \(name) \(attributes) \(children)" }
    }

    static func shape(_ element: DOMElement) -> Shape {
        Shape(
            namespaceURI: element.namespaceURI, name: element.name,
            attributes: element.attributes.map { "\($0.namespaceURI ?? "")|\($0.name)=\($0.value)" }.sorted(),
            children: element.children.map(shape))
    }

    /// Parses `markup` as the content of an XHTML element, where a consumer of `innerMarkup` reads it.
    static func reparsed(_ markup: String) throws -> DOMElement {
        try DOMDocument(parsing: Array(#"<div xmlns="http://www.w3.org/1999/xhtml">\#(markup)</div>"#.utf8)).root
    }

    static func content(_ document: String) throws -> DOMElement {
        let root = try DOMDocument(parsing: Array(document.utf8)).root
        return try #require(root.child("entry", in: .atom)?.child("content", in: .atom)?.child("div", in: .xhtml))
    }

    /// SECURITY: a namespace URI is an attribute value like any other.
    @Test func defaultNamespaceURIIsEscaped() throws {
        let div = try Self.content(
            """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml">\
            <div xmlns="http://www.w3.org/1999/xhtml"><p xmlns="urn:a&quot; onload=&quot;alert(1)">x</p></div>\
            </content></entry></feed>
            """)
        let markup = div.innerMarkup
        #expect(!markup.contains(#"" onload=""#))
        let p = try #require(try Self.reparsed(markup).children.first { _ in true })
        #expect(p.attributes.isEmpty)
        #expect(p.namespaceURI == #"urn:a" onload="alert(1)"#)
        #expect(Self.shape(try Self.reparsed(markup)).children == div.children.map(Self.shape))
    }

    @Test func prefixedNamespaceURIIsEscaped() throws {
        let div = try Self.content(
            """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry><content type="xhtml">\
            <div xmlns="http://www.w3.org/1999/xhtml" xmlns:x="urn:x&lt;&amp;&quot;'">\
            <p x:a="1&quot;2">x</p></div></content></entry></feed>
            """)
        #expect(Self.shape(try Self.reparsed(div.innerMarkup)).children == div.children.map(Self.shape))
    }

    /// Foreign content keeps its namespaces: each one the fragment uses is
    /// declared where the output needs it, and only there.
    @Test func foreignContentReparsesWithItsNamespaces() throws {
        let div = try Self.content(
            """
            <feed xmlns="http://www.w3.org/2005/Atom"><entry xmlns:xlink="http://www.w3.org/1999/xlink" \
            xmlns:svg="http://www.w3.org/2000/svg" xmlns:m="http://www.w3.org/1998/Math/MathML" xmlns:u="urn:unused">\
            <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Look:</p>\
            <svg:svg version="1.1"><svg:a xlink:href="http://example.com/"><svg:circle r="5"/></svg:a>\
            <svg:a xlink:href="http://example.com/2"/></svg:svg>\
            <m:math><m:mrow xlink:type="simple" xlink:href="http://golem.ph.utexas.edu"><m:mi>a</m:mi></m:mrow></m:math>\
            <p xml:lang="en">back in <b>XHTML</b></p></div></content></entry></feed>
            """)
        let markup = div.innerMarkup
        #expect(Self.shape(try Self.reparsed(markup)).children == div.children.map(Self.shape))
        #expect(!markup.contains("urn:unused"))
        #expect(!markup.contains("http://www.w3.org/1999/xhtml"))
        #expect(!markup.contains("svg:"))
        // Declared once per element that needs it: on each `a` (siblings) and on `mrow`.
        #expect(markup.components(separatedBy: "xmlns:xlink=").count - 1 == 3)
        #expect(markup.components(separatedBy: #"xmlns="http://www.w3.org/2000/svg""#).count - 1 == 1)
    }

    /// Markup a feed left unescaped in a text construct is HTML: the feed's
    /// own namespace, inherited by it, is not written out.
    @Test(arguments: [
        "http://purl.org/atom/ns#", "http://www.w3.org/2005/Atom", "http://purl.org/rss/1.0/",
    ])
    func feedNamespaceNeverBecomesTheContentNamespace(_ feedNamespace: String) throws {
        let root = try DOMDocument(
            parsing: Array(#"<feed xmlns="\#(feedNamespace)"><title>Example <b>Atom</b></title></feed>"#.utf8)
        ).root
        let title = try #require(root.children.first { $0.name == "title" })
        #expect(title.innerMarkup == "Example <b>Atom</b>")
    }

    @Test func elementsWithoutANamespaceStayPlain() throws {
        let root = try DOMDocument(parsing: Array(#"<rss><description>a <p class="x">b</p></description></rss>"#.utf8))
            .root
        #expect(try #require(root.child("description")).innerMarkup == #"a <p class="x">b</p>"#)
    }

    /// `xlink:href` left undeclared in naked RSS markup gets the declaration it can only mean.
    @Test func undeclaredXLinkPrefixIsDeclared() throws {
        let root = try DOMDocument(
            parsing: Array(
                #"<rss><description><svg xmlns="http://www.w3.org/2000/svg"><a xlink:href="x"><b xlink:href="y"/></a></svg></description></rss>"#
                    .utf8)
        ).root
        let markup = try #require(root.child("description")).innerMarkup
        let reparsed = try Self.reparsed(markup)
        let a = try #require(reparsed.children.first { _ in true }?.children.first { _ in true })
        #expect(a.attributes.map(\.namespaceURI) == ["http://www.w3.org/1999/xlink"])
        #expect(a.children.first { _ in true }?.attributes.map(\.namespaceURI) == ["http://www.w3.org/1999/xlink"])
        #expect(markup.components(separatedBy: "xmlns:xlink=").count - 1 == 1)
    }
}
