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
        guard let unfinished = open.dropFirst().first(where: { recordNames.contains(localName($0)) }) else {
            let inside = open.last.map { " inside <\(localName($0))>" } ?? ""
            return "document truncated\(inside); every element that ended was kept"
        }
        let name = localName(unfinished)
        var complete = 0
        var sibling = unfinished.pointee.prev
        while let node = sibling {
            if node.pointee.type == XML_ELEMENT_NODE && localName(node) == name { complete += 1 }
            sibling = node.pointee.prev
        }
        xmlUnlinkNode(unfinished)
        xmlFreeNode(unfinished)
        return "document truncated after \(complete) complete <\(name)> elements; the unfinished one was dropped"
    }
}
