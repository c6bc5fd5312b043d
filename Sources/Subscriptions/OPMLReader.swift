import Basics
import XMLTree

/// OPML 1.0 and 2.0: outlines with an `xmlUrl` are subscriptions; nested
/// outlines without one are folders, whose path becomes each feed's group.
public enum OPMLReader {
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
    ///
    /// The list is read as a stream of elements (`ElementStream`), never as
    /// a tree: a list of 100,000 feeds costs its subscriptions, not a
    /// document of them besides.
    static func read(
        _ bytes: [UInt8], source: String, into list: inout some SubscriptionCollection, localFile: String?,
        namesLocalFiles: Bool
    ) throws(SubscriptionError) {
        let origin = Origin(localFile: localFile, namesLocalFiles: namesLocalFiles)
        var reading = Reading(source: source, origin: origin)
        // Each attempt from the start (`ElementStream`: as it is, then repaired), and a list that
        // cannot be read leaves the list as it was.
        let mark = list.mark
        do {
            try ElementStream.read(bytes, url: source.contains("://") ? source : nil) {
                list.rollBack(to: mark)
                reading = Reading(source: source, origin: origin)
            } _: {
                reading.take($0, into: &list)
            }
        } catch {
            list.rollBack(to: mark)
            let what = isOPML(bytes) ? "malformed OPML" : "not OPML"
            throw SubscriptionError(source: source, line: error.line, message: "\(what): \(error.message)")
        }
        guard let root = reading.root, root.name == "opml", reading.bodySeen else {
            list.rollBack(to: mark)
            throw SubscriptionError(source: source, line: reading.root?.line, message: "not OPML: no <opml><body>")
        }
        reading.finish(into: &list)
    }

    /// Where a list came from: what its subscriptions carry.
    private struct Origin {
        var localFile: String?
        var namesLocalFiles: Bool
    }

    /// One reading of a list, element by element, into a list: what each
    /// open element is (a stack by depth), the folders the open outlines make,
    /// the head's fields.
    private struct Reading {
        let source: String
        let origin: Origin
        var root: (name: String, line: Int)?
        var bodySeen = false
        var headSeen = false
        /// The head's fields, by name, as their text (the first of each).
        var head: [String: String] = [:]
        private var frames: [Frame] = []
        /// The folder path the open outlines make.
        private var folders: [String] = []

        init(source: String, origin: Origin) {
            self.source = source
            self.origin = origin
        }

        private enum Frame {
            case root, head, body
            /// A head field whose text is being read.
            case headField(String)
            /// An outline: whether it adds a folder, and (one without `xmlUrl`) whether an outline
            /// was found inside it, and its title and line for the warning if not.
            case outline(addsFolder: Bool, subscribes: Bool, hasOutline: Bool, title: String?, line: Int)
            /// Anything else: what is inside it is not read.
            case ignored
        }

        static let headFields: Set<String> = ["title", "ownerName", "ownerEmail", "htmlUrl", "ownerId"]

        mutating func take(_ event: ElementStream.Event, into list: inout some SubscriptionCollection) {
            switch event {
            case .start(let element):
                let frame = frame(for: element, parent: frames.last, into: &list)
                frames.append(frame)
                if element.isEmpty { close(into: &list) }
            case .end:
                close(into: &list)
            case .text(let text, _):
                if case .headField(let name)? = frames.last { head[name, default: ""] += text }
            }
        }

