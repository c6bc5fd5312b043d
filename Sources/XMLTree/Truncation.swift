internal import CLibXML2

/// What is done with a document that ends before its root element does (a
/// transfer cut by a size cap or a dropped connection): libxml2's recover
/// mode keeps everything that arrived, and the one record that was cut off
/// is removed, so no half-read entry reaches the feed.
enum Truncation {
    /// Whether the bytes end (white space aside) with the end tag of `root`,
    /// as its name is written (`</rss>`, `</rdf:RDF >`): the document was
    /// not cut, whatever libxml2's recovery left open.
    static func endsWithEndTag(of root: xmlNodePtr, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var name = root.pointee.name.map { Array(String(cString: $0).utf8) } ?? []
        if let prefix = root.pointee.ns?.pointee.prefix {
            name = Array(String(cString: prefix).utf8) + [UInt8(ascii: ":")] + name
        }
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        var end = bytes.count
        while true {
            while end > 0, isSpace(bytes[end - 1]) || bytes[end - 1] == 0 { end -= 1 }
            // A comment after the root (`<!-- generated in 0.2 s -->`) is not the document's end.
            let close: [UInt8] = Array("-->".utf8)
            guard end >= 7, bytes[(end - 3)..<end].elementsEqual(close) else { break }
            let open: [UInt8] = Array("<!--".utf8)
            var start = end - 3
            while start >= 4, !bytes[(start - 4)..<start].elementsEqual(open) { start -= 1 }
            guard start >= 4 else { return false }
            end = start - 4
        }
        guard end > 0, bytes[end - 1] == UInt8(ascii: ">") else { return false }
        end -= 1
        while end > 0, isSpace(bytes[end - 1]) { end -= 1 }
        let tag = [UInt8(ascii: "<"), UInt8(ascii: "/")] + name
        guard end >= tag.count else { return false }
        return bytes[(end - tag.count)..<end].elementsEqual(tag)
    }

    /// Records (`item`, `entry`) that libxml2's recovery nested inside
    /// another, because an unclosed tag (`<p>`, `<b>`) in the first was still
    /// open when the next began, are moved out after it, in document order:
    /// every record stays a record of the feed, with its own content.
    /// - Returns: the warning, or nil when no record was nested.
    static func liftNestedRecords(in root: xmlNodePtr, recordNames: Set<String>) -> String? {
        // Names compared as C strings: the walk visits every element of the document.
        let names = recordNames.map { Array($0.utf8) + [0] }
        func isRecord(_ node: xmlNodePtr) -> Bool {
            guard node.pointee.type == XML_ELEMENT_NODE, let name = node.pointee.name else { return false }
            return names.contains { record in record.withUnsafeBufferPointer { xmlStrEqual(name, $0.baseAddress) != 0 }
            }
        }
        func namespace(_ node: xmlNodePtr) -> String? { node.pointee.ns?.pointee.href.map { String(cString: $0) } }
        /// The records inside `node` in its own namespace, in document order (preorder).
        func nested(in node: xmlNodePtr, namespace outer: String?, into found: inout [xmlNodePtr]) {
            var child = node.pointee.children
            while let current = child {
                if isRecord(current), namespace(current) == outer { found.append(current) }
                nested(in: current, namespace: outer, into: &found)
                child = current.pointee.next
            }
        }
        /// Each outermost record with the records nested in it.
        var groups: [(outer: xmlNodePtr, inner: [xmlNodePtr])] = []
        func outermost(in node: xmlNodePtr, depth: Int) {
            guard depth < 300 else { return }
            var child = node.pointee.children
            while let current = child {
                if isRecord(current) {
                    var inner: [xmlNodePtr] = []
                    nested(in: current, namespace: namespace(current), into: &inner)
                    if !inner.isEmpty { groups.append((current, inner)) }
                } else {
                    outermost(in: current, depth: depth + 1)
                }
                child = current.pointee.next
            }
        }
        outermost(in: root, depth: 0)
        guard !groups.isEmpty else { return nil }
        var moved = 0
        for group in groups {
            var cursor = group.outer
            for record in group.inner {
                xmlUnlinkNode(record)
                xmlAddNextSibling(cursor, record)
                // Its namespaces may be declared on the record it leaves, which may then be dropped
                // (`dropUnfinishedRecord`) and freed with them: declared again on the record where
                // no ancestor declares them (the fuzzer's `<feed><entry xmlns="1"><item`).
                xmlReconciliateNs(record.pointee.doc, record)
                cursor = record
                moved += 1
            }
        }
        let name = groups[0].inner[0].pointee.name.map { String(cString: $0) } ?? "item"
        return "\(moved) <\(name)> elements that unclosed tags had nested inside another were moved out"
    }

    /// Removes the innermost open element named in `recordNames` (never the
    /// root) and describes what was kept.
    /// - Parameter open: the elements open at the end, outermost first.
    /// - Returns: the warning for the document.
    static func dropUnfinishedRecord(open: [xmlNodePtr], recordNames: Set<String>) -> String {
        func localName(_ node: xmlNodePtr) -> String {
            let name = node.pointee.name.map { String(cString: $0) } ?? ""
            return name.split(separator: ":").last.map(String.init) ?? name
        }
        /// The record elements before `node` among its siblings, and their name.
        func records(before node: xmlNodePtr?) -> (count: Int, name: String?) {
            var count = 0
            var name: String?
            var sibling = node
            while let current = sibling {
                if current.pointee.type == XML_ELEMENT_NODE, recordNames.contains(localName(current)) {
                    count += 1
                    name = name ?? localName(current)
                }
                sibling = current.pointee.prev
            }
            return (count, name)
        }
        guard let unfinished = open.dropFirst().last(where: { recordNames.contains(localName($0)) }) else {
            // Cut between records, or before the first: all that arrived stays.
            guard let innermost = open.last else { return "document truncated" }
            let kept = records(before: innermost.pointee.last)
            guard let name = kept.name else { return "document truncated inside <\(localName(innermost))>" }
            return "document truncated after \(kept.count) complete <\(name)> elements"
        }
        let name = localName(unfinished)
        let complete = records(before: unfinished.pointee.prev).count
        xmlUnlinkNode(unfinished)
        xmlFreeNode(unfinished)
        return "document truncated after \(complete) complete <\(name)> elements; the unfinished one was dropped"
    }
}
