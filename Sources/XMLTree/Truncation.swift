internal import CLibXML2

/// What is done with a document that ends before its root element does (a
/// transfer cut by a size cap or a dropped connection): libxml2's recover
/// mode keeps everything that arrived, and the one record that was cut off
/// is removed, so no half-read entry reaches the feed.
enum Truncation {
    /// Removes the outermost open element named in `recordNames` (never the
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
        guard let unfinished = open.dropFirst().first(where: { recordNames.contains(localName($0)) }) else {
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
