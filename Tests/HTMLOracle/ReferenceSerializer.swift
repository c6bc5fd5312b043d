/// The WHATWG HTML fragment serialization of a re-parsed tree, written
/// independently of the sanitizer's serializer: the oracle for "the output is
/// exactly what a browser's reading of it serializes to".
public enum ReferenceSerializer {
    static let void: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr",
    ]

    public static func serialize(_ children: [ParsedOutput.Child], parent: String = "div") -> String {
        var out = ""
        for (index, child) in children.enumerated() {
            switch child {
            case .text(let text):
                let lead = index == 0 && parent == "pre" && text.hasPrefix("\n") ? "\n" : ""
                out += lead + escape(text, attribute: false)
            case .other: continue
            case .element(let node):
                out += "<\(node.name)"
                for attribute in node.attributes { out += " \(attribute.name)=\"\(escape(attribute.value, attribute: true))\"" }
                out += ">"
                if void.contains(node.name) { continue }
                out += serialize(node.children, parent: node.name) + "</\(node.name)>"
            }
        }
        return out
    }

    static func escape(_ text: String, attribute: Bool) -> String {
        var out = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "\u{A0}": out += "&nbsp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where attribute: out += "&quot;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }
}
