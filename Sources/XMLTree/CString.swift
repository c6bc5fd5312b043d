import Glibc

/// The bytes of a NUL-terminated libxml2 string (`xmlChar *`), without the NUL.
@inline(__always)
func bytes(ofCString pointer: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
}

/// Whether a Swift string has exactly these UTF-8 bytes (one `memcmp`).
@inline(__always)
func utf8(of string: String, equals stored: UnsafeBufferPointer<UInt8>) -> Bool {
    string.utf8.withContiguousStorageIfAvailable { mine in
        mine.count == stored.count && (mine.isEmpty || memcmp(mine.baseAddress!, stored.baseAddress!, mine.count) == 0)
    } ?? string.utf8.elementsEqual(stored)
}
