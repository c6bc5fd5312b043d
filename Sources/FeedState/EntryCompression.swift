internal import CZstd
import FeedModel

/// An entry as the SQLite store keeps it: `EntryCodec`'s bytes in one zstd
/// frame, behind the marker byte `compressed`. A state is mostly entry text
/// (HTML), which zstd halves at its fastest level, one entry at a time so
/// that any entry is read alone. An entry too small to gain is kept as the
/// codec's bytes, which begin with the codec's version byte, never the marker;
/// so are the entries of a state written before schema 4 until its migration
/// compresses them.
enum EntryCompression {
    static let compressed: UInt8 = 0xF0
    /// zstd's first fast level: on the benchmark corpus's entries it stores 55%
    /// of their bytes at 150 MB/s, where level 1 stores 48% at 80 MB/s. Compressing
    /// is most of what storing an entry costs, and it shares the cores with parsing.
    static let level: Int32 = -1
    /// Smaller encodings are stored as they are.
    static let smallest = 96
    /// A frame that says it holds more than this is damaged (no entry is that large:
    /// feed bodies stop at the fetch cap).
    static let largest = 256 << 20

    /// The stored form of one entry.
    static func stored(_ entry: Entry, with compressor: Compressor) -> [UInt8] {
        let plain = EntryCodec.encode(entry)
        guard plain.count >= smallest, let frame = compressor.compress(plain) else { return plain }
        return frame
    }

    /// - Returns: nil when the bytes are not a stored entry (damaged).
    static func entry(_ stored: [UInt8], with decompressor: Decompressor) -> Entry? {
        guard stored.first == compressed else { return EntryCodec.decode(stored) }
        return decompressor.decompress(stored).flatMap(EntryCodec.decode)
    }

    /// Whether a stored form is still the uncompressed one (schema 3's).
    static func isPlain(_ stored: [UInt8]) -> Bool { stored.first != compressed }

    /// One zstd compression context, reused for many entries (creating one
    /// costs more than compressing a small entry). Not shared between threads.
    final class Compressor {
        private let context: OpaquePointer

        /// Frames carry a checksum of their content (4 bytes): a damaged row is then
        /// an unreadable entry, never a different one (a flipped byte in a literal
        /// would still decode).
        init() {
            context = ZSTD_createCCtx()
            ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, level)
            ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        }

        deinit { ZSTD_freeCCtx(context) }

        /// The marker and a zstd frame; nil when it would not be smaller.
        func compress(_ bytes: [UInt8]) -> [UInt8]? {
            let bound = ZSTD_compressBound(bytes.count)
            var out = [UInt8](repeating: 0, count: 1 + bound)
            let written = out.withUnsafeMutableBytes { target in
                bytes.withUnsafeBytes { source in
                    ZSTD_compress2(context, target.baseAddress! + 1, bound, source.baseAddress, source.count)
                }
            }
            guard ZSTD_isError(written) == 0, written + 1 < bytes.count else { return nil }
            out[0] = compressed
            out.removeLast(out.count - 1 - written)
            return out
        }
    }

    /// One zstd decompression context, reused for every entry a store reads.
    final class Decompressor {
        private let context: OpaquePointer

        init() { context = ZSTD_createDCtx() }

        deinit { ZSTD_freeDCtx(context) }

        /// The bytes a stored form (marker and frame) holds; nil when damaged.
        func decompress(_ stored: [UInt8]) -> [UInt8]? {
            stored.withUnsafeBytes { raw -> [UInt8]? in
                let frame = UnsafeRawBufferPointer(rebasing: raw[1...])
                let size = ZSTD_getFrameContentSize(frame.baseAddress, frame.count)
                // Also ZSTD_CONTENTSIZE_UNKNOWN and _ERROR, the two largest values: this
                // compressor always records the size.
                guard size <= UInt64(largest) else { return nil }
                var out = [UInt8](repeating: 0, count: Int(size))
                let written = out.withUnsafeMutableBytes { target in
                    ZSTD_decompressDCtx(context, target.baseAddress, target.count, frame.baseAddress, frame.count)
                }
                guard ZSTD_isError(written) == 0, written == Int(size) else { return nil }
                return out
            }
        }
    }
}

/// A fetched feed's entries made ready for a store that keeps entries:
/// their keys (`EntryKey`) and their stored forms. Made where the feed was
/// parsed (a task-group child, beside the other feeds' parsing), so that
/// the store's one writer only writes.
public struct PreparedEntries: Sendable {
    public let keys: [String]
    /// One stored form per entry, in feed order (`EntryCompression`).
    let stored: [[UInt8]]

    public init(_ entries: [Entry]) {
        keys = EntryKey.keys(of: entries)
        let compressor = EntryCompression.Compressor()
        stored = entries.map { EntryCompression.stored($0, with: compressor) }
    }

    private init(keys: [String], stored: [[UInt8]]) {
        self.keys = keys
        self.stored = stored
    }

    /// For a store that keeps no entries (`--no-state`): nothing prepared.
    public static let notKept = PreparedEntries(keys: [], stored: [])
}
