import FeedModel

/// Reads the date strings real feeds contain into UTC instants.
///
/// Two scanners over the UTF-8 bytes, no `DateFormatter`, no allocation for
/// the common forms: a strict ISO 8601 / RFC 3339 / W3C-DTF scanner first,
/// then a word-and-number scanner for RFC 822 and its deviations, asctime,
/// the Korean forms, and month and day names in the languages of
/// `DateLanguage.all`. A string neither accepts, or a field out of range,
/// gives nil: never "now".
public enum DateParser {
    public static func parse(_ text: String) -> Timestamp? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        var start = 0
        var end = bytes.count
        while start < end, isSpace(bytes[start]) { start += 1 }
        while end > start, isSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        let trimmed = UnsafeBufferPointer(rebasing: bytes[start..<end])
        var iso = ISODateScanner(trimmed)
        if let instant = iso.scan() { return instant }
        if let instant = RFC822FastPath.scan(trimmed) { return instant }
        var words = WordDateScanner(trimmed)
        if let instant = words.scan() { return instant }
        if let (rest, offset) = etcZone(trimmed) {
            return parse(bytes: rest).map { Timestamp(secondsSince1970: $0.secondsSince1970 - Int64(offset)) }
        }
        // RFC 2822's trailing comment (`... -0000 (UTC)`, `... +0200 (CEST)`): the zone before it counts.
        guard trimmed.last == UInt8(ascii: ")"), let open = trimmed.lastIndex(of: UInt8(ascii: "(")), open > 0 else {
            return nil
        }
        return parse(bytes: UnsafeBufferPointer(rebasing: trimmed[..<open]))
    }

    /// A trailing zone of the IANA database's `Etc` area (`... 18:28:00 Etc/GMT`, `Etc/UTC`,
    /// `Etc/GMT-2`, whose POSIX sign means two hours east of UTC): the text before it, and
    /// the zone's offset east of UTC in seconds.
    static func etcZone(_ text: UnsafeBufferPointer<UInt8>) -> (UnsafeBufferPointer<UInt8>, Int)? {
        guard let slash = text.lastIndex(of: UInt8(ascii: "/")), slash >= 4, isSpace(text[slash - 4]) else {
            return nil
        }
        let area = String(decoding: UnsafeBufferPointer(rebasing: text[(slash - 3)..<slash]), as: UTF8.self)
        let name = String(decoding: UnsafeBufferPointer(rebasing: text[(slash + 1)...]), as: UTF8.self).lowercased()
        guard area.lowercased() == "etc" else { return nil }
        let offset: Int
        if ["gmt", "utc", "uct", "ut", "zulu", "universal", "greenwich", "gmt0", "gmt+0", "gmt-0"].contains(name) {
            offset = 0
        } else if name.hasPrefix("gmt"), let sign = name.dropFirst(3).first, sign == "+" || sign == "-",
            let hours = Int(name.dropFirst(4)), (0...14).contains(hours)
        {
            offset = (sign == "+" ? -1 : 1) * hours * 3600
        } else {
            return nil
        }
        return (UnsafeBufferPointer(rebasing: text[..<(slash - 4)]), offset)
    }

    static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }

    static func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    /// RFC 2822's reading of a two-digit year: 00-49 are 2000-2049, 50-99 are 1950-1999.
    static func fullYear(_ value: Int, digits: Int) -> Int {
        guard digits <= 2 else { return value }
        return value < 50 ? 2000 + value : 1900 + value
    }
}
