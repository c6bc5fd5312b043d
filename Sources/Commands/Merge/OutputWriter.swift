import FeedEmit
import FeedModel
import Foundation
import Glibc
import PlanetPage
import TextOutput

/// What a run's outputs are made of: the timeline for the feeds (sanitized
/// with `--sanitize`), and for the page and the OPML what they need besides.
struct OutputContent: Sendable {
    var entries: [MergedEntry]
    var metadata: OutputMetadata
    /// The pages' input, when a page is written, and the links to the
    /// other outputs as seen from a page's path.
    var page: (input: PlanetPageInput, links: @Sendable (String) -> [String: String])?
    /// The default theme's list of subscriptions of a page, by its path,
    /// when a render made it a part at a time (`MergeRun.PagesInParts`).
    var pageSubscriptions: [String: Result<SortedSubscriptions, PlanetPage.Failure>] = [:]
    /// The subscription list as OPML, when one is written.
    var subscriptionList: [UInt8]?
    /// Each output's public address, by path (`MergeOptions.publicURLs`): a feed's `rel="self"`.
    var selfURLs: [String: String] = [:]
}

/// Writes every output of a run at once, each on its own thread: rendering
/// is CPU work the cores share, and each file ends in an fsync that waits
/// for the disk and must not hold up the others (nor a thread of the
/// concurrency pool). Each feed streams to its file a megabyte at a time,
/// so the feeds never sit whole in memory; the page (whose theme needs
/// the whole document) and the OPML are made in memory.
enum OutputWriter {
    /// Whether a page at `path` is written as HTML: one named .html (or
    /// written to standard output) is; another file (Venus's atom.xml,
    /// opml.xml), or a page with filters (Venus's filters read the file its
    /// template wrote), is what its theme's xsl:output says.
    static func writesHTML(_ path: String, filters: [PageFilter]) -> Bool {
        let lower = path.lowercased()
        return filters.isEmpty
            && (path == "-" || lower.hasSuffix(".html") || lower.hasSuffix(".htm") || lower.hasSuffix(".xhtml"))
    }

    /// What became of one output.
    struct Result: Sendable {
        /// Nil when it was written, else why not.
        var failure: String?
        /// Whether a file's bytes differ from those it replaced (standard output: never known, false).
        var changed = false
    }

    /// For each output in order: whether it was written, and changed.
    static func write(_ outputs: [Outputs.Output], content: OutputContent, verbose: Bool) async -> [Result] {
        await withTaskGroup(of: (Int, Result).self) { group in
            for (index, output) in outputs.enumerated() {
                group.addTask {
                    let result = await onOwnThread { write(output, content: content, verbose: verbose) }
                    return (index, result)
                }
            }
            var results = [Result](repeating: Result(), count: outputs.count)
            for await (index, result) in group { results[index] = result }
            return results
        }
    }

    private static func write(_ output: Outputs.Output, content: OutputContent, verbose: Bool) -> Result {
        let start = Date()
        let render: (inout TextBuffer) -> Void
        switch output.kind {
        case .feed(let format):
            var metadata = content.metadata
            if let selfURL = content.selfURLs[output.path] { metadata.selfURL = selfURL }
            // WebSub discovery needs both links: a feed with no address of its own names no hub.
            if metadata.selfURL == nil { metadata.hubs = [] }
            render = { format.render(content.entries, metadata: metadata, into: &$0) }
        case .page:
            // The theme runs first: a page is written only once its theme has succeeded.
            let page: RenderedPage
            var encoding: String?
            do {
                guard let made = content.page, let setting = output.page else {
                    throw PlanetPage.Failure(description: "no theme")
                }
                var input = made.input
                if let list = content.pageSubscriptions[output.path] { input.subscriptions = try list.get() }
                input.links = made.links(output.path)
                input.entries = setting.cap.apply(input.entries)
                input.settings.merge(setting.settings) { $1 }
                encoding = input.settings["encoding"]
                input.outputName = output.path == "-" ? nil : (output.path as NSString).lastPathComponent
                page = try PlanetPage.render(input, theme: setting.theme)
            } catch {
                if case .file(let file) = output.destination { file.discard() }  // the old page stays
                return Result(failure: "\(output.path): \(error)")
            }
            let filters = output.page?.filters ?? []
            let write: (inout TextBuffer) -> Void
            if writesHTML(output.path, filters: filters) {
                write = { page.write(into: &$0) }
            } else {
                write = { page.writeAsThemeAsks(into: &$0) }
            }
            let made = filtered(write, by: filters, path: output.path)
            if let encoding, PageEncoding.isKnown(encoding) {
                // Planet 2.0's `encoding`: the page made in UTF-8, then written in the one asked.
                render = { out in
                    var page = TextBuffer(capacity: 1 << 16)
                    made(&page)
                    if let failure = page.failure { return out.fail(failure) }
                    if let bytes = page.withBytes({ PageEncoding.encode($0, as: encoding) }) {
                        out.append(bytes: bytes)
                    } else {
                        page.withBytes { out.append(bytes: Array($0)) }
                    }
                }
            } else {
                render = made
            }
        case .subscriptionList:
            let bytes = content.subscriptionList ?? []
            render = { $0.append(bytes: bytes) }
        }
        var changed = false
        switch output.destination {
        case .standardOutput:
            var failure: Int32 = 0
            var buffer = TextBuffer(drainingAt: 1 << 20) { if failure == 0 { failure = StandardOutput.write($0) } }
            render(&buffer)
            buffer.flush()
            if failure != 0 {
                return Result(failure: "standard output: cannot write: \(String(cString: strerror(failure)))")
            }
            if let unmade = buffer.failure { return Result(failure: "standard output: \(unmade)") }
        case .file(let file):
            do {
                changed = try file.commit(render)
            } catch {
                return Result(failure: error.description)
            }
        }
        if verbose {
            let seconds = String(format: "%.3f", Date().timeIntervalSince(start))
            StandardOutput.error("feedmerge: wrote \(output.path) (\(label(output))) in \(seconds) s")
        }
        return Result(changed: changed)
    }

    /// What an output is, as `-v` names it: a page named as HTML is one, another is
    /// what its template makes (Venus's `atom.xml`, `opml.xml`).
    static func label(_ output: Outputs.Output) -> String {
        guard output.kind == .page else { return output.kind.description }
        let lower = output.path.lowercased()
        let html = output.path == "-" || [".html", ".htm", ".xhtml"].contains { lower.hasSuffix($0) }
        return html ? "html" : "made by its template"
    }

    /// The page made whole in memory and given to its filters, when it has any.
    private static func filtered(_ write: @escaping (inout TextBuffer) -> Void, by filters: [PageFilter], path: String)
        -> (inout TextBuffer) -> Void
    {
        guard !filters.isEmpty else { return write }
        var page = TextBuffer(capacity: 1 << 16)
        write(&page)
        if let failure = page.failure { return { $0.fail(failure) } }
        guard let text = String(validating: page.bytes, as: UTF8.self) else {
            StandardOutput.error("feedmerge: \(path) is not UTF-8: its filters are not run")
            return write
        }
        let result = PageFilter.apply(filters, to: text, path: path)
        return { $0.append(contentsOf: result) }
    }

    private static func onOwnThread<Result: Sendable>(_ job: @escaping @Sendable () -> Result) async -> Result {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: job()) }.start()
        }
    }
}
