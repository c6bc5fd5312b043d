internal import CGumbo

/// The one Swift owner of a gumbo parse: the tree gumbo built for an HTML
/// fragment (parsed with a `div` as the context element), freed in `deinit`.
/// Nodes are only reached inside `withRoot`, so no pointer outlives the tree.
final class GumboFragment {
    private let output: UnsafeMutablePointer<GumboOutput>

    /// Parses `bytes` (UTF-8; gumbo replaces invalid sequences with U+FFFD).
    /// The corresponding C function is `gumbo_parse_with_options`.
    init(parsing bytes: UnsafeBufferPointer<UInt8>) {
        // gumbo reads `length` bytes and never needs a terminator; an empty
        // input still needs a valid pointer.
        let parsed = bytes.withMemoryRebound(to: CChar.self) { chars in
            withUnsafePointer(to: CChar(0)) { empty in
                CGumbo_parseFragment(chars.baseAddress ?? empty, chars.count)
            }
        }
        // gumbo returns NULL only when its allocator fails, which the default
        // allocator (malloc) reports by aborting first.
        guard let parsed else { preconditionFailure("gumbo_parse_with_options returned no tree") }
        output = parsed
    }

    deinit { CGumbo_destroy(output) }

    /// Calls `body` with the fragment's parent node (an `html` element whose
    /// children are the fragment's top-level nodes).
    func withRoot<R>(_ body: (UnsafeMutablePointer<GumboNode>) -> R) -> R {
        body(output.pointee.root)
    }
}

@available(*, unavailable) extension GumboFragment: Sendable {}
