import FeedFetch
import FeedParse
import Foundation
import TextOutput
import XMLTree

/// `--update-opml`: writes permanent redirects back into the OPML files the
/// subscriptions came from. Only the bytes of the moved `xmlUrl` values
/// change: the file is never decoded as a whole, so its encoding, comments,
/// layout and other outlines stay byte for byte as they were, and it is
/// replaced atomically.
public enum OPMLRewriter {
    /// What `apply` did: outlines updated per file, and the files it could not update.
    public struct Result: Sendable {
        public var updated: [String: Int] = [:]
        public var failures: [String] = []
    }

    /// Points each subscription's outline at the URL it moved to, in the
    /// local OPML file that listed it.
    public static func apply(_ moved: [(subscription: Subscription, movedTo: String)]) -> Result {
        var moves: [String: [String: String]] = [:]
        for (subscription, target) in moved {
            guard let file = subscription.opmlFile, target != subscription.url else { continue }
            moves[file, default: [:]][subscription.url] = target
        }
        var result = Result()
        for (file, pairs) in moves.sorted(by: { $0.key < $1.key }) {
            let bytes: [UInt8]
            do {
                bytes = try LocalFile.contents(of: file)
            } catch {
                result.failures.append("\(file): \(error.description)")
                continue
            }
            let rewritten = rewrite(bytes, moves: pairs)
            // A move not made (a value in an encoding the rewriter cannot decode, or a rewrite the
            // reader would read otherwise) is said, never skipped in silence: the fuzzer's finds.
            for (url, target) in pairs.sorted(by: { $0.key < $1.key }) where !rewritten.applied.contains(url) {
                result.failures.append(
                    "\(file): the outline of \(url) (moved to \(target)) was not rewritten: not found as the"
                        + " reader reads the list, or the list would not read back with only the moves made")
            }
            guard rewritten.count > 0 else { continue }
            do {
                try AtomicFile.write(bytes: rewritten.bytes, to: file)
                result.updated[file] = rewritten.count
            } catch {
                result.failures.append(error.description)
            }
        }
        return result
    }

    /// `bytes` with each outline's `xmlUrl` whose value, read as
    /// `OPMLReader` reads it (references decoded, white space trimmed), is a
    /// key of `moves`, or the same feed spelled otherwise (`LinkNormalizer`),
    /// set to that key's value: written in the file's encoding (a character
    /// it cannot hold as a character reference) and escaped as an attribute
    /// value.
    ///
    /// The result is then read as the merge reads the list, and kept only
    /// when it lists the same feeds in the same order with the same titles,
    /// each moved one at its new URL: the scanner finds values in the bytes
    /// without parsing, and the fuzzer found well-formed lists it reads
    /// otherwise than libxml2 (an `xmlUrl` the reader never sees rewritten,
    /// the outline it reads left alone). Then nothing is rewritten, and
    /// `apply` reports every move of the file.
    /// - Returns: the bytes, how many values were replaced, and the keys of `moves` that were.
    static func rewrite(_ bytes: [UInt8], moves: [String: String]) -> (bytes: [UInt8], count: Int, applied: Set<String>)
    {
        let result = replaced(bytes, moves: moves)
        guard result.count > 0 else { return result }
        guard readsAsMoved(original: bytes, rewritten: result.bytes, moves: moves, applied: result.applied) else {
            return (bytes, 0, [])
        }
        return result
    }

    /// Whether the rewritten list reads as the original with the `applied` moves made: the same
    /// feeds in the same order, titles and home pages, each moved one at its new URL (a feed moved
    /// to one the list already has is then listed once, as the reader keeps the first).
    static func readsAsMoved(original: [UInt8], rewritten: [UInt8], moves: [String: String], applied: Set<String>)
        -> Bool
    {
        var before = SubscriptionList()
        var after = SubscriptionList()
        do {
            try OPMLReader.read(original, source: "the list", into: &before, localFile: nil, namesLocalFiles: true)
            try OPMLReader.read(
                rewritten, source: "the list rewritten", into: &after, localFile: nil, namesLocalFiles: true)
        } catch {
            return false
        }
        var expected = SubscriptionList()
        for var subscription in before.subscriptions {
            if applied.contains(subscription.url), let target = moves[subscription.url] { subscription.url = target }
            expected.add(subscription)
        }
        return expected.subscriptions.elementsEqual(after.subscriptions) {
            $0.url == $1.url && $0.title == $1.title && $0.htmlURL == $1.htmlURL
        }
    }

