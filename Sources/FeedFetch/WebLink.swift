import Basics

/// The `Link` header field (RFC 8288, 3): a comma-separated list of
/// `<URI-Reference>` each with `;`-separated parameters, among them `rel`, a
/// space-separated list of relation types compared without case.
public enum WebLink {
    /// The targets of `field`'s links whose `rel` names `relation`, in the order given, as
    /// written (a relative reference is the caller's to resolve). A malformed link is skipped,
    /// never the ones after it.
    public static func targets(_ field: String, relation: String) -> [String] {
        var found: [String] = []
        var scanner = Substring(field).unicodeScalars[...]
        let wanted = relation.lowercased()
        while let open = scanner.firstIndex(of: "<") {
            scanner = scanner[scanner.index(after: open)...]
            guard let close = scanner.firstIndex(of: ">") else { break }
            let target = String(String.UnicodeScalarView(scanner[..<close]))
            scanner = scanner[scanner.index(after: close)...]
            let parameters = Self.parameters(&scanner)
            let relations = parameters.first { $0.name == "rel" }?.value ?? ""
            if relations.lowercased().split(separator: " ").contains(where: { $0 == wanted }) {
                found.append(target.trimmingWhitespace)
            }
        }
        return found
    }

    /// The parameters after a link's target, up to the comma that ends the link (a comma
    /// inside a quoted string does not); names lowercased, quoted values unescaped. Only the
    /// first of a repeated parameter counts (RFC 8288, 3.3), so the caller reads the first.
    private static func parameters(_ scanner: inout Substring.UnicodeScalarView.SubSequence) -> [(
        name: String, value: String
    )] {
        var parameters: [(name: String, value: String)] = []
        var name = ""
        var value = ""
        var inValue = false
        var quoted = false
        var escaped = false
        func finish() {
            let trimmed = name.trimmingWhitespace.lowercased()
            if !trimmed.isEmpty {
                parameters.append((trimmed, quoted ? value : value.trimmingWhitespace))
            }
            name = ""
            value = ""
            inValue = false
            quoted = false
        }
        while let scalar = scanner.first {
            scanner = scanner.dropFirst()
            if inValue && quoted {
                if escaped {
                    value.unicodeScalars.append(scalar)
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inValue = false  // the value ends; `quoted` stays until the parameter does
                } else {
                    value.unicodeScalars.append(scalar)
                }
                continue
            }
            switch scalar {
            case ",":
                finish()
                return parameters
            case ";":
                finish()
            case "=" where !inValue && !quoted:
                inValue = true
            case "\"" where inValue && value.trimmingWhitespace.isEmpty && !quoted:
                quoted = true
                value = ""
            default:
                if inValue && !quoted {
                    value.unicodeScalars.append(scalar)
                } else if !quoted {
                    name.unicodeScalars.append(scalar)
                }
            }
        }
        finish()
        return parameters
    }
}
