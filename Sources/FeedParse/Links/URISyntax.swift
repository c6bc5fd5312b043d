/// What the other stages need to know of URI syntax, from the parser's own
/// reading of it (`URLReference`).
public enum URISyntax {
    /// Whether `text` starts with a scheme (`http:`, `tag:`, `urn:`): an
    /// absolute URI, which names the same thing wherever it appears.
    public static func hasScheme(_ text: String) -> Bool { URLReference.hasScheme(text) }
}
