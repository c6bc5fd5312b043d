import FeedFetch
import Foundation
import TestSupport
import Testing

/// Who may make feedmerge read what (SECURITY.md), tried as an attacker
/// would: a stranger's subscription list served on 127.0.0.1, real local
/// files and FIFOs, every spelling of loopback, and a real proxy.
@Suite(.serialized) struct SecurityTests {
    static let server = PlanetServer.hostile
    var server: LocalServer { Self.server }

    /// A folder with a secret feed, a FIFO nobody writes to, and a path that does not exist.
    final class Secrets {
        let w: StateTests.Workspace
        let secret: String
        let fifo: String
        let missing: String
        static let title = "SECRET ENTRY \(getpid())"
        init(_ name: String) throws {
            w = try StateTests.Workspace("security-\(name)")
            secret = w.path("secret.xml")
            let feed =
                "<rss version=\"2.0\"><channel><title>Notes</title><item><title>\(Self.title)</title>"
                + "<link>http://notes.example/1</link></item></channel></rss>"
            try Data(feed.utf8).write(to: URL(fileURLWithPath: secret))
            fifo = w.path("fifo.xml")
            guard mkfifo(fifo, 0o644) == 0 else { throw POSIXError(.EIO) }
            missing = w.path("no-such-feed.xml")
        }
        /// Every way a list can name them.
        var spellings: [String] {
            ["file://\(secret)", secret, "file:///etc/passwd", fifo, "file://\(missing)", missing]
        }
    }