    private static func replaced(_ bytes: [UInt8], moves: [String: String]) -> (
        bytes: [UInt8], count: Int, applied: Set<String>
    ) {
        switch OPMLEncoding(of: bytes) {
        case .utf8:
            let result = rewrite(
                bytes, moves: moves, decode: { String(decoding: $0, as: UTF8.self) },
                encode: { Array(String($0).utf8) })
            return (result.units, result.count, result.applied)
        case .singleByte(let encoding, let limit):
            let result = rewrite(
                bytes, moves: moves,
                decode: { String(bytes: $0, encoding: encoding) ?? String(decoding: $0, as: Unicode.ASCII.self) },
                encode: { $0.value < limit ? [UInt8($0.value)] : nil })
            return (result.units, result.count, result.applied)
        case .utf16(let bigEndian):
            var units: [UInt16] = []
            units.reserveCapacity(bytes.count / 2)
            for k in stride(from: 0, to: bytes.count - 1, by: 2) {
                let (high, low) = bigEndian ? (bytes[k], bytes[k + 1]) : (bytes[k + 1], bytes[k])
                units.append(UInt16(high) << 8 | UInt16(low))
            }
            let result = rewrite(
                units, moves: moves, decode: { String(decoding: $0, as: UTF16.self) },
                encode: { Array(String($0).utf16) })
            var out: [UInt8] = []
            out.reserveCapacity(result.units.count * 2 + 1)
            for unit in result.units {
                let (high, low) = (UInt8(unit >> 8), UInt8(unit & 0xFF))
                out += bigEndian ? [high, low] : [low, high]
            }
            if bytes.count % 2 == 1 { out.append(bytes[bytes.count - 1]) }
            return (out, result.count, result.applied)
        }
    }

    /// The replacement over code units (bytes, or UTF-16 units).
    /// - Parameters:
    ///   - decode: an attribute value's units as text.
    ///   - encode: one character as units, nil when the encoding cannot hold it.
    private static func rewrite<Unit: FixedWidthInteger & UnsignedInteger>(
        _ units: [Unit], moves: [String: String], decode: ([Unit]) -> String, encode: (Unicode.Scalar) -> [Unit]?
    ) -> (units: [Unit], count: Int, applied: Set<String>) {
        var out: [Unit] = []
        var copied = 0
        var count = 0
        var applied: Set<String> = []
        // The same feed spelled otherwise is the same subscription to the reader (listed once).
        var keys: [String: String] = [:]
        for key in moves.keys { keys[LinkNormalizer.normalize(key)] = key }
        for value in OPMLMarkupScanner(units).xmlURLValues() {
            let url = normalized(decode(Array(units[value])))
            guard let key = moves[url] != nil ? url : keys[LinkNormalizer.normalize(url)], let target = moves[key]
            else { continue }
            applied.insert(key)
            if out.isEmpty { out.reserveCapacity(units.count + 64) }
            out += units[copied..<value.lowerBound]
            for scalar in escaped(target).unicodeScalars {
                out += encode(scalar) ?? characterReference(scalar).map { Unit($0.value) }
            }
            copied = value.upperBound
            count += 1
        }
        guard count > 0 else { return (units, 0, []) }
        out += units[copied...]
        return (out, count, applied)
    }

    /// An attribute value as an XML parser reports it (white space
    /// characters as spaces, then references decoded), trimmed as
    /// `OPMLReader` trims it.
    static func normalized(_ raw: String) -> String {
        let spaced = String(raw.map { $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 })
        let text = CharacterReferences.decode(spaced, html: false)
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        return String(text.drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }

    /// `&#xHEX;`, for a character the file's encoding cannot hold.
    private static func characterReference(_ scalar: Unicode.Scalar) -> String.UnicodeScalarView {
        "&#x\(String(scalar.value, radix: 16, uppercase: true));".unicodeScalars
    }

    /// Escaped for either quote character, and so that no white space is normalized away.
    private static func escaped(_ url: String) -> String {
        var text = ""
        for scalar in url.unicodeScalars {
            switch scalar {
            case "&": text += "&amp;"
            case "<": text += "&lt;"
            case ">": text += "&gt;"
            case "\"": text += "&quot;"
            case "'": text += "&apos;"
            case "\t", "\n", "\r": text += "&#\(scalar.value);"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }
}

/// The encoding of an OPML file, as far as finding and writing an
/// attribute value needs it: BOM, then the first characters, then the XML
/// declaration (XML 1.0, appendix F).
enum OPMLEncoding: Equatable {
    case utf8
    case utf16(bigEndian: Bool)
    /// An ASCII-compatible encoding; characters below `limit` are one byte of the same value.
    case singleByte(String.Encoding, limit: UInt32)

    init(of bytes: [UInt8]) {
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0x00, 0x3C, 0x00]) {
            self = .utf16(bigEndian: true)
        } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0x3C, 0x00, 0x3F, 0x00]) {
            self = .utf16(bigEndian: false)
        } else {
            self = Self.declared(in: bytes)
        }
    }

    private static func declared(in bytes: [UInt8]) -> OPMLEncoding {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return .utf8 }
        let head = String(decoding: bytes.prefix(200), as: Unicode.ASCII.self)
        guard head.hasPrefix("<?xml"), let end = head.range(of: "?>"),
            let key = head[..<end.lowerBound].range(of: "encoding")
        else { return .utf8 }
        let value = head[key.upperBound..<end.lowerBound].drop { $0 == " " || $0 == "=" || $0 == "\t" }
        guard let quote = value.first, quote == "\"" || quote == "'" else { return .utf8 }
        let name = value.dropFirst().prefix { $0 != quote }.lowercased()
        switch name {
        case "utf-8", "utf8": return .utf8
        case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1":
            return .singleByte(.isoLatin1, limit: 0x100)
        case "us-ascii", "ascii": return .singleByte(.ascii, limit: 0x80)
        case "windows-1252", "cp1252": return .singleByte(.windowsCP1252, limit: 0x80)
        case "iso-8859-2", "latin2": return .singleByte(.isoLatin2, limit: 0x80)
        case "windows-1250", "cp1250": return .singleByte(.windowsCP1250, limit: 0x80)
        case "windows-1251", "cp1251": return .singleByte(.windowsCP1251, limit: 0x80)
        case "shift_jis", "shift-jis", "sjis": return .singleByte(.shiftJIS, limit: 0x80)
        case "euc-jp": return .singleByte(.japaneseEUC, limit: 0x80)
        default: return .singleByte(.ascii, limit: 0x80)
        }
    }
}

