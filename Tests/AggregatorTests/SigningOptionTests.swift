import Foundation
import Testing

@testable import Commands

/// `--sign-with` and `--signature-agent` on the main command (Web Bot Auth).
extension OptionParsingTests {
    @Test func signingOptionsTakeAReadableKeyAndAnHTTPSAgent() async throws {
        let w = try StateTests.Workspace("signing-options")
        #expect(try await CommandRun.feedmerge(["key", "new", w.path("key.pem")]).status == 0)
        let signing = try options([
            "a.opml", "-o", "x.atom", "--signature-agent", "https://planet.example.org", "--sign-with",
            w.path("key.pem"),
        ]).fetch.webBotAuth
        #expect(signing.key != nil)
        #expect(signing.signatureAgent == "https://planet.example.org", "in either order")
        #expect(try options(["a.opml", "-o", "x.atom"]).fetch.webBotAuth.key == nil, "no key, nothing signed")

        #expect(
            error(["a.opml", "-o", "x.atom", "--sign-with", w.path("missing.pem")])?.hasPrefix(
                "--sign-with: reading \(w.path("missing.pem")): cannot be read") == true)
        try "not a key".write(toFile: w.path("notes.txt"), atomically: true, encoding: .utf8)
        #expect(
            error(["a.opml", "-o", "x.atom", "--sign-with", w.path("notes.txt")])?.contains("not a PEM private key")
                == true)
        #expect(
            error(["a.opml", "-o", "x.atom", "--signature-agent", "https://planet.example.org"])
                == "--signature-agent names where the signing key is published: add --sign-with KEYFILE")
        #expect(
            error(["a.opml", "-o", "x.atom", "--signature-agent", "http://planet.example.org"])?.contains(
                "give an https URL") == true)
    }
}
