/// How a text value is to be read: the type its source declared.
///
/// Atom: the `type` attribute of a text construct (`text`, `html`, `xhtml`);
/// Atom 0.3: `type` as a MIME type plus `mode`; RSS: titles are text,
/// descriptions and `content:encoded` are HTML; JSON Feed: `content_text`
/// is text, `content_html` is HTML.
public enum TextKind: String, Sendable, Hashable {
    case text
    case html
    case xhtml
}

/// A text construct: a value plus the type that says how to read it.
///
/// For `.xhtml` the value is the serialized children of the wrapping `div`.
public struct Text: Sendable, Hashable {
    public var value: String
    public var kind: TextKind

    public init(_ value: String, kind: TextKind = .text) {
        self.value = value
        self.kind = kind
    }
}
