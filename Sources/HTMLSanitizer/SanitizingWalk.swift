internal import CGumbo
import Glibc

/// One pass of the sanitizer over gumbo's tree: an iterative depth-first walk
/// (an explicit stack, so nesting depth never reaches the call stack) that
/// writes the allowed elements, attributes and text through `MarkupWriter`.
///
/// `unstable` is set when the pass made a shape whose HTML serialization may
/// parse back into a different tree: an element unwrapped around other
/// elements (its children now meet the parser under a new parent: `<h1><x><h2>`
/// becomes `<h1><h2>`, which the parser splits), the depth bound, an `a`
/// inside an `a` (the parser closes the outer one), an element the parser
/// placed by foster parenting or the adoption agency (`<dt><table><dd>` gives
/// a `dd` inside the `dt`, which `<dt><dd>` does not; seen as siblings out of
/// source order, since gumbo 0.10 does not flag every foster-parented node),
/// or a table part outside its table. The caller then re-parses.
struct SanitizingWalk {
    /// Elements deeper than this many kept ancestors are unwrapped.
    static let maximumDepth = 256

    var writer: MarkupWriter
    let base: String?
    /// `rel` on links and `loading="lazy"` on images (the planet page).
    let decorate: Bool
    /// Every element unwrapped: only text is written (the last resort).
    let textOnly: Bool
    private(set) var unstable = false

    init(syntax: MarkupWriter.Syntax, capacity: Int, base: String?, decorate: Bool, textOnly: Bool = false) {
        writer = MarkupWriter(syntax: syntax, capacity: capacity)
        self.base = base
        self.decorate = decorate
        self.textOnly = textOnly
    }

    private struct Frame {
        var children: GumboVector
        var next: Int
        /// The tag whose end tag is written when the frame ends; -1 when unwrapped.
        var endTag: Int
        /// The nearest written ancestor's tag when the frame began.
        var parent: Int
        /// The source offset of the last element child seen.
        var lastOffset: UInt32 = 0
    }

    mutating func run(_ root: UnsafeMutablePointer<GumboNode>) {
        var stack: [Frame] = [Frame(children: root.pointee.v.element.children, next: 0, endTag: -1, parent: -1)]
        /// The tag of the nearest written ancestor (-1 at the top).
        var keptParent = -1
        stack.reserveCapacity(64)
        var keptDepth = 0
        var anchorDepth = 0
        while let top = stack.last {
            if top.next == Int(top.children.length) {
                stack.removeLast()
                if top.endTag >= 0 {
                    keptParent = top.parent
                    writer.endTag(ElementPolicy.names[top.endTag])
                    keptDepth -= 1
                    if top.endTag == ElementPolicy.a { anchorDepth -= 1 }
                }
                continue
            }
            stack[stack.count - 1].next += 1
            guard let raw = top.children.data[top.next] else { continue }
            let node = raw.assumingMemoryBound(to: GumboNode.self)
            switch node.pointee.type {
            case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE, GUMBO_NODE_CDATA:
                guard let text = node.pointee.v.text.text else { continue }
                text.withMemoryRebound(to: UInt8.self, capacity: 1) { bytes in
                    writer.text(UnsafeBufferPointer(start: bytes, count: strlen(text)))
                }
            case GUMBO_NODE_ELEMENT:
                let element = node.pointee.v.element
                // A later sibling that started earlier in the source: the parser moved one of them.
                let offset = element.start_pos.offset
                if offset < top.lastOffset { unstable = true }
                stack[stack.count - 1].lastOffset = offset
                // Foreign (SVG, MathML) elements only occur inside the dropped `svg` and `math`.
                guard element.tag_namespace == GUMBO_NAMESPACE_HTML else { continue }
                var tag = Int(element.tag.rawValue)
                var action = ElementPolicy.actions[tag]
                if element.tag == GUMBO_TAG_UNKNOWN, Self.isPicture(element) {
                    action = .keep
                    tag = ElementPolicy.pictureTag
                }
                if action == .drop { continue }
                if node.pointee.parse_flags.rawValue & Self.movedByParser != 0 { unstable = true }
                if action == .keep, textOnly || keptDepth >= Self.maximumDepth { action = .unwrap }
                if action == .unwrap {
                    if !unstable, Self.hasElementChild(element.children) { unstable = true }
                    stack.append(Frame(children: element.children, next: 0, endTag: -1, parent: keptParent))
                    continue
                }
                if tag == ElementPolicy.a {
                    if anchorDepth > 0 { unstable = true }
                    anchorDepth += 1
                }
                if let parents = ElementPolicy.tableParents[tag], !parents.contains(keptParent) { unstable = true }
                writer.startTag(ElementPolicy.names[tag])
                writeAttributes(element.attributes, tag: tag)
                let void = ElementPolicy.isVoid[tag]
                writer.endStartTag(void: void, pre: tag == ElementPolicy.pre)
                // The parser never gives a void element children.
                if void { continue }
                keptDepth += 1
                stack.append(Frame(children: element.children, next: 0, endTag: tag, parent: keptParent))
                keptParent = tag
            default:
                continue  // comments, and `template` (GUMBO_NODE_TEMPLATE) with its content
            }
        }
    }

