import Glibc

/// The bytes of a NUL-terminated libxml2 string (`xmlChar *`), without the NUL.
@inline(__always)
func bytes(ofCString pointer: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(start: pointer, count: strlen(UnsafeRawPointer(pointer).assumingMemoryBound(to: CChar.self)))
}
