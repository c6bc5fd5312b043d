public import CGumbo
import Basics
import Glibc
import HTMLSanitizer

/// Re-parses sanitized output with gumbo (the same fragment context as the
/// sanitizer) and checks it the way a browser would see it: what elements,
/// attributes and URLs it holds, and a canonical dump of the tree.
public struct ParsedOutput {
    public struct Node {
        public var name: String
        public var namespace: GumboNamespaceEnum
        public var attributes: [(name: String, value: String, namespace: GumboAttributeNamespaceEnum)]
        public var children: [Child]
    }

    public enum Child {
        case element(Node)
        case text(String)
        case other(String)
    }

    public var root: Node

    public init(parsing html: String) {
        var options = kGumboDefaultOptions
        options.fragment_context = GUMBO_TAG_DIV
        options.fragment_namespace = GUMBO_NAMESPACE_HTML
        let output = html.withCString { gumbo_parse_with_options(&options, $0, strlen($0)) }!
        defer { gumbo_destroy_output(&options, output) }
        root = Self.convert(output.pointee.root)
    }

    private static func convert(_ node: UnsafeMutablePointer<GumboNode>) -> Node {
        let element = node.pointee.v.element
        var name = String(cString: gumbo_normalized_tagname(element.tag))
        if element.tag == GUMBO_TAG_UNKNOWN {
            var piece = element.original_tag
            gumbo_tag_from_original_text(&piece)
            name = String(decoding: UnsafeRawBufferPointer(start: piece.data, count: piece.length), as: UTF8.self)
                .lowercased()
        }
        if node.pointee.type == GUMBO_NODE_TEMPLATE { name = "template" }
        var attributes: [(String, String, GumboAttributeNamespaceEnum)] = []
        for index in 0..<Int(element.attributes.length) {
            let attribute = element.attributes.data[index]!.assumingMemoryBound(to: GumboAttribute.self).pointee
            attributes.append((String(cString: attribute.name), String(cString: attribute.value), attribute.attr_namespace))
        }
        var children: [Child] = []
        for index in 0..<Int(element.children.length) {
            let child = element.children.data[index]!.assumingMemoryBound(to: GumboNode.self)
            switch child.pointee.type {
            case GUMBO_NODE_ELEMENT, GUMBO_NODE_TEMPLATE: children.append(.element(convert(child)))
            case GUMBO_NODE_TEXT, GUMBO_NODE_WHITESPACE, GUMBO_NODE_CDATA:
                let text = String(cString: child.pointee.v.text.text)
                if case .text(let previous) = children.last {
                    children[children.count - 1] = .text(previous + text)
                } else {
                    children.append(.text(text))
                }
            default: children.append(.other("comment"))
            }
        }
        return Node(name: name, namespace: element.tag_namespace, attributes: attributes, children: children)
    }

    /// A canonical dump: one line per node, indented, attributes sorted.
    public var dump: String {
        var lines: [String] = []
        func visit(_ node: Node, _ depth: Int) {
            let pad = String(repeating: " ", count: depth)
            let attributes = node.attributes.map { "\($0.name)=\"\($0.value)\"" }.sorted().joined(separator: " ")
            lines.append("\(pad)<\(node.name)#\(node.namespace.rawValue) \(attributes)>")
            for child in node.children {
                switch child {
                case .element(let element): visit(element, depth + 1)
                case .text(let text): lines.append("\(pad) \"\(text)\"")
                case .other(let what): lines.append("\(pad) [\(what)]")
                }
            }
        }
        visit(root, 0)
        return lines.joined(separator: "\n")
    }

    /// Every problem a browser-side reader of the output would care about.
    public var violations: [String] {
        var found: [String] = []
        var stack = root.children
        while let child = stack.popLast() {
            switch child {
            case .text: continue
            case .other(let what): found.append("a \(what) node")
            case .element(let node):
                if node.namespace != GUMBO_NAMESPACE_HTML { found.append("foreign element \(node.name)") }
                if !Self.allowedElements.contains(node.name) { found.append("element \(node.name)") }
                for attribute in node.attributes { found += Self.check(attribute, on: node.name) }
                stack += node.children
            }
        }
        return found
    }

    static let allowedElements: Set<String> = [
        "a", "abbr", "acronym", "address", "article", "aside", "audio", "b", "bdi", "bdo", "big", "blockquote",
        "br", "caption", "center", "cite", "code", "col", "colgroup", "data", "dd", "del", "details", "dfn", "dir",
        "div", "dl", "dt", "em", "fieldset", "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5",
        "h6", "header", "hgroup", "hr", "i", "img", "ins", "kbd", "legend", "li", "main", "mark", "menu", "meter",
        "nav", "ol", "p", "picture", "pre", "progress", "q", "rb", "rp", "rt", "rtc", "ruby", "s", "samp", "section",
        "small", "source", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot",
        "th", "thead", "time", "tr", "track", "tt", "u", "ul", "var", "video", "wbr",
    ]