    private mutating func writeAttributes(_ attributes: GumboVector, tag: Int) {
        for index in 0..<Int(attributes.length) {
            guard let raw = attributes.data[index] else { continue }
            let attribute = raw.assumingMemoryBound(to: GumboAttribute.self).pointee
            guard attribute.attr_namespace == GUMBO_ATTR_NAMESPACE_NONE, let namePointer = attribute.name,
                let valuePointer = attribute.value
            else { continue }
            let name = UnsafeRawBufferPointer(start: namePointer, count: strlen(namePointer)).bindMemory(to: UInt8.self)
            guard let kind = AttributePolicy.rule(for: name, element: tag) else { continue }
            if decorate, tag == ElementPolicy.a, name.elementsEqual("rel".utf8) { continue }
            let value = UnsafeRawBufferPointer(start: valuePointer, count: strlen(valuePointer)).bindMemory(to: UInt8.self)
            let checked: [UInt8]?
            switch kind {
            case .plain:
                writer.attribute(name, value)
                continue
            case .url: checked = URLPolicy.check(value, image: false, base: base)
            case .imageURL: checked = URLPolicy.check(value, image: true, base: base)
            case .sourceSet: checked = SourceSetPolicy.check(value, base: base)
            case .style: checked = StylePolicy.check(value)
            }
            guard let checked else { continue }
            checked.withUnsafeBufferPointer { writer.attribute(name, $0) }
        }
        if tag == ElementPolicy.video || tag == ElementPolicy.audio { writer.attribute("controls", []) }
        if decorate, tag == ElementPolicy.a { writer.attribute("rel", Self.linkRel) }
        if decorate, tag == ElementPolicy.img { writer.attribute("loading", Self.lazy) }
    }

    /// Foster parenting and the adoption agency's moves and clones.
    private static let movedByParser =
        GUMBO_INSERTION_FOSTER_PARENTED.rawValue | GUMBO_INSERTION_ADOPTION_AGENCY_CLONED.rawValue
        | GUMBO_INSERTION_ADOPTION_AGENCY_MOVED.rawValue

    private static let linkRel = Array("nofollow noopener noreferrer".utf8)
    private static let lazy = Array("lazy".utf8)

    private static func hasElementChild(_ children: GumboVector) -> Bool {
        for index in 0..<Int(children.length) {
            guard let raw = children.data[index] else { continue }
            let type = raw.assumingMemoryBound(to: GumboNode.self).pointee.type
            if type == GUMBO_NODE_ELEMENT || type == GUMBO_NODE_TEMPLATE { return true }
        }
        return false
    }

    /// Whether an unknown element is `picture` (its name from the source text).
    private static func isPicture(_ element: GumboElement) -> Bool {
        var piece = element.original_tag
        guard piece.length > 0 else { return false }
        gumbo_tag_from_original_text(&piece)
        guard piece.length == 7, let data = piece.data else { return false }
        return UnsafeRawBufferPointer(start: data, count: 7).elementsEqual(ElementPolicy.picture) {
            ($0 | 0x20) == $1
        }
    }
}