    func listURL(_ path: String, _ urls: [String]) -> String {
        let query = urls.map { "u=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0) }
        return server.url(path + "?" + query.joined(separator: "&"))
    }

    func health(_ path: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        return try #require((json as? [String: Any])?["feeds"] as? [[String: Any]])
    }

    @Test(arguments: ["/list.opml", "/list"])
    func aListFetchedOverTheNetworkMakesNothingLocalBeRead(path: String) async throws {
        let s = try Secrets("remote\(path.count)")
        let list = listURL(path, s.spellings + [server.url("/feed.xml")])
        let run = try await CommandRun.feedmerge([
            list, "-o", s.w.path("out.json"), "-o", s.w.path("index.html"), "--no-state", "--link", "http://p/",
            "--health", s.w.path("health.json"),
        ])
        #expect(run.status == 1, "\(run.standardError)")
        let out = try String(contentsOfFile: s.w.path("out.json"), encoding: .utf8)
        let page = try String(contentsOfFile: s.w.path("index.html"), encoding: .utf8)
        #expect(out.contains("Plain entry") && !out.contains(Secrets.title) && !page.contains(Secrets.title))
        #expect(!out.contains("root:") && !page.contains("root:"))
        // Each is refused the same way, whether it exists, is a FIFO or is missing: nothing about the disk leaks.
        for url in s.spellings {
            #expect(run.standardError.contains("\(url): \(LocalFile.refusal)"), "\(url): \(run.standardError)")
        }
        #expect(!run.standardError.contains("No such file") && !run.standardError.contains("Start tag expected"))
        let reasons = Set(
            try health(s.w.path("health.json")).compactMap { feed -> String? in
                guard let url = feed["url"] as? String, s.spellings.contains(url) else { return nil }
                return "\(feed["status"] ?? "")|\(feed["error"] ?? "")"
            })
        #expect(reasons.count == 1, "\(reasons)")
    }

    @Test func aListOnStandardInputNamesWebFeedsOnly() async throws {
        let s = try Secrets("stdin")
        let outlines = s.spellings.map { "<outline text=\"x\" xmlUrl=\"\($0)\"/>" }.joined()
        let opml =
            "<opml version=\"2.0\"><head/><body>\(outlines)<outline text=\"p\" xmlUrl=\"\(server.url("/feed.xml"))\"/></body></opml>"
        let run = try await CommandRun.feedmerge(
            ["-", "-o", "-", "--format", "json", "--no-state"], input: Data(opml.utf8))
        #expect(run.status == 1 && run.standardOutput.contains("Plain entry"), "\(run.standardError)")
        #expect(!run.standardOutput.contains(Secrets.title))
        #expect(run.standardError.components(separatedBy: LocalFile.refusal).count == s.spellings.count + 1)
    }

    @Test func theOperatorsOwnLocalListAndFilesAreRead() async throws {
        let s = try Secrets("local")
        let opml =
            "<opml version=\"2.0\"><head/><body><outline text=\"n\" xmlUrl=\"file://\(s.secret)\"/></body></opml>"
        try Data(opml.utf8).write(to: URL(fileURLWithPath: s.w.path("mine.opml")))
        let fromList = try await CommandRun.feedmerge([
            s.w.path("mine.opml"), "-o", "-", "--format", "json", "--no-state",
        ])
        #expect(fromList.status == 0 && fromList.standardOutput.contains(Secrets.title), "\(fromList.standardError)")
        let named = try await CommandRun.feedmerge([s.secret, "-o", "-", "--format", "json", "--no-state"])
        #expect(named.status == 0 && named.standardOutput.contains(Secrets.title), "\(named.standardError)")
    }

    @Test func fetchReadsANamedFileButNotOneAPipedListNames() async throws {
        let s = try Secrets("fetch")
        let named = try await CommandRun.feedmerge(["fetch", s.secret])
        #expect(named.status == 0 && named.standardOutput.hasPrefix("\(s.secret)\t200\t"), "\(named.standardOutput)")
        let piped = try await CommandRun.feedmerge(["fetch", "-"], input: Data("\(s.secret)\n\(s.missing)\n".utf8))
        #expect(piped.status == 1, "\(piped.standardOutput)")
        for path in [s.secret, s.missing] {
            #expect(piped.standardOutput.contains("\(path)\terror\t\(LocalFile.refusal)"), "\(piped.standardOutput)")
        }
    }

    @Test func aFIFOOrAFolderNamedByTheOperatorIsRefusedWithoutBlocking() async throws {
        let s = try Secrets("fifo")
        let start = Date()
        let run = try await CommandRun.feedmerge([
            s.fifo, s.w.folder.path, server.url("/feed.xml"), "-o", "-", "--format", "json", "--no-state",
        ])
        #expect(Date().timeIntervalSince(start) < 30)
        #expect(run.status == 1 && run.standardOutput.contains("Plain entry"), "\(run.standardError)")
        #expect(run.standardError.contains("\(s.fifo) is a FIFO, not a regular file"), "\(run.standardError)")
        #expect(run.standardError.contains("is a folder, not a regular file"), "\(run.standardError)")
    }

    @Test func aRedirectToALocalFileIsRefused() async throws {
        let s = try Secrets("redirect")
        let run = try await CommandRun.feedmerge([
            server.url("/redirect?to=file://\(s.secret)"), server.url("/feed.xml"), "-o", "-", "--format", "json",
            "--no-state",
        ])
        #expect(run.status == 1 && !run.standardOutput.contains(Secrets.title), "\(run.standardError)")
    }

    static let loopbackSpellings = [
        "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0.0.0.0", "[::1]", "[::ffff:127.0.0.1]", "localhost.",
        "localhost", "LOCALHOST", "127.000.000.001", "0x7f.1", "[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::]",
        "%31%32%37.0.0.1",
    ]

    @Test(arguments: loopbackSpellings)
    func publicOnlyRefusesEveryLoopbackSpellingBeforeAnyRequest(host: String) async throws {
        let port = Self.server.ports[0]
        let marker = "/feed.xml?spelling=\(UUID().uuidString)"
        let run = try await CommandRun.feedmerge([
            "--public-only", "http://\(host):\(port)\(marker)", "-o", "-", "--format", "json", "--no-state",
        ])
        #expect(run.status == 3, "\(run.standardError)")
        let refusals = run.standardError.split(separator: "\n").filter {
            $0.contains("which the address policy refuses")
        }
        #expect(refusals.count == 1, "\(run.standardError)")
        #expect(try await log().contains(marker) == false)
    }

    /// A name that resolves to a refused address is refused at connect
    /// time; what the list's editor reads (stderr, `--health`, the page)
    /// says the kind of address, never the address it resolved to nor its block.
    @Test func aRefusalAfterDNSSaysOnlyTheKindOfAddress() async throws {
        // This machine's name resolves to loopback here (/etc/hosts); skipped where it does not.
        let name = ProcessInfo.processInfo.hostName.lowercased()
        var hints = addrinfo()
        hints.ai_family = AF_INET
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &found) == 0, let first = found else { return }
        defer { freeaddrinfo(found) }
        let address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
            String(cString: inet_ntoa($0.pointee.sin_addr))
        }
        guard address.hasPrefix("127.") else { return }
        let w = try StateTests.Workspace("public-only-dns")
        let url = "http://\(name):\(Self.server.ports[0])/feed.xml"
        // A feed that works beside it, so that the page is written (with the failing feed's health).
        try Data("<rss version=\"2.0\"><channel><title>Fine</title></channel></rss>".utf8)
            .write(to: URL(fileURLWithPath: w.path("fine.rss")))
        let run = try await CommandRun.feedmerge([
            "--public-only", url, w.path("fine.rss"), "-o", w.path("page.html"), "--health", w.path("health.json"),
            "--no-state",
        ])
        #expect(run.status == 1, "\(run.standardError)")
        let health = try String(contentsOfFile: w.path("health.json"), encoding: .utf8)
        let page = try String(contentsOfFile: w.path("page.html"), encoding: .utf8)
        #expect(health.contains("the server's address is a loopback address"), "\(health)")
        for text in [run.standardError, health, page] {
            #expect(!text.contains(address) && !text.contains("127.0.0.0") && !text.contains("/8"), "\(text)")
        }
    }

    @Test func publicOnlyRefusesAProxyAndAProxyIsOtherwiseUsed() async throws {
        let proxy = "http://127.0.0.1:\(Self.server.ports[0])"
        let target = "http://feeds.invalid/through-\(UUID().uuidString).xml"
        // Without --public-only the proxy carries the request: the variable is live.
        let plain = try await CommandRun.feedmerge(
            [target, "-o", "-", "--format", "json", "--no-state"], environment: ["http_proxy": proxy])
        #expect(plain.status == 0 && plain.standardOutput.contains("Proxied entry"), "\(plain.standardError)")
        #expect(try await log().contains(target))
        let second = "http://feeds.invalid/refused-\(UUID().uuidString).xml"
        for name in ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"] {
            let refused = try await CommandRun.feedmerge(
                ["--public-only", second, "-o", "-", "--format", "json", "--no-state"], environment: [name: proxy])
            #expect(refused.status == 2, "\(name): \(refused.standardError)")
            #expect(
                refused.standardError.contains("--public-only cannot check") && refused.standardError.contains(name))
        }
        #expect(try await log().contains(second) == false)
    }

    @Test func aRunawayThemeIsStoppedAndLeavesThePreviousPage() async throws {
        let w = try StateTests.Workspace("security-theme")
        let doubling = """
            <xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
              <xsl:template match="/"><html><body><xsl:call-template name="t">
                <xsl:with-param name="n" select="60"/></xsl:call-template></body></html></xsl:template>
              <xsl:template name="t"><xsl:param name="n"/><xsl:if test="$n &gt; 0">
                <xsl:call-template name="t"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>
                <xsl:call-template name="t"><xsl:with-param name="n" select="$n - 1"/></xsl:call-template>
              </xsl:if></xsl:template>
            </xsl:stylesheet>
            """
        try Data(doubling.utf8).write(to: URL(fileURLWithPath: w.path("doubling.xsl")))
        try Data("the previous page".utf8).write(to: URL(fileURLWithPath: w.path("index.html")))
        let start = Date()
        let run = try await CommandRun.feedmerge([
            server.url("/feed.xml"), "-o", w.path("index.html"), "-o", w.path("feed.atom"), "--theme",
            w.path("doubling.xsl"), "--theme-timeout", "1", "--state", w.state,
        ])
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(run.status == 4, "\(run.standardError)")
        let reasons = run.standardError.split(separator: "\n").filter { $0.contains("--theme-timeout") }
        #expect(reasons.count == 1 && reasons[0].contains(w.path("doubling.xsl")), "\(run.standardError)")
        #expect(try String(contentsOfFile: w.path("index.html"), encoding: .utf8) == "the previous page")
        #expect(try String(contentsOfFile: w.path("feed.atom"), encoding: .utf8).contains("Plain entry"))
        // The state was committed and its lock let go: the next run is not held.
        let next = try await CommandRun.feedmerge([
            server.url("/feed.xml"), "-o", w.path("feed.atom"), "--state", w.state,
        ])
        #expect(next.status == 0, "\(next.standardError)")
    }

    func log() async throws -> String {
        String(decoding: try await HTTPClient().fetch(FetchRequest(url: server.url("/log"))).body, as: UTF8.self)
    }
}