    static let urlAttributes: Set<String> = [
        "href", "src", "poster", "cite", "longdesc", "icon", "action", "formaction", "background", "dynsrc",
        "lowsrc", "data", "codebase", "xlink:href", "ping", "manifest", "archive", "usemap",
    ]

    static func check(_ attribute: (name: String, value: String, namespace: GumboAttributeNamespaceEnum), on element: String)
        -> [String]
    {
        let name = attribute.name
        if name.hasPrefix("on") { return ["event handler \(name) on \(element)"] }
        if attribute.namespace != GUMBO_ATTR_NAMESPACE_NONE { return ["namespaced attribute \(name)"] }
        if ["class", "id", "name", "target", "formaction", "action", "autoplay", "tabindex"].contains(name) {
            return ["attribute \(name) on \(element)"]
        }
        if urlAttributes.contains(name) { return checkURL(attribute.value, image: element == "img" || element == "source", name) }
        if name == "srcset" {
            return sourceSetURLs(attribute.value).flatMap { checkURL($0, image: true, name) }
        }
        if name == "style" {
            let lower = attribute.value.lowercased()
            for bad in ["url(", "expression", "@import", "\\", "/*"] where lower.contains(bad) {
                return ["style with \(bad)"]
            }
            // These act as properties only: `-moz-binding` inside a value (`color: #000-moz-binding000`,
            // an invalid colour a browser ignores: the fuzzer's find) binds nothing.
            let properties = lower.split(separator: ";").map { $0.split(separator: ":").first.map(String.init) ?? "" }
            for property in properties {
                let trimmed = property.trimmingWhitespace
                if ["position", "behavior", "-moz-binding"].contains(trimmed) { return ["style with \(trimmed)"] }
            }
        }
        return []
    }

    /// The URLs a browser reads from a `srcset` (HTML's "parse a srcset attribute"): a URL is a
    /// run of non-space characters, commas inside it included (trailing ones end the candidate);
    /// its descriptors run to the next comma outside parentheses. (Splitting at every comma
    /// read `w,s:` as two URLs, one with the scheme `s`: the fuzzer's find, in this oracle.)
    public static func sourceSetURLs(_ value: String) -> [String] {
        let scalars = Array(value.unicodeScalars)
        func isSpace(_ c: Unicode.Scalar) -> Bool { c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0C}" }
        var urls: [String] = []
        var index = 0
        while index < scalars.count {
            while index < scalars.count, isSpace(scalars[index]) || scalars[index] == "," { index += 1 }
            guard index < scalars.count else { break }
            let start = index
            while index < scalars.count, !isSpace(scalars[index]) { index += 1 }
            var url = scalars[start..<index]
            if url.last == "," {
                while url.last == "," { url = url.dropLast() }
                urls.append(String(String.UnicodeScalarView(url)))
                continue
            }
            urls.append(String(String.UnicodeScalarView(url)))
            var inParentheses = false
            while index < scalars.count {
                let c = scalars[index]
                index += 1
                if c == "(" { inParentheses = true } else if c == ")" { inParentheses = false } else if c == ",", !inParentheses { break }
            }
        }
        return urls
    }

    /// The browser's reading of a URL: C0 and spaces trimmed, tab/CR/LF removed, scheme lowercased.
    static func checkURL(_ value: String, image: Bool, _ name: String) -> [String] {
        var scalars = Array(value.unicodeScalars)
        while let first = scalars.first, first.value <= 0x20 { scalars.removeFirst() }
        while let last = scalars.last, last.value <= 0x20 { scalars.removeLast() }
        scalars.removeAll { $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let url = String(String.UnicodeScalarView(scalars))
        guard let colon = url.firstIndex(of: ":") else { return [] }
        let scheme = url[..<colon]
        guard let first = scheme.unicodeScalars.first, first.properties.isASCIIHexDigit || first.isASCII,
            scheme.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || "0123456789+-.".unicodeScalars.contains($0)) }),
            first.properties.isAlphabetic
        else { return [] }  // not a scheme: a relative reference
        switch scheme.lowercased() {
        case "http", "https", "mailto": return []
        case "data" where image:
            let lower = url.lowercased()
            let ok = ["png", "gif", "jpeg", "webp"].contains { lower.hasPrefix("data:image/\($0);base64,") }
            return ok ? [] : ["\(name) data URL \(url)"]
        default: return ["\(name) with scheme \(scheme)"]
        }
    }
}
