internal import CLibXML2
internal import CLibXSLT
import Foundation
import TextOutput

/// A theme's result tree written as an HTML document (the page is served
/// as HTML), whatever the theme's output method: Venus's themes produce
/// XHTML, whose XML serialization would mislead an HTML parser (an empty
/// `<div/>` or `<a/>` opens an element that swallows the rest of the page).
/// So the tree is written with the HTML syntax instead:
/// - `<!DOCTYPE html>` first (standards mode), and `<meta charset="utf-8">`
///   at the top of `head` when the theme gives no charset;
/// - every element that is not void gets its end tag; void elements none;
///   elements of SVG and MathML may close themselves, as HTML allows there;
/// - `xml:lang` becomes `lang`; namespace declarations are left out;
/// - text and attribute values escaped as HTML escapes them (`<` and `>`
///   in values too); the text of `script` and `style` as it is, except what
///   could end the element (`rawText`); comments written so that nothing
///   in them can end them (`commentText`); text outside the root element
///   left out.
enum HTMLResult {
    private static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]
    private static let rawTextElements: Set<String> = ["script", "style"]
    private static let foreignNamespaces: Set<String> = [
        "http://www.w3.org/2000/svg", "http://www.w3.org/1998/Math/MathML",
    ]

    /// The page; `subscriptions`, the default theme's list made apart, go
    /// into its list (`isSubscriptionList`).
    static func write(_ document: xmlDocPtr, subscriptions: SortedSubscriptions? = nil, into out: inout TextBuffer) {
        out.append("<!DOCTYPE html>\n")
        var child = document.pointee.children
        while let node = child {
            // Text outside the root element (a theme's `disable-output-escaping` DOCTYPE,
            // stray whitespace) would open `body` before the theme's `head`: left out.
            if node.pointee.type == XML_ELEMENT_NODE || node.pointee.type == XML_COMMENT_NODE {
                write(node, subscriptions: subscriptions, into: &out)
            }
            child = node.pointee.next
        }
        out.append(byte: 0x0A)
    }

    /// One node of a result and what it holds, as the page writes it.
    static func write(_ node: xmlNodePtr, subscriptions: SortedSubscriptions? = nil, into out: inout TextBuffer) {
        switch node.pointee.type {
        case XML_ELEMENT_NODE:
            element(node, subscriptions: subscriptions, into: &out)
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            if let content = node.pointee.content { escaped(content, attribute: false, into: &out) }
        case XML_COMMENT_NODE:
            out.append("<!--")
            if let content = node.pointee.content { out.append(contentsOf: commentText(String(cString: content))) }
            out.append("-->")
        default:
            break  // doctype (written first), processing instructions, DTD nodes
        }
    }

    private static func element(_ node: xmlNodePtr, subscriptions: SortedSubscriptions?, into out: inout TextBuffer) {
        let namespace = node.pointee.ns.flatMap { $0.pointee.href }.map { String(cString: $0) }
        let foreign = namespace.map { foreignNamespaces.contains($0) } ?? false
        let local = String(cString: node.pointee.name)
        let name = foreign ? local : local.lowercased()
        out.append(byte: UInt8(ascii: "<"))
        out.append(contentsOf: name)
        attributes(of: node, into: &out)
        if foreign && node.pointee.children == nil {
            out.append("/>")
            return
        }
        out.append(byte: UInt8(ascii: ">"))
        if !foreign && voidElements.contains(name) { return }
        if name == "head" && !foreign && !declaresCharset(node) { out.append("<meta charset=\"utf-8\">") }
        var child = node.pointee.children
        if !foreign && rawTextElements.contains(name) {
            var text = ""
            while let node = child {
                if node.pointee.type == XML_TEXT_NODE || node.pointee.type == XML_CDATA_SECTION_NODE,
                    let content = node.pointee.content
                {
                    text += String(cString: content)
                }
                child = node.pointee.next
            }
            out.append(contentsOf: rawText(text))
        } else {
            while let next = child {
                write(next, subscriptions: subscriptions, into: &out)
                child = next.pointee.next
            }
            if let subscriptions, name == "ul", isSubscriptionList(node) { subscriptions.write(into: &out) }
        }
        out.append("</")
        out.append(contentsOf: name)
        out.append(byte: UInt8(ascii: ">"))
        out.drainIfFull()  // a streaming buffer goes to its file a megabyte at a time
    }

    /// Whether `node` is the default theme's list of subscriptions: the `ul`
    /// of `body > div.layout > aside > div.subscriptions`, where no entry's
    /// content can be (an entry's markup is inside `main`).
    private static func isSubscriptionList(_ node: xmlNodePtr) -> Bool {
        func parent(of node: xmlNodePtr, _ name: String, class wanted: String? = nil) -> xmlNodePtr? {
            guard let parent = node.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE,
                String(cString: parent.pointee.name) == name
            else { return nil }
            guard let wanted else { return parent }
            guard let value = xmlGetProp(parent, "class") else { return nil }
            defer { CLibXSLT_free(value) }
            return String(cString: value) == wanted ? parent : nil
        }
        return parent(of: node, "div", class: "subscriptions")
            .flatMap { parent(of: $0, "aside") }
            .flatMap { parent(of: $0, "div", class: "layout") }
            .flatMap { parent(of: $0, "body") } != nil
    }

    /// The text of a `script` or `style`, which HTML does not escape: a
    /// theme may put feed text there (a JSON-LD block of titles, a CSS
    /// comment naming the planet), so nothing in it may end the element or
    /// open a comment: `</` is written `<\/` (the same string in JavaScript,
    /// the same characters in CSS) and `<!--` is written `<\!--`.
    static func rawText(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "<")) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 8)
        let bytes = Array(text.utf8)
        for (index, byte) in bytes.enumerated() {
            out.append(byte)
            guard byte == UInt8(ascii: "<"), index + 1 < bytes.count else { continue }
            let next = bytes[index + 1]
            let opensComment =
                next == UInt8(ascii: "!") && index + 3 < bytes.count && bytes[index + 2] == UInt8(ascii: "-")
                && bytes[index + 3] == UInt8(ascii: "-")
            if next == UInt8(ascii: "/") || opensComment { out.append(UInt8(ascii: "\\")) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A comment's text as HTML's comment grammar allows it, whatever a
    /// theme put there (feed text in an `xsl:comment` among it): it may not
    /// start with `>` or `->`, contain `<!--`, `-->` or `--!>`, or end with
    /// `<!-`, or the comment ends early and what follows is live markup.
    /// No `--` at all (each becomes `- -`), and a space before a leading
    /// `>` or `-` and after a trailing `-` or `<!`, leave nothing to end it.
    static func commentText(_ text: String) -> String {
        guard text.contains(where: { $0 == "-" || $0 == ">" || $0 == "<" }) else { return text }
        var result = text
        while result.contains("--") { result = result.replacingOccurrences(of: "--", with: "- -") }
        if result.hasPrefix(">") || result.hasPrefix("-") { result = " " + result }
        if result.hasSuffix("-") || result.hasSuffix("<!") { result += " " }
        return result
    }

    /// Whether an attribute name can be written as it is: a name with a
    /// quote, `=`, `<`, `>`, `/`, a space or a control character would
    /// change how the tag reads (libxslt checks `xsl:attribute` names, this
    /// keeps the writer safe on its own).
    static func isWritableName(_ name: String) -> Bool {
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                byte > 0x20 && byte != 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "'")
                    && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "<") && byte != UInt8(ascii: ">")
                    && byte != UInt8(ascii: "/")
            }
    }

    /// An attribute a browser runs as script (`on*` handlers) or reads as a
    /// document (`srcdoc`): a theme that puts feed text there hands it the
    /// page, and no Venus theme uses one, so none is written.
    static func runsCode(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower.hasPrefix("on") || lower == "srcdoc"
    }

    /// Attributes whose value a browser follows as a URL.
    private static let urlAttributes: Set<String> = [
        "href", "src", "action", "formaction", "xlink:href", "data", "poster", "background", "cite", "longdesc",
        "usemap", "manifest", "codebase", "lowsrc", "dynsrc", "ping",
    ]

    /// Whether a URL runs script where it is followed: `javascript:` and
    /// `vbscript:`, and `data:` anywhere but an image's source (the
    /// sanitized content keeps `data:image/…` images). Browsers drop tabs
    /// and newlines anywhere in a URL and spaces and controls around it.
    static func runsScript(url: String, element: xmlNodePtr? = nil) -> Bool {
        let compact = String(
            url.unicodeScalars.filter { $0 != "\t" && $0 != "\n" && $0 != "\r" }
                .drop { $0.value <= 0x20 }
        ).lowercased()
        if compact.hasPrefix("javascript:") || compact.hasPrefix("vbscript:") { return true }
        guard compact.hasPrefix("data:") else { return false }
        guard let element, compact.hasPrefix("data:image/") else { return true }
        return !["img", "source", "image"].contains(String(cString: element.pointee.name).lowercased())
    }

    private static func attributes(of node: xmlNodePtr, into out: inout TextBuffer) {
        var hasLang = false
        var attribute = node.pointee.properties
        while let current = attribute {
            if current.pointee.ns == nil, String(cString: current.pointee.name) == "lang" { hasLang = true }
            attribute = current.pointee.next
        }
        attribute = node.pointee.properties
        while let current = attribute {
            defer { attribute = current.pointee.next }
            var name = String(cString: current.pointee.name)
            if let ns = current.pointee.ns {
                let href = ns.pointee.href.map { String(cString: $0) }
                if href == "http://www.w3.org/XML/1998/namespace" {
                    guard name == "lang", !hasLang else { continue }
                } else if let prefix = ns.pointee.prefix {
                    name = String(cString: prefix) + ":" + name
                }
            }
            guard isWritableName(name), !runsCode(name) else { continue }
            // Only a URL's value is read whole, to judge its scheme; the others go out as they are.
            var url: String?
            if urlAttributes.contains(name.lowercased()) {
                var value = ""
                var part = current.pointee.children
                while let text = part {
                    if let content = text.pointee.content { value += String(cString: content) }
                    part = text.pointee.next
                }
                if runsScript(url: value, element: node) { continue }
                url = value
            }
            out.append(byte: UInt8(ascii: " "))
            out.append(contentsOf: name)
            out.append("=\"")
            if let url {
                url.withCString {
                    $0.withMemoryRebound(to: xmlChar.self, capacity: 1) { escaped($0, attribute: true, into: &out) }
                }
            } else {
                var part = current.pointee.children
                while let text = part {
                    if let content = text.pointee.content { escaped(content, attribute: true, into: &out) }
                    part = text.pointee.next
                }
            }
            out.append(byte: UInt8(ascii: "\""))
        }
    }

    /// Whether a `head` has `<meta charset>` or `<meta http-equiv="content-type">`.
    private static func declaresCharset(_ head: xmlNodePtr) -> Bool {
        var child = head.pointee.children
        while let node = child {
            defer { child = node.pointee.next }
            guard node.pointee.type == XML_ELEMENT_NODE, String(cString: node.pointee.name).lowercased() == "meta"
            else { continue }
            if xmlHasProp(node, "charset") != nil { return true }
            if let equiv = xmlGetProp(node, "http-equiv") {
                defer { CLibXSLT_free(equiv) }
                if String(cString: equiv).lowercased() == "content-type" { return true }
            }
        }
        return false
    }

    /// HTML's escaping: `&`, `<`, `>` and no-break spaces in text and in
    /// attribute values, and `"` in attribute values. `<` and `>` need no
    /// escaping in a quoted value, but an element HTML reads as raw text
    /// (`noscript` with scripting on, `iframe`, `noembed`, `noframes`,
    /// `xmp`) ends at the first `</name` even inside a value.
    private static func escaped(_ content: UnsafePointer<xmlChar>, attribute: Bool, into out: inout TextBuffer) {
        var start = content
        var cursor = content
        func flush() {
            if cursor > start { out.append(start, count: cursor - start) }
        }
        while cursor.pointee != 0 {
            let byte = cursor.pointee
            let replacement: StaticString?
            var width = 1
            switch byte {
            case UInt8(ascii: "&"): replacement = "&amp;"
            case UInt8(ascii: "<"): replacement = "&lt;"
            case UInt8(ascii: ">"): replacement = "&gt;"
            case UInt8(ascii: "\"") where attribute: replacement = "&quot;"
            case 0xC2 where cursor[1] == 0xA0:
                replacement = "&nbsp;"
                width = 2
            default: replacement = nil
            }
            if let replacement {
                flush()
                out.append(replacement)
                cursor += width
                start = cursor
            } else {
                cursor += 1
            }
        }
        flush()
    }
}
