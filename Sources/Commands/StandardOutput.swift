import Glibc

/// Writes to the standard streams by file descriptor (one `write` per call;
/// callers pass whole lines).
enum StandardOutput {
    static func write(_ text: String) { write(text, to: 1) }

    static func write(bytes: [UInt8]) {
        _ = bytes.withUnsafeBufferPointer { write($0, to: 1) }
    }

    static func error(_ text: String) { write(text + "\n", to: 2) }

    /// Without a newline (progress lines that rewrite themselves).
    static func errorRaw(_ text: String) { write(text, to: 2) }

    private static func write(_ text: String, to descriptor: Int32) {
        var text = text
        _ = text.withUTF8 { write($0, to: descriptor) }
    }

    /// - Returns: the error that stopped the writing (`errno`), else 0.
    @discardableResult
    static func write(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32 = 1) -> Int32 {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 && errno == EINTR { continue }
            if written < 0 { return errno }
            if written == 0 { return EIO }
            offset += written
        }
        return 0
    }
}