        private mutating func frame(
            for element: ElementStream.Element, parent: Frame?, into list: inout some SubscriptionCollection
        ) -> Frame {
            guard let parent else {
                root = (element.name, element.line)
                return .root
            }
            switch parent {
            case .root:
                if element.name == "head" && !headSeen {
                    headSeen = true
                    return .head
                }
                if element.name == "body" && !bodySeen {
                    bodySeen = true
                    return .body
                }
                return .ignored
            case .head:
                guard Self.headFields.contains(element.name), head[element.name] == nil else { return .ignored }
                head[element.name] = ""
                return .headField(element.name)
            case .body, .outline:
                guard element.name == "outline" else { return .ignored }
                if case .outline(let adds, let subscribes, false, let title, let line) = parent {
                    frames[frames.count - 1] = .outline(
                        addsFolder: adds, subscribes: subscribes, hasOutline: true, title: title, line: line)
                }
                return outline(element, into: &list)
            case .headField, .ignored:
                return .ignored
            }
        }

        private mutating func outline(_ outline: ElementStream.Element, into list: inout some SubscriptionCollection)
            -> Frame
        {
            let title =
                OPMLReader.nonEmpty(outline.attribute("title")) ?? OPMLReader.nonEmpty(outline.attribute("text"))
            guard let url = OPMLReader.nonEmpty(outline.attribute("xmlUrl") ?? outline.attribute("xmlurl")) else {
                folders.append(title ?? "untitled")
                return .outline(
                    addsFolder: true, subscribes: false, hasOutline: false, title: title, line: outline.line)
            }
            let type = outline.attribute("type")?.lowercased()
            if let type, !["rss", "atom", "feed", "rdf", "json", "jsonfeed"].contains(type) {
                list.warnings.append("\(source):\(outline.line): outline of type \"\(type)\" read as a feed")
            }
            var subscription = Subscription(
                url: url, title: title, htmlURL: OPMLReader.nonEmpty(outline.attribute("htmlUrl")),
                // (Outside any folder, the shared empty array: not a buffer per feed.)
                folder: folders.isEmpty ? [] : folders,
                opmlFile: origin.localFile)
            subscription.mayReadLocalFile = origin.namesLocalFiles
            subscription.properties = properties(of: outline, into: &list)
            list.add(subscription)
            folders.append(title ?? url)
            return .outline(addsFolder: true, subscribes: true, hasOutline: false, title: title, line: outline.line)
        }

        private mutating func close(into list: inout some SubscriptionCollection) {
            guard let frame = frames.popLast() else { return }
            if case .outline(let addsFolder, let subscribes, let hasOutline, let title, let line) = frame {
                if addsFolder { folders.removeLast() }
                if !subscribes && !hasOutline {
                    list.warnings.append("\(source):\(line): outline \"\(title ?? "")\" has no xmlUrl; skipped")
                }
            }
        }

        /// An outline's attributes beyond OPML's own, in no namespace.
        private func properties(of outline: ElementStream.Element, into list: inout some SubscriptionCollection)
            -> [String: String]
        {
            var properties: [String: String] = [:]
            for attribute in outline.attributes where attribute.namespaceURI == nil {
                let name = attribute.name.lowercased()
                guard !outlineAttributes.contains(name) else { continue }
                if filterSettings.contains(name) && !origin.namesLocalFiles {
                    list.warnings.append(
                        "\(source):\(outline.line): \(attribute.name)\(OPMLReader.remoteFilterSettingDropped)")
                    continue
                }
                properties[name] = attribute.value
            }
            return properties
        }

        /// The head's fields where the list had none.
        func finish(into list: inout some SubscriptionCollection) {
            func field(_ name: String) -> String? { OPMLReader.nonEmpty(head[name]) }
            if list.title == nil { list.title = field("title") }
            if list.ownerName == nil { list.ownerName = field("ownerName") }
            if list.ownerEmail == nil { list.ownerEmail = field("ownerEmail") }
            if list.homePage == nil {
                list.homePage = [field("htmlUrl"), field("ownerId")].compactMap { $0 }.first {
                    $0.hasPrefix("http://") || $0.hasPrefix("https://")
                }
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

    /// How the warning about a filter setting left out of a list that is not a local file ends.
    public static let remoteFilterSettingDropped = " is not taken from a list that is not a local file"

    fileprivate static func nonEmpty(_ value: String?) -> String? {
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
