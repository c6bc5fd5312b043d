internal import CLibXML2

/// A parsed XML document: the only owner of its libxml2 `xmlDoc`.
///
/// Elements handed out keep the document alive, so no node outlives the
/// tree it belongs to. Not `Sendable`: parse, read, and drop it on one task.
public final class DOMDocument {
    /// Limits applied before and during parsing.
    public struct Limits: Sendable {
        /// Documents larger than this are refused before parsing.
        public var maximumBytes: Int
        /// Repair even documents libxml2 would read as they are (tests use
        /// it to check that skipping repair never changes a result).
        var alwaysRepairs = false
        /// Elements that are records of the document (a feed's `item` and
        /// `entry`, by local name): when the document ends inside one, it is
        /// removed whole rather than kept half read.
        public var recordNames: Set<String>
        public init(maximumBytes: Int = 64 << 20, recordNames: Set<String> = ["item", "entry"]) {
            self.maximumBytes = maximumBytes
            self.recordNames = recordNames
        }
    }

    let pointer: xmlDocPtr
    /// The address the document came from, if known.
    public let url: String?
    /// What was repaired or dropped on the way in (encoding fallbacks,
    /// removed DTD, recovered well-formedness errors).
    public let warnings: [String]
    /// Whether libxml2 parsed the document without recovering from errors.
    public let isWellFormed: Bool
    /// The last error libxml2 recovered from (with its line), when not well-formed.
    public let recoveredError: DOMError?
    /// Which attributes of the `xml` namespace the text contains at all, so
    /// looking up the language or base of an element is free in the many
    /// documents without them.
    let mentions: XMLAttributeMentions

    /// Parses untrusted bytes: encoding decided by `CharacterEncoding` (RFC 7303),
    /// markup repaired, no DTD or external entity ever loaded, recover mode.
    /// - Parameters:
    ///   - bytes: the document as received.
    ///   - url: the address it came from, the base for relative references.
    ///   - contentType: the HTTP Content-Type it came with (its charset counts).
    /// - Throws: `DOMError` when there is no element to read at all.
    public init(
        parsing bytes: some Collection<UInt8>, url: String? = nil, contentType: String? = nil,
        limits: Limits = Limits()
    ) throws(DOMError) {
        guard bytes.count <= limits.maximumBytes else {
            throw DOMError(
                code: .tooLarge,
                message: "document of \(bytes.count) bytes exceeds the limit of \(limits.maximumBytes)")
        }
        let outcome =
            bytes.withContiguousStorageIfAvailable { Self.read($0, url: url, contentType: contentType, limits: limits) }
            ?? Array(bytes).withUnsafeBufferPointer {
                Self.read($0, url: url, contentType: contentType, limits: limits)
            }
        let parsed = try outcome.get()
        pointer = parsed.document
        self.url = url
        isWellFormed = parsed.wellFormed
        recoveredError = parsed.recoveredError
        warnings = parsed.warnings
        mentions = parsed.mentions
    }

    /// Known namespaces by their libxml2 declaration, so each declaration's
    /// URI is compared once, not once per element. Only this document's
    /// (single) task touches it, hence no exclusivity checks.
    @exclusivity(unchecked) private var namespaces = PointerCache<Namespace>()

    func namespace(for declaration: xmlNsPtr) -> Namespace {
        let key = UnsafeRawPointer(declaration)
        if let known = namespaces[key] { return known }
        let uri = declaration.pointee.href.map { String(cString: $0) } ?? ""
        let namespace = Namespace(uri: uri) ?? .other
        namespaces[key] = namespace
        return namespace
    }

    /// An element name as libxml2 stored it, split and lower-cased once.
    struct Name {
        /// Without a prefix the document used but did not declare.
        let local: String
        let lowercased: String
        /// The namespace conventionally bound to that undeclared prefix.
        let prefixNamespace: Namespace?
        let hasPrefix: Bool
    }

    /// Names by their libxml2 pointer: the parser interns names in the
    /// document's dictionary, so each distinct name is converted once, not
    /// once per element.
    @exclusivity(unchecked) private var names = PointerCache<Name>()

    func name(for pointer: UnsafePointer<UInt8>) -> Name {
        let key = UnsafeRawPointer(pointer)
        if let known = names[key] { return known }
        let full = String(cString: pointer)
        var name: Name
        if let colon = full.utf8.firstIndex(of: UInt8(ascii: ":")) {
            let local = String(full[full.index(after: colon)...])
            name = Name(
                local: local, lowercased: local.lowercased(),
                prefixNamespace: Namespace(conventionalPrefix: String(full[..<colon])) ?? .other, hasPrefix: true)
        } else {
            name = Name(local: full, lowercased: full.lowercased(), prefixNamespace: nil, hasPrefix: false)
        }
        names[key] = name
        return name
    }

    deinit { xmlFreeDoc(pointer) }

    /// The document element (libxml2 keeps the first one of several roots).
    public var root: DOMElement {
        // A document without a root is refused in `read`.
        DOMElement(document: self, node: xmlDocGetRootElement(pointer))
    }
}

@available(*, unavailable)
extension DOMDocument: Sendable {}
