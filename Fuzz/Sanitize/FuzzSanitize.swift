import HTMLOracle
import HTMLSanitizer

/// HTML from a feed, any bytes, sanitized as the feeds (`--sanitize`) and
/// the page publish it. The input is a base URL, a newline, the HTML.
/// The sanitizer's properties, checked by re-parsing the output with gumbo
/// as a browser would (`HTMLOracle.SanitizerProperties`): no executable
/// construct, sanitizing twice equals once, and the output is exactly the
/// serialization of the tree a browser reads from it (HTML and XHTML forms).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSanitize(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
    let (base, html) = parts.count > 1 ? (String(parts[0]), String(parts[1])) : (nil, text)
    let problems = SanitizerProperties.problems(html, base: base?.isEmpty == false ? base : nil)
    guard problems.isEmpty else {
        fatalError("input \(html.prefix(600).debugDescription) base \(base ?? "-"):\n" + problems.joined(separator: "\n"))
    }
    return 0
}
