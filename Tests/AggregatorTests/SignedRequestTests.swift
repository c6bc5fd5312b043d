import Foundation
import TestSupport
import Testing

/// Web Bot Auth through the command line, judged by implementations that are
/// not feedmerge's: real feedmerge runs fetch from a server on 127.0.0.1
/// that records every request's headers (Server/botauth_server.py); the key
/// is made by `feedmerge key new` and published by `feedmerge key
/// directory`; Server/verify_web_bot_auth.py verifies the requests and the
/// directory's response with PyPI's http-message-signatures (RFC 9421),
/// resolving each keyid by jwcrypto's JWK thumbprint (RFC 7638), and checks
/// that tampered copies are rejected. `scripts/setup --test` installs both.
@Suite(.serialized) struct SignedRequestTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server")
    static let server = LocalServer.start(folder.appendingPathComponent("botauth_server.py"))
    static let agent = "https://planet.example.org"

    /// A key made by `feedmerge key new`, its thumbprint, and its directory and headers.
    struct Key {
        let workspace: StateTests.Workspace
        let thumbprint: String
        var file: String { workspace.path("signing.pem") }
        var directory: String { workspace.path("directory.json") }
        var headers: String { workspace.path("directory.headers") }

        init(_ name: String) async throws {
            workspace = try StateTests.Workspace(name)
            let made = try await CommandRun.feedmerge(["key", "new", workspace.path("signing.pem")])
            #expect(made.status == 0, "\(made.standardError)")
            thumbprint = made.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            let published = try await CommandRun.feedmerge([
                "key", "directory", "--signature-agent", SignedRequestTests.agent, "-o",
                workspace.path("directory.json"),
                "--headers", workspace.path("directory.headers"), workspace.path("signing.pem"),
            ])
            #expect(published.status == 0, "\(published.standardError)")
        }
    }

    /// What the verifier found: one report per request recorded under `prefix`, and the directory's.
    /// `directory` and `headers` are the key's files unless given (a URL, and "-").
    static func verify(_ prefix: String, key: Key, directory: String? = nil, headers: String? = nil) async throws -> (
        requests: [[String: Any]], directory: [String: Any]
    ) {
        let python = try #require(ExternalProgram("python3"), "python3 is needed (scripts/setup --test)")
        let run = try await python.run([
            folder.appendingPathComponent("verify_web_bot_auth.py").path, server.url("/log?prefix=/\(prefix)/"),
            directory ?? key.directory, headers ?? key.headers, agent,
        ])
        try #require(
            run.status == 0,
            "the verifier did not run (scripts/setup --test installs http-message-signatures and jwcrypto): \(run.standardError)"
        )
        let report = try #require(
            try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        let thumbprints = try #require(report["thumbprints"] as? [String: String])
        #expect(thumbprints == [key.thumbprint: key.thumbprint], "jwcrypto's thumbprint is the kid and the keyid")
        return (
            try #require(report["requests"] as? [[String: Any]]), try #require(report["directory"] as? [String: Any])
        )
    }

    /// The parameters and covered components of a verified request's one signature.
    static func signature(_ request: [String: Any]) throws -> (covered: [String], parameters: [String: Any]) {
        let results = try #require(request["results"] as? [[String: Any]])
        try #require(results.count == 1)
        return (
            try #require(results[0]["covered"] as? [String]), try #require(results[0]["parameters"] as? [String: Any])
        )
    }

    static func tampered(_ request: [String: Any]) -> [String: String] {
        request["tampered"] as? [String: String] ?? [:]
    }

    @Test func theVerifierAcceptsEachRequestAndTheDirectoryAndRejectsTamperedCopies() async throws {
        let key = try await Key("signed-requests")
        let mode = try FileManager.default.attributesOfItem(atPath: key.file)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the private key is its owner's only")
        #expect(key.thumbprint.count == 43, "a base64url SHA-256: \(key.thumbprint)")

        let started = Int(Date().timeIntervalSince1970)
        let run = try await CommandRun.feedmerge([
            Self.server.url("/merge/feed.xml"), Self.server.url("/merge/moved.xml"), "--sign-with", key.file,
            "--signature-agent", Self.agent, "--no-state", "-q", "-o", key.workspace.path("out.atom"),
        ])
        #expect(run.status == 0, "\(run.standardError)")

        let (requests, directory) = try await Self.verify("merge", key: key)
        // feed.xml; moved.xml, answered 301, and feed.xml again where it led (the same authority).
        #expect(
            requests.map { $0["path"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") } == [
                "/merge/feed.xml", "/merge/feed.xml", "/merge/moved.xml",
            ])
        for request in requests {
            #expect(request["verified"] as? Bool == true, "\(request)")
            #expect(request["signature_agent"] as? String == Self.agent)
            let (covered, parameters) = try Self.signature(request)
            #expect(covered == [#""@authority""#, #""signature-agent""#, #""@signature-params""#])
            #expect(parameters["tag"] as? String == "web-bot-auth")
            #expect(parameters["alg"] as? String == "ed25519")
            #expect(parameters["keyid"] as? String == key.thumbprint)
            #expect((parameters["nonce"] as? String)?.count == 43)
            let created = try #require(parameters["created"] as? Int)
            #expect(created >= started - 1 && created <= Int(Date().timeIntervalSince1970) + 1)
            #expect(parameters["expires"] as? Int == created + 300)
            #expect(
                Self.tampered(request) == [
                    "authority": "rejected", "created": "rejected", "signature": "rejected",
                    "signature-agent": "rejected",
                ])
        }

        #expect(directory["verified"] as? Bool == true, "\(directory)")
        #expect(directory["content_type"] as? String == "application/http-message-signatures-directory+json")
        let results = try #require(directory["results"] as? [[String: Any]])
        let parameters = try #require(results.first?["parameters"] as? [String: Any])
        #expect(parameters["tag"] as? String == "http-message-signatures-directory")
        #expect(parameters["keyid"] as? String == key.thumbprint)
        #expect(results.first?["covered"] as? [String] == [#""@authority";req"#, #""@signature-params""#])
        #expect(Self.tampered(directory) == ["authority": "rejected"])
    }

    static let nginx = ExternalProgram("nginx")

    /// The directory served by nginx with the directives `--headers-format nginx` wrote, as an
    /// operator serves it, is what the verifier accepts.
    @Test(.tags(.externalProgram), .enabled(if: nginx != nil, "nginx is not installed"))
    func theDirectoryServedByNginxWithTheWrittenDirectivesVerifies() async throws {
        let key = try await Key("signed-nginx")
        let wellKnown = key.workspace.path("site/.well-known")
        try FileManager.default.createDirectory(atPath: wellKnown, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: key.workspace.path("nginx"), withIntermediateDirectories: true)
        let include = key.workspace.path("directory.conf")
        let written = try await CommandRun.feedmerge([
            "key", "directory", "--signature-agent", Self.agent, "-o", wellKnown + "/http-message-signatures-directory",
            "--headers", include, "--headers-format", "nginx", key.file,
        ])
        #expect(written.status == 0, "\(written.standardError)")
        let server = try await LocalServer.started(
            script: Self.folder.appendingPathComponent("nginx_directory.py"),
            arguments: [key.workspace.path("site"), include, key.workspace.path("nginx")])
        let (requests, directory) = try await Self.verify(
            "nothing", key: key, directory: server.url("/.well-known/http-message-signatures-directory"),
            headers: "-")
        #expect(requests.isEmpty)
        #expect(directory["verified"] as? Bool == true, "\(directory)")
        #expect(directory["content_type"] as? String == "application/http-message-signatures-directory+json")
        #expect(Self.tampered(directory) == ["authority": "rejected"])
    }

    /// `sign_with` and `signature_agent` in a planet's `[Planet]` section sign its requests, and
    /// reach no template.
    @Test func aPlanetSignsWithTheKeyItsConfigurationNames() async throws {
        let key = try await Key("signed-planet")
        let theme = key.workspace.path("theme")
        try FileManager.default.createDirectory(atPath: theme, withIntermediateDirectories: true)
        try "[Planet]\ntemplate_files = index.html.tmpl\n".write(
            toFile: theme + "/config.ini", atomically: true, encoding: .utf8)
        try "[<TMPL_VAR sign_with>]<TMPL_LOOP Items><p><TMPL_VAR title></p></TMPL_LOOP>".write(
            toFile: theme + "/index.html.tmpl", atomically: true, encoding: .utf8)
        try """
        [Planet]
        name = Signed
        output_theme = theme
        output_dir = site
        sign_with = signing.pem
        signature_agent = \(Self.agent)

        [\(Self.server.url("/planet/feed.xml"))]
        name = One
        """.write(toFile: key.workspace.path("planet.ini"), atomically: true, encoding: .utf8)
        let run = try await CommandRun.feedmerge(["planet", "--no-state", "-q", key.workspace.path("planet.ini")])
        #expect(run.status == 0, "\(run.standardError)")
        let page = try String(contentsOfFile: key.workspace.path("site/index.html"), encoding: .utf8)
        #expect(page.hasPrefix("[]<p>One</p>"), "\(page)")
        let (requests, _) = try await Self.verify("planet", key: key)
        try #require(requests.count == 1)
        #expect(requests[0]["verified"] as? Bool == true, "\(requests[0])")
        #expect(requests[0]["signature_agent"] as? String == Self.agent)
    }

    @Test func withoutSignatureAgentTheSignatureCoversTheAuthority() async throws {
        let key = try await Key("signed-fetch")
        let run = try await CommandRun.feedmerge(["fetch", "--sign-with", key.file, Self.server.url("/fetch/feed.xml")])
        #expect(run.status == 0, "\(run.standardError)")
        let (requests, _) = try await Self.verify("fetch", key: key)
        try #require(requests.count == 1)
        #expect(requests[0]["verified"] as? Bool == true, "\(requests[0])")
        #expect(requests[0]["signature_agent"] == nil)
        #expect(try Self.signature(requests[0]).covered == [#""@authority""#, #""@signature-params""#])
        #expect(
            Self.tampered(requests[0]) == ["authority": "rejected", "created": "rejected", "signature": "rejected"])
    }

    /// With the default host spacing each hop of a redirect is a request of its own, signed for its
    /// own authority; with `--host-spacing 0` libcurl follows with the headers it was given, and the
    /// signature made for the first authority reaches the second, where it does not verify
    /// (docs/politeness.md).
    @Test func aRedirectToAnotherAuthorityIsSignedForItUnlessLibcurlFollowsIt() async throws {
        let key = try await Key("signed-redirect")
        let port = Self.server.ports[0]
        for (prefix, spacing, verified) in [
            ("away", [String](), [true, true]), ("curl", ["--host-spacing", "0"], [true, false]),
        ] {
            let run = try await CommandRun.feedmerge(
                ["fetch", "--sign-with", key.file, "--signature-agent", Self.agent] + spacing + [
                    Self.server.url("/\(prefix)/elsewhere.xml")
                ], atDefaults: true)
            #expect(run.status == 0, "\(run.standardError)")
            let (requests, _) = try await Self.verify(prefix, key: key)
            #expect(
                requests.map { $0["authority"] as? String } == ["127.0.0.1:\(port)", "localhost:\(port)"], "\(prefix)")
            #expect(requests.map { $0["verified"] as? Bool } == verified, "\(prefix): \(requests)")
            if verified == [true, true] {
                let nonces = try requests.map { try Self.signature($0).parameters["nonce"] as? String }
                #expect(nonces[0] != nonces[1], "each hop has its own nonce")
            }
        }
    }

    @Test func withoutAKeyNothingIsSigned() async throws {
        let run = try await CommandRun.feedmerge(["fetch", Self.server.url("/plain/feed.xml")])
        #expect(run.status == 0, "\(run.standardError)")
        let python = try #require(ExternalProgram("python3"))
        let log = try await python.run([
            "-c", "import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())",
            Self.server.url("/log?prefix=/plain/"),
        ])
        #expect(log.standardOutput.contains("/plain/feed.xml"))
        for header in ["Signature", "Signature-Input", "Signature-Agent"] {
            #expect(!log.standardOutput.contains("\"\(header)\""), "\(header) sent without a key")
        }
    }

    @Test func usageErrorsNameWhatIsMissing() async throws {
        let agentAlone = try await CommandRun.feedmerge([
            "fetch", "--signature-agent", Self.agent, "http://127.0.0.1:1/",
        ])
        #expect(agentAlone.status == 2)
        #expect(agentAlone.standardError.contains("add --sign-with KEYFILE"))
        let http = try await CommandRun.feedmerge([
            "fetch", "--sign-with", "/nonexistent.pem", "http://127.0.0.1:1/",
        ])
        #expect(http.status == 2)
        #expect(http.standardError.contains("--sign-with: reading /nonexistent.pem"))
        let key = try await Key("signed-usage")
        let plain = try await CommandRun.feedmerge(["key", "new", key.file])
        #expect(plain.status == 3, "an existing key is never replaced")
        #expect(plain.standardError.contains("File exists"))
        let insecure = try await CommandRun.feedmerge([
            "key", "directory", "--signature-agent", "http://planet.example.org", "-o", key.directory, key.file,
        ])
        #expect(insecure.status == 2)
        #expect(insecure.standardError.contains("give an https URL"))
    }
}
