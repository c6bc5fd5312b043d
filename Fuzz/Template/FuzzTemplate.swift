import HTMLTemplate

/// An htmltmpl template, any text (a downloaded theme): every include it
/// names is the same text again, so includes nest and multiply as far as
/// the template asks.
/// - Compiling ends, in bounded time, with a template or a failure; never
///   a crash or a stack overflow (nesting, includes).
/// - Rendering with hostile values never lets a text value out as it is:
///   the value's quotes and brackets never reach the page unescaped, in
///   whatever context the template puts it.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let template = try? HTMLTemplate(text: text, name: "fuzz.tmpl", include: { _ in text }, timeLimit: 5)
    else { return 0 }
    let hostile = "q\"'<>= `Q"
    let values: [String: TemplateValue] = [
        "title": .markup("<b title=\"m\">m</b> x\" onmouseover=\"1"), "name": .text(hostile),
        "author_name": .text(hostile), "link": .text(hostile), "count": .number(2),
        "Items": .loop([["title": .text(hostile), "name": .text(hostile)], ["name": .text(hostile)]]),
    ]
    let page = template.render(values)
    if page.contains(hostile) && !text.contains(hostile) {
        fatalError("a text value reached the page unescaped: \(text.debugDescription) gave \(page.debugDescription)")
    }
    return 0
}
