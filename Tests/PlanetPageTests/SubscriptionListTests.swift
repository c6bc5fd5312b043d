import FeedModel
import Foundation
import Testing
import TextOutput

@testable import PlanetPage

/// The default theme's list of subscriptions made apart, a part at a time
/// (`PageSubscriptions`), gives the page byte for byte as the theme's own
/// sort of the whole document does.
@Suite struct SubscriptionListTests {
    /// Subscriptions whose names sort every way the theme's `xsl:sort` can
    /// tell apart: case, letters past ASCII, one name twice, markup and
    /// entities, every status, links a page may not carry.
    static var sources: [PlanetSource] {
        let names = [
            "beta", "Alpha", "alpha", "ALPHA", "Émile", "émile", "zeta", "Zoë", "äpfel", "Straße", "ß",
            "<b>bold</b> & \"quoted\"", "tab\tand\nnewline", "", "  spaced", "日本語", "💡 ideas", "beta",
            "https://example.com/feed", "a\u{00A0}b", "Ω", "_under", "0 zero", "~tilde",
        ]
        let statuses: [PlanetSource.Status] = [.ok, .failing, .gone, .partial, .stale, .deferred]
        return names.enumerated().map { index, name in
            let status = statuses[index % statuses.count]
            var source = PlanetSource(
                name: name, feedURL: "https://feeds\(index).example/feed?a=1&b=\"2\"",
                link: index % 5 == 0 ? "javascript:alert(1)" : index % 3 == 0 ? nil : "https://site\(index).example/",
                status: status, message: status == .failing || index % 7 == 0 ? "HTTP \(500 + index) <oops>" : nil,
                newestEntry: index % 4 == 0 ? nil : Timestamp(secondsSince1970: 1_700_000_000 + Int64(index) * 86_400),
                failingSince: status == .failing && index % 2 == 0 ? Timestamp(rfc3339: "2026-11-20T10:00:00Z") : nil)
            if status == .partial && index % 2 == 1 { source.partialReason = "cut short at 1 MiB" }
            if index % 6 == 2 { source.properties["activity_threshold"] = "30" }
            return source
        }
    }

    static func page(_ input: PlanetPageInput) throws -> String {
        var out = TextBuffer()
        try PlanetPage.render(input, theme: .xslt(Theme.builtIn())).write(into: &out)
        return out.text
    }

    /// The page with `sources` listed by `PageSubscriptions`, given in `parts`.
    static func pageMadeApart(
        _ input: PlanetPageInput, parts: [Range<Int>], memoryLimit: Int = 16 << 20
    ) throws -> String {
        var list = PageSubscriptions(
            theme: try Theme.builtIn(), settings: input.settings, generated: input.generated,
            memoryLimit: memoryLimit)
        for part in parts { try list.add(Array(input.sources[part])) }
        #expect(list.count == input.sources.count)
        var apart = input
        apart.subscriptions = list.sorted()
        // The entries' own feeds are all the page document still needs.
        let feeds = Set(input.entries.map(\.source.feedURL))
        apart.sources = input.sources.filter { feeds.contains($0.feedURL) }
        return try page(apart)
    }

    static func input(settings: [String: String] = [:]) -> PlanetPageInput {
        var input = Sample.input
        input.sources += sources
        input.settings = settings
        return input
    }

    @Test(arguments: [[:], ["activity_threshold": "400"]])
    func aListMadeApartIsTheThemesOwn(settings: [String: String]) throws {
        let input = Self.input(settings: settings)
        let whole = try Self.page(input)
        #expect(whole.contains("<li class=\"failing\">"))
        #expect(whole.contains("Émile"))
        let apart = try Self.pageMadeApart(input, parts: [0..<input.sources.count])
        #expect(apart == whole)
    }

    /// Several parts, each spilled to a file as a run of its own, merged as
    /// the page is written: items of one name keep the order they came in.
    @Test func aListInPartsOnFileIsTheThemesOwn() throws {
        let input = Self.input()
        let whole = try Self.page(input)
        let count = input.sources.count
        let parts = [0..<3, 3..<4, 4..<11, 11..<count]
        let onFile = try Self.pageMadeApart(input, parts: parts, memoryLimit: 1)
        #expect(onFile == whole)
        let inMemory = try Self.pageMadeApart(input, parts: parts)
        #expect(inMemory == whole)
    }

    /// A list on file that cannot be read back whole (its temporary file cut
    /// short here, as a failing disk would) is never written as a page that
    /// lacks subscriptions: the page's file stays as it was, and the write
    /// says why.
    @Test func aListThatCannotBeReadBackIsNotWritten() throws {
        let input = Self.input()
        var list = PageSubscriptions(
            theme: try Theme.builtIn(), settings: [:], generated: input.generated, memoryLimit: 1)
        try list.add(Array(input.sources[0..<10]))
        try list.add(Array(input.sources[10...]))
        let descriptor = try #require(list.spillDescriptor)
        var apart = input
        apart.subscriptions = list.sorted()
        apart.sources = []
        let page = try PlanetPage.render(apart, theme: .xslt(Theme.builtIn()))
        var whole = TextBuffer()
        page.write(into: &whole)
        #expect(whole.failure == nil)
        #expect(whole.text.contains("Émile"))

        #expect(ftruncate(descriptor, 100) == 0)
        var cut = TextBuffer()
        page.write(into: &cut)
        #expect(cut.failure?.contains("the list of subscriptions cannot be read back") == true, "\(cut.failure ?? "")")
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("feedmerge-cut-\(getpid()).html").path
        defer { unlink(path) }
        try AtomicFile.write("the page before", to: path)
        #expect(throws: AtomicFile.WriteError.self) { try AtomicFile.write(to: path) { page.write(into: &$0) } }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "the page before")
    }

    /// More subscriptions than one transformation lists.
    @Test func aLongListIsTheThemesOwn() throws {
        var input = Sample.input
        input.sources += (0..<4_500).map { index in
            PlanetSource(
                name: "Feed \((index * 7_919) % 4_500)", feedURL: "https://example.com/\(index).xml",
                status: index % 9 == 0 ? .failing : .ok, message: index % 9 == 0 ? "timed out" : nil)
        }
        let whole = try Self.page(input)
        let apart = try Self.pageMadeApart(
            input, parts: [0..<1_000, 1_000..<input.sources.count], memoryLimit: 100_000)
        #expect(apart == whole)
    }

    /// An entry whose content has the list's own markup does not get the list: only the theme's
    /// place for it does (`HTMLResult` looks for it under `body`, where no content is; the
    /// sanitizer drops `class` too, so each alone keeps this true).
    @Test func anEntryShapedLikeTheListGetsNoItems() throws {
        var input = Self.input()
        input.entries[0].entry.content = [
            Text(
                "<div class=\"layout\"><aside><div class=\"subscriptions\"><ul><li>mine</li></ul></div></aside></div>",
                kind: .html)
        ]
        let whole = try Self.page(input)
        #expect(whole.contains("<li>mine</li></ul>"))
        #expect(try Self.pageMadeApart(input, parts: [0..<input.sources.count]) == whole)
    }

    /// With no subscriptions the page says so as the theme does: an empty list.
    @Test func noSubscriptions() throws {
        var input = Sample.input
        input.sources = []
        input.entries = []
        #expect(try Self.pageMadeApart(input, parts: []) == (try Self.page(input)))
    }
}
