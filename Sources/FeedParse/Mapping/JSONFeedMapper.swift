import Basics
import FeedModel
import Foundation

/// JSON Feed 1.0 and 1.1 (https://www.jsonfeed.org/version/1.1/), read with
/// Foundation's `JSONSerialization`.
struct JSONFeedMapper {
    var context: MappingContext

    mutating func map(_ bytes: [UInt8]) throws(ParseError) -> ParsedFeed {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        } catch {
            // A document cut short (size cap, dropped connection) keeps the
            // items that arrived whole.
            guard let recovered = JSONTruncation.completePrefix(of: bytes),
                let partial = try? JSONSerialization.jsonObject(with: Data(recovered.bytes))
            else {
                throw ParseError(stage: .json, message: "not valid JSON: \(error.localizedDescription)")
            }
            object = partial
            let items = ((partial as? [String: Any])?["items"] as? [Any])?.count ?? 0
            context.warnings.append(
                recovered.droppedItem
                    ? "document truncated after \(items) complete items; the unfinished one was dropped"
                    : "document truncated after \(items) items")
        }
        guard let feed = object as? [String: Any] else {
            throw ParseError(stage: .json, message: "a JSON Feed is an object, this JSON is not")
        }
        let version = string(feed["version"]) ?? ""
        guard version.contains("jsonfeed.org/version/") || feed["items"] is [Any] else {
            throw ParseError(stage: .detect, message: "JSON without a JSON Feed version or items")
        }
        let format: FeedFormat = version.hasSuffix("/1") || version.hasSuffix("/1/") ? .jsonFeed10 : .jsonFeed11
        let base = context.documentURL
        var metadata = FeedMetadata()
        metadata.title = string(feed["title"]).map { Text($0) }
        metadata.subtitle = string(feed["description"]).map { Text($0) }
        metadata.link = url(feed["home_page_url"], base: base)
        metadata.id = url(feed["feed_url"], base: base)
        metadata.selfLink = metadata.id
        for case let hub as [String: Any] in feed["hubs"] as? [Any] ?? [] {
            if let address = url(hub["url"], base: base) { metadata.hubs.append(address) }
        }
        metadata.logo = url(feed["icon"], base: base)
        metadata.icon = url(feed["favicon"], base: base)
        metadata.language = string(feed["language"])
        metadata.authors = people(feed, base: base)
        var entries: [Entry] = []
        for case let item as [String: Any] in feed["items"] as? [Any] ?? [] {
            entries.append(mapItem(item, base: base, label: "entry \(entries.count)"))
        }
        return ParsedFeed(format: format, metadata: metadata, entries: entries, warnings: context.warnings)
    }

    private mutating func mapItem(_ item: [String: Any], base: String?, label: String) -> Entry {
        var entry = Entry()
        entry.id = string(item["id"]) ?? (item["id"] as? NSNumber)?.stringValue
        entry.link = url(item["url"], base: base) ?? url(item["external_url"], base: base)
        entry.title = string(item["title"]).map { Text($0) }
        entry.summary = string(item["summary"]).map { Text($0) }
        if let html = string(item["content_html"]) {
            entry.content.append(Text(HTMLLinks.absolutize(html, base: base), kind: .html))
        }
        if let text = string(item["content_text"]) { entry.content.append(Text(text)) }
        entry.image = url(item["image"], base: base) ?? url(item["banner_image"], base: base)
        entry.published = date(item["date_published"], label: label)
        entry.updated = date(item["date_modified"], label: label)
        entry.authors = people(item, base: base)
        entry.language = string(item["language"])
        for case let tag as String in item["tags"] as? [Any] ?? [] { entry.categories.append(Category(term: tag)) }
        for case let attachment as [String: Any] in item["attachments"] as? [Any] ?? [] {
            guard let address = url(attachment["url"], base: base) else { continue }
            entry.enclosures.append(
                Enclosure(
                    url: address, length: count(attachment["size_in_bytes"]),
                    type: string(attachment["mime_type"]), duration: count(attachment["duration_in_seconds"])))
        }
        return entry
    }

    /// A size or a duration: a finite number from 0 up, else nothing (a
    /// `-1e300` must not become `Int.min` in the outputs).
    private func count(_ value: Any?) -> Int? {
        guard let number = value as? NSNumber else { return nil }
        let double = number.doubleValue
        guard double.isFinite, double >= 0, double < 9.0e18 else { return nil }
        return Int(double)
    }

    /// `authors` (1.1) or `author` (1.0).
    private func people(_ object: [String: Any], base: String?) -> [Person] {
        var list = object["authors"] as? [Any] ?? []
        if list.isEmpty, let single = object["author"] { list = [single] }
        return list.compactMap { value in
            guard let author = value as? [String: Any] else { return nil }
            let person = Person(name: string(author["name"]), uri: url(author["url"], base: base))
            return person.isEmpty ? nil : person
        }
    }

    private func string(_ value: Any?) -> String? {
        guard let text = (value as? String)?.trimmingWhitespace, !text.isEmpty else { return nil }
        return text
    }

    private func url(_ value: Any?, base: String?) -> String? {
        string(value).map { URLReference.resolve($0, against: base) }
    }

    private mutating func date(_ value: Any?, label: String) -> Timestamp? {
        guard let text = string(value) else { return nil }
        if let instant = DateParser.parse(text) { return instant }
        context.warnings.append("\(label): \(ParseWarning.unreadableDate) \"\(text.prefix(80))\"")
        return nil
    }
}

/// The longest prefix of a truncated JSON Feed that ends on a boundary
/// between whole values, closed with the brackets still open: between two
/// members of the top-level object, or between two elements of its `items`
/// array. An item that was cut off is left out whole.
enum JSONTruncation {
    /// nil when the document is not truncated (every bracket was closed) or
    /// no boundary was passed.
    static func completePrefix(of bytes: [UInt8]) -> (bytes: [UInt8], droppedItem: Bool)? {
        var stack: [UInt8] = []  // `{` or `[`
        var inString = false
        var escaped = false
        var expectingKey = false
        var key: [UInt8] = []
        var lastKey: [UInt8] = []
        var itemsDepth = -1  // the stack depth of the `items` array, once open
        var cut: (end: Int, closing: [UInt8])? = nil
        for (i, byte) in bytes.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if expectingKey && stack.count == 1 { lastKey = key }
                } else if expectingKey && stack.count == 1 && key.count < 16 {
                    key.append(byte)
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                key = []
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if byte == UInt8(ascii: "[") && stack == [UInt8(ascii: "{")] && !expectingKey
                    && lastKey == Array("items".utf8)
                {
                    itemsDepth = 2
                }
                stack.append(byte)
                expectingKey = byte == UInt8(ascii: "{") && stack.count == 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                if stack.count == itemsDepth, itemsDepth == 2 {
                    cut = (i + 1, Array("]}".utf8))  // an item ended
                } else if stack.count == 1 {
                    cut = (i + 1, Array("}".utf8))  // a top-level value ended
                    if itemsDepth == 2 { itemsDepth = -1 }
                }
            case UInt8(ascii: ","):
                if stack.count == 1 {
                    cut = (i, Array("}".utf8))
                    expectingKey = true
                }
            case UInt8(ascii: ":"):
                if stack.count == 1 { expectingKey = false }
            default:
                break
            }
        }
        guard !stack.isEmpty || inString, let cut else { return nil }
        // Deeper than the `items` array at the end: inside an item.
        return (Array(bytes[..<cut.end]) + cut.closing, itemsDepth == 2 && stack.count > 2)
    }
}
