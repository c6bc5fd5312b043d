import Foundation

/// Planet 2.0's `encoding` for a template's output: `utf-8` (the
/// default), `xml`, `html` or `sgml` (ASCII, every other character a
/// character reference), or a character set whose missing characters
/// become `?` (Python's `encode(encoding, "replace")`).
public enum PageEncoding {
    /// The character sets an `encoding` may name, by their Python names.
    private static let sets: [String: String.Encoding] = [
        "ascii": .ascii, "us-ascii": .ascii, "latin-1": .isoLatin1, "latin1": .isoLatin1,
        "iso-8859-1": .isoLatin1, "iso8859-1": .isoLatin1, "iso-8859-2": .isoLatin2, "latin2": .isoLatin2,
        "cp1252": .windowsCP1252, "windows-1252": .windowsCP1252, "cp1250": .windowsCP1250,
        "windows-1250": .windowsCP1250, "cp1251": .windowsCP1251, "windows-1251": .windowsCP1251,
        "utf-16": .utf16, "shift_jis": .shiftJIS, "euc-jp": .japaneseEUC, "iso-2022-jp": .iso2022JP,
    ]

    /// Whether `name` is one this writes (UTF-8 included).
    public static func isKnown(_ name: String) -> Bool {
        let name = name.lowercased()
        return ["utf-8", "utf8", "xml", "html", "sgml"].contains(name) || sets[name] != nil
    }

    /// `utf8` (a rendered page) in the encoding `name`; nil for UTF-8 itself or a name not known.
    public static func encode(_ utf8: UnsafeBufferPointer<UInt8>, as name: String) -> [UInt8]? {
        let name = name.lowercased()
        if ["xml", "html", "sgml"].contains(name) {
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count)
            for scalar in String(decoding: utf8, as: UTF8.self).unicodeScalars {
                if scalar.isASCII {
                    out.append(UInt8(scalar.value))
                } else {
                    out.append(contentsOf: Array("&#\(scalar.value);".utf8))
                }
            }
            return out
        }
        guard let set = sets[name] else { return nil }
        let text = String(decoding: utf8, as: UTF8.self)
        if let whole = text.data(using: set) { return Array(whole) }
        // Python's "replace": each code point the set cannot hold becomes "?".
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count)
        for scalar in text.unicodeScalars {
            if let bytes = String(scalar).data(using: set) {
                out.append(contentsOf: bytes)
            } else {
                out.append(UInt8(ascii: "?"))
            }
        }
        return out
    }
}
