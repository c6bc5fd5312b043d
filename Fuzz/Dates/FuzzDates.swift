import FeedModel
import FeedParse

/// Dates: any bytes a feed's date element may hold.
/// - The parser never traps, whatever the bytes.
/// - An instant it reads is one the writers can write: it reads back the
///   same from the RFC 3339 form (Atom, JSON Feed) and the RFC 822 form (RSS).
/// - The String entry point and the bytes entry point agree.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDates(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let instant = DateParser.parse(bytes: bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    if text.utf8.elementsEqual(bytes), DateParser.parse(text) != instant {
        fatalError("parse(String) and parse(bytes:) differ on \(text.debugDescription)")
    }
    guard let instant else { return 0 }
    for written in [instant.rfc3339, instant.rfc822] where DateParser.parse(written) != instant {
        fatalError("\(text.debugDescription) read as \(instant.secondsSince1970), written \(written), read back differently")
    }
    return 0
}
