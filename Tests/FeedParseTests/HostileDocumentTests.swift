import FeedModel
import FeedParse
import Foundation
import Glibc
import TestSupport
import Testing

/// Hostile and broken documents: each gives a feed or a clear error within
/// a second, in bounded memory, without crashing and without loading
/// anything from outside.
@Suite(.serialized) struct HostileDocumentTests {
    /// Parses and checks the time and memory bounds; returns what came out.
    @discardableResult
    func parse(_ bytes: [UInt8], contentType: String? = nil) -> Result<ParsedFeed, ParseError> {
        let clock = ContinuousClock()
        let start = clock.now
        let result = Result { () throws(ParseError) in
            try FeedParser.parse(bytes, options: .init(contentType: contentType))
        }
        let elapsed = clock.now - start
        // The attacks guarded against take minutes; a loaded machine may stretch a fair parse to
        // seconds, and a sanitizer's runtime several times more.
        #expect(elapsed < .seconds(5 * SanitizerRuntime.timeScale), "took \(elapsed)")
        #expect(peakResidentMegabytes() < 1024, "peak RSS \(peakResidentMegabytes()) MB")
        if case .failure(let error) = result { #expect(!error.message.isEmpty) }
        return result
    }

    func peakResidentMegabytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss / 1024
    }

    func rss(_ itemTitle: String, prolog: String = "") -> [UInt8] {
        Array(
            "\(prolog)<rss version=\"2.0\"><channel><title>t</title><item><title>\(itemTitle)</title></item></channel></rss>"
                .utf8)
    }

    @Test func billionLaughsIsNotExpanded() throws {
        var subset = "<!ENTITY lol \"lol\">"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            subset += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        let feed = try parse(rss("&lol9;", prolog: "<?xml version=\"1.0\"?><!DOCTYPE rss [\(subset)]>")).get()
        let title = try #require(feed.entries.first?.title?.value)
        #expect(title.count < 100)
    }

    @Test func quadraticBlowupIsCapped() throws {
        let big = String(repeating: "a", count: 1000)
        let references = String(repeating: "&a;", count: 50_000)
        let feed = try parse(rss(references, prolog: "<!DOCTYPE rss [<!ENTITY a \"\(big)\">]>")).get()
        let title = try #require(feed.entries.first?.title?.value)
        #expect(title.utf8.count < 2 << 20)
        #expect(feed.warnings.contains { $0.contains("unexpanded") })
    }