/// Finds the values of `xmlUrl` attributes in `outline` start tags, skipping
/// comments, processing instructions, CDATA sections and declarations.
/// Works on any code units whose ASCII characters are themselves.
struct OPMLMarkupScanner<Unit: FixedWidthInteger & UnsignedInteger> {
    private let units: [Unit]
    private var i = 0
    private var inTag = false
    /// The tag is an `outline` start tag: the only element whose `xmlUrl` the reader reads.
    private var inOutline = false

    init(_ units: [Unit]) { self.units = units }

    /// The unit ranges of the values, quotes excluded, in document order.
    func xmlURLValues() -> [Range<Int>] {
        var scanner = self
        var values: [Range<Int>] = []
        while let range = scanner.nextValue() { values.append(range) }
        return values
    }

    private mutating func nextValue() -> Range<Int>? {
        while i < units.count {
            if inTag {
                if let value = nextValueInTag() { return value }
                continue
            }
            guard units[i] == ascii("<") else {
                i += 1
                continue
            }
            if starts(with: "<!--") {
                skip(past: "-->")
            } else if starts(with: "<![CDATA[") {
                skip(past: "]]>")
            } else if starts(with: "<?") {
                skip(past: "?>")
            } else if starts(with: "<!") {
                skip(past: ">")
            } else {
                i += 1
                let nameStart = i
                while i < units.count, !isSpace(units[i]), units[i] != ascii(">"), units[i] != ascii("/") { i += 1 }
                inTag = true
                inOutline = matches(nameStart..<i, "outline")
            }
        }
        return nil
    }

    /// Reads the attributes of the tag `i` is in, up to the next `xmlUrl`
    /// value or the end of the tag.
    private mutating func nextValueInTag() -> Range<Int>? {
        while i < units.count {
            while i < units.count, isSpace(units[i]) || units[i] == ascii("/") { i += 1 }
            guard i < units.count, units[i] != ascii(">") else {
                i += 1
                inTag = false
                return nil
            }
            let nameStart = i
            while i < units.count, !isSpace(units[i]), units[i] != ascii("="), units[i] != ascii(">") { i += 1 }
            let isXMLURL = matches(nameStart..<i, "xmlUrl") || matches(nameStart..<i, "xmlurl")
            while i < units.count, isSpace(units[i]) { i += 1 }
            guard i < units.count, units[i] == ascii("=") else { continue }
            i += 1
            while i < units.count, isSpace(units[i]) { i += 1 }
            guard i < units.count, units[i] == ascii("\"") || units[i] == ascii("'") else { continue }
            let quote = units[i]
            let valueStart = i + 1
            i = valueStart
            while i < units.count, units[i] != quote { i += 1 }
            guard i < units.count else { return nil }  // unterminated: leave it alone
            i += 1
            if isXMLURL, inOutline { return valueStart..<i - 1 }
        }
        return nil
    }

    private func ascii(_ character: Unicode.Scalar) -> Unit { Unit(character.value) }

    private func isSpace(_ unit: Unit) -> Bool {
        unit == 0x20 || unit == 0x09 || unit == 0x0A || unit == 0x0D
    }

    private func matches(_ range: Range<Int>, _ text: String) -> Bool {
        range.count == text.utf8.count && zip(units[range], text.utf8).allSatisfy { $0 == Unit($1) }
    }

    private func starts(with text: String) -> Bool {
        i + text.utf8.count <= units.count && matches(i..<i + text.utf8.count, text)
    }

    private mutating func skip(past terminator: String) {
        i += 1
        while i < units.count, !starts(with: terminator) { i += 1 }
        i = min(i + terminator.utf8.count, units.count)
    }
}
