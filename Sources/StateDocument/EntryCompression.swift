internal import CLZ4
import FeedModel
import FeedState

/// The compressed form the SQLite store keeps: the marker byte
/// `compressed`, the plain length, a checksum of the plain bytes, and the
/// plain bytes as one LZ4 block. A feed's document is compressed whole
/// (`FeedEntries`, version 2); schema 4 compressed each entry alone, and
/// an entry's stored form in such a document is either this form or, too
/// small to gain, the codec's bytes, which begin with the codec's version
/// byte, never the marker.
///
/// LZ4 rather than zstd: on the benchmark corpus's 59,681 entries (50.3 MB,
/// about 840 bytes each) LZ4 stores 61% of the bytes in 0.11-0.14 s, zstd's
/// fastest levels 56% (-1) in 0.34-0.42 s and 61% (-3) in 0.27-0.35 s, and
/// zstd level 1 49% in 0.64 s (each entry compressed alone, schema 4).
/// A feed's whole document at a time, LZ4 keeps 37% of the bytes (20.1 of
/// 54.0 MB on the same corpus).
enum EntryCompression {
    static let compressed: UInt8 = 0xF1
    /// A stored entry that says it holds more than this is damaged (no entry
    /// is that large: feed bodies stop at the fetch cap).
    static let largest = 256 << 20
    /// LZ4's speed-for-size knob: its default, 1. (On the benchmark corpus
    /// 2, 4 and 8 stored 0.3%, 1.8% and 8% more and no run measured faster.)
    static let acceleration: Int32 = 1

    /// An entry's stored form in a version 1 document, or its codec bytes.
    /// - Returns: nil when the bytes are not a stored entry (damaged).
    static func entry(_ stored: ArraySlice<UInt8>) -> Entry? {
        codecBytes(stored).flatMap(EntryCodec.decode)
    }

    /// The codec bytes of an entry's stored form (`entry`); nil when damaged.
    static func codecBytes(_ stored: ArraySlice<UInt8>) -> [UInt8]? {
        stored.first == compressed ? decompress(stored) : Array(stored)
    }

    /// `prefix` (if any), the marker, the plain length (varint), the
    /// checksum (4 bytes), the LZ4 block; nil when it would not be smaller
    /// than the plain bytes, or they are more than LZ4 takes.
    static func compress(_ plain: [UInt8], prefix: UInt8? = nil) -> [UInt8]? {
        guard plain.count <= Int(LZ4_MAX_INPUT_SIZE) else { return nil }
        var header = EntryCodec.Writer()
        if let prefix { header.byte(prefix) }
        header.byte(compressed)
        header.count(plain.count)
        let sum = plain.withUnsafeBytes(checksum)
        for shift in stride(from: 0, to: 32, by: 8) { header.byte(UInt8(truncatingIfNeeded: sum >> shift)) }
        let start = header.bytes.count
        let bound = Int(LZ4_compressBound(Int32(plain.count)))
        // Written by LZ4 straight into the result, which is never filled with zeros first.
        var failed = false
        let out = [UInt8](unsafeUninitializedCapacity: start + bound) { buffer, count in
            _ = buffer.initialize(from: header.bytes)
            let written = plain.withUnsafeBytes { source in
                LZ4_compress_fast(
                    source.baseAddress.map { $0.assumingMemoryBound(to: CChar.self) },
                    UnsafeMutableRawPointer(buffer.baseAddress! + start).assumingMemoryBound(to: CChar.self),
                    Int32(plain.count), Int32(bound), acceleration)
            }
            failed = written <= 0 || start + Int(written) >= plain.count
            count = failed ? 0 : start + Int(written)
        }
        return failed ? nil : out
    }

    /// The plain bytes of a compressed form; nil when damaged (a wrong
    /// length, one over `largest`, a block LZ4 refuses, or a checksum that
    /// does not match).
    static func decompress(_ stored: ArraySlice<UInt8>, largest: Int = EntryCompression.largest) -> [UInt8]? {
        var r = EntryCodec.Reader(bytes: Array(stored.prefix(16)))
        guard r.byte() == compressed else { return nil }
        let length = Int(r.varint())
        var sum: UInt32 = 0
        for shift in stride(from: 0, to: 32, by: 8) { sum |= UInt32(r.byte()) << UInt32(shift) }
        guard !r.failed, length <= largest, length <= Int(LZ4_MAX_INPUT_SIZE) else { return nil }
        let start = stored.startIndex + r.index
        // Written by LZ4 straight into the result, which is never filled with zeros first.
        var written: Int32 = 0
        let out = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
            written = stored[start...].withUnsafeBytes { source in
                LZ4_decompress_safe(
                    source.baseAddress?.assumingMemoryBound(to: CChar.self),
                    UnsafeMutableRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self),
                    Int32(source.count), Int32(length))
            }
            count = written == length ? length : 0
        }
        guard written == length, out.withUnsafeBytes(checksum) == sum else { return nil }
        return out
    }

    /// A checksum of the plain bytes, eight at a time (a multiply-xorshift
    /// mix): to tell a damaged row from an entry, not against an adversary.
    static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var hash: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(bytes.count)
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* 0xFF51_AFD7_ED55_8CCD
            hash ^= hash >> 32
        }
        var offset = 0
        while offset + 8 <= bytes.count {
            mix(bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        var tail: UInt64 = 0
        for index in offset..<bytes.count { tail = tail << 8 | UInt64(bytes[index]) }
        mix(tail)
        return UInt32(truncatingIfNeeded: hash)
    }
}