    @Test func externalEntityToAFileIsNotLoaded() throws {
        let feed = try parse(rss("&xxe;", prolog: "<!DOCTYPE rss [<!ENTITY xxe SYSTEM \"file:///etc/hostname\">]>"))
            .get()
        let hostname = (try? String(contentsOfFile: "/etc/hostname", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let title = feed.entries.first?.title?.value ?? ""
        if let hostname, !hostname.isEmpty { #expect(!title.contains(hostname)) }
        #expect(title == "&xxe;")
    }

    @Test func externalEntityAndDTDToTheNetworkAreNotFetched() throws {
        let canary = try Canary()
        let url = "http://127.0.0.1:\(canary.port)/"
        parse(rss("&xxe;", prolog: "<!DOCTYPE rss [<!ENTITY xxe SYSTEM \"\(url)entity\">]>"))
        parse(rss("x", prolog: "<!DOCTYPE rss SYSTEM \"\(url)dtd\">"))
        parse(rss("&e;", prolog: "<!DOCTYPE rss [<!ENTITY % p SYSTEM \"\(url)param\"> %p;]>"))
        #expect(canary.connections() == 0)
    }

    @Test func deepNestingIsBounded() {
        let open = String(repeating: "<x>", count: 10_000)
        let close = String(repeating: "</x>", count: 10_000)
        parse(rss("deep\(open)\(close)"))
        parse(Array("<rss><channel>\(open)".utf8))
    }

    @Test func invalidUTF8IsReadAsWindows1252() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"utf-8\"?>".utf8) + rss("caf\u{1}")
        bytes[bytes.firstIndex(of: 1)!] = 0xE9  // Latin-1 é in a document declared UTF-8
        let feed = try parse(bytes).get()
        #expect(feed.entries.first?.title?.value == "café")
        #expect(feed.warnings.contains { $0.contains("not valid UTF-8") })
    }

    @Test func unknownDeclaredEncodingDoesNotFailTheFeed() throws {
        let feed = try parse(Array("<?xml version=\"1.0\" encoding=\"x-no-such-charset\"?>".utf8) + rss("plain")).get()
        #expect(feed.entries.first?.title?.value == "plain")
        #expect(feed.warnings.contains { $0.contains("unknown encoding") })
    }

    @Test func byteOrderMarkWinsOverTheDeclaration() throws {
        let body = Array("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>".utf8) + rss("caf\u{E9}")
        let feed = try parse([0xEF, 0xBB, 0xBF] + body).get()
        #expect(feed.entries.first?.title?.value == "café")
    }

    @Test func httpCharsetWinsOverTheDeclaration() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"utf-8\"?>".utf8) + rss("\u{1}100")
        bytes[bytes.firstIndex(of: 1)!] = 0x80  // windows-1252 euro sign
        let feed = try parse(bytes, contentType: "application/rss+xml; charset=windows-1252").get()
        #expect(feed.entries.first?.title?.value == "€100")
    }

    @Test func controlCharactersAndNULReferencesAreDropped() throws {
        let feed = try parse(rss("a\u{1}b&#0;c&#x1F;d\u{B}e")).get()
        #expect(feed.entries.first?.title?.value == "abcde")
    }

    @Test func emptyBodyIsAClearError() {
        guard case .failure(let error) = parse([]) else {
            Issue.record("empty body gave a feed")
            return
        }
        #expect(error.message.contains("empty"))
        guard case .failure = parse(Array("   \n ".utf8)) else {
            Issue.record("blank body gave a feed")
            return
        }
    }

    @Test func whitespaceBeforeTheDeclarationIsTolerated() throws {
        let feed = try parse(Array("\n\n  <?xml version=\"1.0\"?>".utf8) + rss("ok")).get()
        #expect(feed.entries.first?.title?.value == "ok")
    }

    @Test func twoRootsKeepTheFirst() throws {
        let feed = try parse(rss("first") + rss("second")).get()
        #expect(feed.entries.map { $0.title?.value } == ["first"])
    }

    @Test func anHTMLPageIsNotAFeed() {
        let page = Array("<!DOCTYPE html><html><head><title>Hi</title></head><body><p>page</p></body></html>".utf8)
        guard case .failure(let error) = parse(page) else {
            Issue.record("HTML page gave a feed")
            return
        }
        #expect(error.message.contains("HTML page"))
    }

    @Test func truncatedFeedKeepsEveryCompleteItem() throws {
        let text =
            "<rss version=\"2.0\"><channel><title>t</title><item><title>one</title></item>"
            + "<item><title>two</title></item><item><title>thr"
        let feed = try parse(Array(text.utf8)).get()
        #expect(feed.entries.prefix(2).map { $0.title?.value } == ["one", "two"])
        #expect(feed.warnings.contains { $0.contains("not well-formed") })
    }

    @Test func aTwelveMegabyteTextNodeIsBounded() {
        parse(rss(String(repeating: "x", count: 12 << 20)))
    }

    @Test func aSixtyThousandCharacterElementNameIsBounded() {
        let name = String(repeating: "n", count: 60_000)
        parse(Array("<rss><channel><item><\(name)>v</\(name)><title>t</title></item></channel></rss>".utf8))
    }
}

/// A listening socket on 127.0.0.1 that counts connection attempts, to
/// prove nothing was fetched.
final class Canary {
    let socket: Int32
    let port: Int

    init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
                bind(descriptor, pointer, length) == 0 && listen(descriptor, 16) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw POSIXError(.EADDRINUSE)
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        _ = fcntl(descriptor, F_SETFL, O_NONBLOCK)
    }

    /// Connections accepted so far (non-blocking).
    func connections() -> Int {
        var count = 0
        while case let client = accept(socket, nil, nil), client >= 0 {
            close(client)
            count += 1
        }
        return count
    }

    deinit { close(socket) }
}
