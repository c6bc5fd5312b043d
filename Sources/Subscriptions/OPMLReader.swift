import XMLTree
import Basics

/// OPML 1.0 and 2.0: outlines with an `xmlUrl` are subscriptions; nested
/// outlines without one are folders, whose path becomes each feed's group.
enum OPMLReader {
    static func isOPML(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(2048), as: UTF8.self).lowercased()
        return head.contains("<opml")
    }

    /// - Throws: `SubscriptionError` with the line libxml2 reported when
    ///   the file is not well-formed, or when it is not OPML at all.
    static func read(_ bytes: [UInt8], source: String, into list: inout SubscriptionList) throws(SubscriptionError) {
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
        }
        readOutlines(of: body, folder: [], source: source, into: &list)
    }

    private static func readOutlines(
        of parent: DOMElement, folder: [String], source: String, into list: inout SubscriptionList
    ) {
        for outline in parent.children where outline.name == "outline" {
            let title = nonEmpty(outline.attribute("title")) ?? nonEmpty(outline.attribute("text"))
            if let url = nonEmpty(outline.attribute("xmlUrl") ?? outline.attribute("xmlurl")) {
                let type = outline.attribute("type")?.lowercased()
                if let type, !["rss", "atom", "feed", "rdf", "json", "jsonfeed"].contains(type) {
                    list.warnings.append("\(source):\(outline.line): outline of type \"\(type)\" read as a feed")
                }
                list.add(
                    Subscription(
                        url: url, title: title, htmlURL: nonEmpty(outline.attribute("htmlUrl")), folder: folder,
                        opmlFile: source.contains("://") ? nil : source))
                readOutlines(of: outline, folder: folder + [title ?? url], source: source, into: &list)
            } else if outline.children.contains(where: { $0.name == "outline" }) {
                readOutlines(of: outline, folder: folder + [title ?? "untitled"], source: source, into: &list)
            } else {
                list.warnings.append("\(source):\(outline.line): outline \"\(title ?? "")\" has no xmlUrl; skipped")
            }
        }
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value = value?.trimmingWhitespace, !value.isEmpty else { return nil }
        return value
    }
}
