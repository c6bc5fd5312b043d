@testable import FeedParse
import HTMLSanitizer

/// Links and URL references, any text: a feed's links, `xml:base`, the
/// addresses the page links to. The input is a base, a newline, a reference.
/// - Link identity (`LinkNormalizer`, which decides what is one entry across
///   feeds) is idempotent: a normalized link normalizes to itself.
/// - Resolution against an absolute base gives an absolute reference with
///   the base's scheme, and resolving that again changes nothing.
/// - A page link (`HTMLSanitizer.webLink`) is http, https or mailto, and
///   is its own page link.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLinks(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let base = String(parts[0])
    let reference = parts.count > 1 ? String(parts[1]) : ""
    for link in [base, reference] {
        let normalized = LinkNormalizer.normalize(link)
        let twice = LinkNormalizer.normalize(normalized)
        guard twice == normalized else {
            fatalError("normalize not idempotent: \(link.debugDescription) → \(normalized.debugDescription) → \(twice.debugDescription)")
        }
        if let page = HTMLSanitizer.webLink(link) {
            let scheme = String(String.UnicodeScalarView(page.unicodeScalars.prefix { $0 != ":" })).lowercased()
            guard ["http", "https", "mailto"].contains(scheme) else { fatalError("page link \(page) from \(link.debugDescription)") }
            guard HTMLSanitizer.webLink(page) == page else { fatalError("page link \(page.debugDescription) changes again") }
        }
    }
    let resolved = URLReference.resolve(reference, against: base)
    let b = URLReference(Substring(base))
    if let scheme = b.scheme, !b.isOpaque {
        guard URLReference.hasScheme(resolved) else {
            fatalError("\(reference.debugDescription) against \(base.debugDescription) gave \(resolved.debugDescription): no scheme")
        }
        if !URLReference.hasScheme(reference.trimmingWhitespace), URLReference(Substring(resolved)).scheme != scheme {
            fatalError("\(reference.debugDescription) against \(base.debugDescription): \(resolved.debugDescription) lost the base's scheme")
        }
        let again = URLReference.resolve(resolved, against: base)
        guard again == resolved else {
            fatalError("resolving \(resolved.debugDescription) again gave \(again.debugDescription)")
        }
    }
    return 0
}
