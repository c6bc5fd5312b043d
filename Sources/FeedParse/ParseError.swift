/// Why a document gave no feed at all.
public struct ParseError: Error, Sendable, CustomStringConvertible {
    public enum Stage: String, Sendable {
        /// Reading the bytes (size, empty).
        case read
        /// libxml2 could not build a tree.
        case xml
        /// JSON that is not a JSON Feed, or not JSON.
        case json
        /// A well-formed document that is not a feed (an HTML page, say).
        case detect
    }

    public var stage: Stage
    public var message: String

    public init(stage: Stage, message: String) {
        self.stage = stage
        self.message = message
    }

    public var description: String { message }
}
