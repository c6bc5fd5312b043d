/// Character references decoded in text: `&#233;`, `&#xE9;`, XML's five
/// predefined names and, with `html`, the HTML 4 names
/// (`htmlNamedEntities`). A reference that is unknown or malformed (no
/// `;` within 12 characters) stays as written.
public enum CharacterReferences {
    private static let predefined: [Substring: Unicode.Scalar] = [
        "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
    ]

    public static func decode(_ text: String, html: Bool) -> String {
        guard text.contains("&") else { return text }
        var out = ""
        var rest = Substring(text)
        while let ampersand = rest.firstIndex(of: "&") {
            out += rest[..<ampersand]
            let after = rest[rest.index(after: ampersand)...]
            if let semicolon = after.prefix(12).firstIndex(of: ";"),
                let scalar = scalar(named: after[..<semicolon], html: html)
            {
                out.unicodeScalars.append(scalar)
                rest = after[after.index(after: semicolon)...]
                continue
            }
            out += "&"
            rest = after
        }
        return out + rest
    }

    private static func scalar(named name: Substring, html: Bool) -> Unicode.Scalar? {
        if name.hasPrefix("#x") || name.hasPrefix("#X") {
            return UInt32(name.dropFirst(2), radix: 16).flatMap(Unicode.Scalar.init)
        }
        if name.hasPrefix("#") { return UInt32(name.dropFirst(), radix: 10).flatMap(Unicode.Scalar.init) }
        if let scalar = predefined[name] { return scalar }
        guard html else { return nil }
        return htmlNamedEntities[String(name)].flatMap(Unicode.Scalar.init)
    }
}
