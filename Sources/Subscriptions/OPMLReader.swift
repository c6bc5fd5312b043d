import Basics
import XMLTree

/// OPML 1.0 and 2.0: outlines with an `xmlUrl` are subscriptions; nested
/// outlines without one are folders, whose path becomes each feed's group.
enum OPMLReader {
    /// Whether a document's root element is `<opml>` (after any XML
    /// declaration, comments, processing instructions and doctype): the
    /// content decides, not the name or the URL it came from.
    static func isOPML(_ bytes: [UInt8]) -> Bool {
        var index = 0
        // UTF-16 (a BOM or zero bytes): read the ASCII of it.
        let ascii = bytes.prefix(4).contains(0) ? bytes.filter { $0 != 0 && $0 != 0xFE && $0 != 0xFF } : bytes
        while let open = ascii[index...].firstIndex(of: UInt8(ascii: "<")) {
            let next = open + 1 < ascii.count ? ascii[open + 1] : 0
            if next == UInt8(ascii: "?") || next == UInt8(ascii: "!") {
                let close: [UInt8] =
                    next == UInt8(ascii: "!") && ascii[open...].starts(with: Array("<!--".utf8))
                    ? Array("-->".utf8) : Array(">".utf8)
                guard let end = ascii.firstRange(of: close, in: (open + 2)..<ascii.count) else { return false }
                index = end
                continue
            }
            let name = ascii[(open + 1)...].prefix { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: ">") && $0 > 0x20 }
            return String(decoding: name, as: UTF8.self).lowercased() == "opml"
        }
        return false
    }

    /// - Throws: `SubscriptionError` with the line libxml2 reported when
    ///   the file is not well-formed, or when it is not OPML at all.
    /// - Parameter localFile: the file it was read from, for `--update-opml`
    ///   (nil for a URL or standard input).
    static func read(
        _ bytes: [UInt8], source: String, into list: inout SubscriptionList, localFile: String?,
        namesLocalFiles: Bool
    ) throws(SubscriptionError) {
        let document: DOMDocument
        do {
            document = try DOMDocument(parsing: bytes, url: source.contains("://") ? source : nil)
        } catch {
            throw SubscriptionError(source: source, line: error.line, message: "not OPML: \(error.message)")
        }
        if let error = document.recoveredError {
            throw SubscriptionError(source: source, line: error.line, message: "malformed OPML: \(error.message)")
        }
        let root = document.root
        guard root.name == "opml", let body = root.child("body") else {
            throw SubscriptionError(source: source, line: root.line, message: "not OPML: no <opml><body>")
        }
        if let head = root.child("head") {
            if list.title == nil { list.title = head.child("title")?.trimmedText }
            if list.ownerName == nil { list.ownerName = head.child("ownerName")?.trimmedText }
            if list.ownerEmail == nil { list.ownerEmail = head.child("ownerEmail")?.trimmedText }
            if list.homePage == nil {
                list.homePage = [head.child("htmlUrl")?.trimmedText, head.child("ownerId")?.trimmedText]
                    .compactMap { $0 }.first { $0.hasPrefix("http://") || $0.hasPrefix("https://") }
            }
        }
        readOutlines(
            of: body, folder: [], source: source, into: &list,
            origin: Origin(localFile: localFile, namesLocalFiles: namesLocalFiles))
    }

    /// Where a list came from: what its subscriptions carry.
    private struct Origin {
        var localFile: String?
        var namesLocalFiles: Bool
    }

    private static func readOutlines(
        of parent: DOMElement, folder: [String], source: String, into list: inout SubscriptionList, origin: Origin
    ) {
        for outline in parent.children where outline.name == "outline" {
            let title = nonEmpty(outline.attribute("title")) ?? nonEmpty(outline.attribute("text"))
            if let url = nonEmpty(outline.attribute("xmlUrl") ?? outline.attribute("xmlurl")) {
                let type = outline.attribute("type")?.lowercased()
                if let type, !["rss", "atom", "feed", "rdf", "json", "jsonfeed"].contains(type) {
                    list.warnings.append("\(source):\(outline.line): outline of type \"\(type)\" read as a feed")
                }
                var subscription = Subscription(
                    url: url, title: title, htmlURL: nonEmpty(outline.attribute("htmlUrl")), folder: folder,
                    opmlFile: origin.localFile)
                subscription.mayReadLocalFile = origin.namesLocalFiles
                subscription.properties = properties(of: outline, source: source, origin: origin, list: &list)
                list.add(subscription)
                readOutlines(of: outline, folder: folder + [title ?? url], source: source, into: &list, origin: origin)
            } else if outline.children.contains(where: { $0.name == "outline" }) {
                readOutlines(
                    of: outline, folder: folder + [title ?? "untitled"], source: source, into: &list, origin: origin)
            } else {
                list.warnings.append("\(source):\(outline.line): outline \"\(title ?? "")\" has no xmlUrl; skipped")
            }
        }
    }

    /// The outline attributes OPML defines; the others are the feed's
    /// properties, as Venus's reading lists pass them on (`face`, `filter`, …).
    private static let outlineAttributes: Set<String> = [
        "text", "title", "type", "xmlurl", "htmlurl", "description", "language", "version", "created", "category",
        "iscomment", "isbreakpoint", "url",
    ]

    /// Settings that choose what is done to a feed's entries: only a list the
    /// operator named as a local file may give them (a fetched list could
    /// name a local stylesheet, or a regular expression that never ends).
    static let filterSettings: Set<String> = ["filter", "exclude", "filters", "ignore_in_feed"]

    private static func properties(
        of outline: DOMElement, source: String, origin: Origin, list: inout SubscriptionList
    ) -> [String: String] {
        var properties: [String: String] = [:]
        for attribute in outline.attributes where attribute.namespaceURI == nil {
            let name = attribute.name.lowercased()
            guard !outlineAttributes.contains(name) else { continue }
            if filterSettings.contains(name) && !origin.namesLocalFiles {
                list.warnings.append(
                    "\(source):\(outline.line): \(attribute.name) is not taken from a list that is not a local file")
                continue
            }
            properties[name] = attribute.value
        }
        return properties
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value = value?.trimmingWhitespace, !value.isEmpty else { return nil }
        return value
    }
}

extension Array where Element == UInt8 {
    /// The end of the first occurrence of `pattern` within `range`.
    fileprivate func firstRange(of pattern: [UInt8], in range: Range<Int>) -> Int? {
        var start = range.lowerBound
        while start + pattern.count <= range.upperBound {
            if self[start..<(start + pattern.count)].elementsEqual(pattern) { return start + pattern.count }
            start += 1
        }
        return nil
    }
}
