/// Why a document could not be read at all.
public struct DOMError: Error, Sendable, CustomStringConvertible {
    public enum Code: String, Sendable {
        /// Nothing but whitespace (or nothing) to parse.
        case empty
        /// Larger than the size limit allows.
        case tooLarge
        /// libxml2 found no root element, even in recover mode.
        case notXML
        /// An XPath expression did not compile or run.
        case xpath
    }

    public var code: Code
    /// What libxml2 (or the check that refused the input) said.
    public var message: String
    /// The line libxml2 reported, when it reported one.
    public var line: Int?

    public init(code: Code, message: String, line: Int? = nil) {
        self.code = code
        self.message = message
        self.line = line
    }

    public var description: String {
        line.map { "\(message) (line \($0))" } ?? message
    }
}
