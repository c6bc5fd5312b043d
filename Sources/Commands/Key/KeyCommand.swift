import Foundation
import RequestSigning

/// `feedmerge key new FILE` and `feedmerge key directory KEYFILE...`: the
/// Ed25519 key requests are signed with (Web Bot Auth, `--sign-with`), and
/// the signed key directory to publish at the Signature-Agent's site.
struct KeyCommand {
    var operands: [String] = []
    var signatureAgent: String?
    var output: String?
    var headers: String?
    var headersFormat = DirectoryHeaders.Format.plain
    var validDays = 7

    static let interface = CommandInterface<KeyCommand>(
        name: "feedmerge key",
        brief: "make a signing key; write its key directory",
        synopsis: "feedmerge key new FILE | feedmerge key directory [options] KEYFILE...",
        summary: """
            new FILE writes a new Ed25519 private key (PEM, mode 0600; an existing FILE is
            left alone) and prints its keyid, the JWK SHA-256 thumbprint. directory writes
            the key directory of the KEYFILEs (a JWK set) to -o FILE, to publish at
            https://SITE/.well-known/http-message-signatures-directory, and prints the
            headers to serve it with: its media type and its signature by every key, for
            the site --signature-agent names, valid for --valid-days. Sign requests with
            --sign-with KEYFILE --signature-agent https://SITE. See docs/politeness.md.
            """,
        groups: [
            OptionGroup(
                "Directory",
                [
                    Option(
                        "--signature-agent", value: "URL",
                        help: "the https site the directory is served from (its\nresponse is signed for that host)"
                    ) { $0.signatureAgent = $1 },
                    Option("-o", "--output", value: "FILE", help: "where the directory's JSON is written") {
                        $0.output = $1
                    },
                    Option(
                        "--headers", value: "FILE",
                        help: "write the response headers there (Name: value lines)\ninstead of standard output"
                    ) { $0.headers = $1 },
                    Option(
                        "--headers-format", value: "plain|nginx|apache",
                        help:
                            "Name: value lines, an nginx include for the directory's\nlocation, or an Apache .htaccess for its folder",
                        default: { $0.headersFormat.rawValue }
                    ) { $0.headersFormat = try OptionValue.choice($1, for: "--headers-format") },
                    Option(
                        "--valid-days", value: "N", help: "how long the directory's signatures hold",
                        default: { "\($0.validDays)" }
                    ) { $0.validDays = try OptionValue.positive($1, for: "--valid-days") },
                ])
        ],
        operandName: "FILE",
        operand: { command, operand in command.operands.append(operand) },
        subcommands: ["new", "directory"],
        notes: """
            Exit status: 0 written; 2 usage error, or a key that cannot be read; 3 nothing
            written (the file exists, or cannot be written).
            """,
        examples: [
            ("make a key", "feedmerge key new ~/.config/feedmerge/signing.pem"),
            (
                "write the planet's key directory and its headers",
                "feedmerge key directory --signature-agent https://planet.example.org "
                    + "-o site/.well-known/http-message-signatures-directory "
                    + "--headers site/.well-known/directory.headers ~/.config/feedmerge/signing.pem"
            ),
        ])

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<KeyCommand> {
        let request = try interface.parse(arguments, into: KeyCommand())
        guard case .run(let command) = request else { return request }
        let known = interface.subcommands.joined(separator: ", ")
        guard let subcommand = command.operands.first else { throw UsageError("no subcommand given (\(known))") }
        switch subcommand {
        case "new":
            guard command.operands.count == 2 else { throw UsageError("key new takes one FILE") }
            guard command.signatureAgent == nil, command.output == nil, command.headers == nil else {
                throw UsageError("key new takes no options: they are for key directory")
            }
        case "directory":
            guard command.operands.count >= 2 else { throw UsageError("key directory takes a KEYFILE or more") }
            guard command.output != nil else { throw UsageError("key directory needs -o FILE") }
            guard let agent = command.signatureAgent else {
                throw UsageError(
                    "key directory needs --signature-agent https://SITE: its response is signed for that host")
            }
            var check = WebBotAuth()
            do throws(SigningError) {
                try check.setSignatureAgent(agent)
            } catch {
                throw UsageError("\(error.operation): \(error.reason)")
            }
        default:
            throw UsageError("unknown subcommand \(subcommand) (\(known))")
        }
        return request
    }

    func run() -> Int32 {
        operands[0] == "new" ? makeKey(at: operands[1]) : writeDirectory(of: Array(operands.dropFirst()))
    }

    /// Writes a new key, readable by its owner only, never over an existing file.
    private func makeKey(at path: String) -> Int32 {
        let key: SigningKey
        let pem: String
        do {
            key = try SigningKey.generate()
            pem = try key.pem()
        } catch {
            StandardOutput.error("feedmerge: key: \(error)")
            return ExitStatus.nothingWritten.rawValue
        }
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            StandardOutput.error("feedmerge: key: \(path): \(String(cString: strerror(errno))); nothing written")
            return ExitStatus.nothingWritten.rawValue
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        do {
            try handle.write(contentsOf: Data(pem.utf8))
            try handle.synchronize()
            try handle.close()
        } catch {
            unlink(path)
            StandardOutput.error("feedmerge: key: \(path): \(error.localizedDescription); nothing written")
            return ExitStatus.nothingWritten.rawValue
        }
        StandardOutput.write(key.publicKey.thumbprint + "\n")
        return ExitStatus.success.rawValue
    }

    /// Writes the directory's JSON, and its headers to `--headers` or standard output.
    private func writeDirectory(of files: [String]) -> Int32 {
        var keys: [SigningKey] = []
        for file in files {
            do {
                let key = try SigningKey(contentsOfFile: file)
                if !keys.contains(key) { keys.append(key) }
            } catch {
                StandardOutput.error("feedmerge: key: \(error)")
                return ExitStatus.usage.rawValue
            }
        }
        let directory = KeyDirectory(keys: keys)
        // parse checked the URL: it has a host.
        let authority = RequestAuthority.of(signatureAgent!)!
        let lines: String
        do {
            let created = Int(Date().timeIntervalSince1970)
            let fields = try directory.responseHeaders(
                authority: authority, created: created, lifetime: validDays * 86_400)
            lines = DirectoryHeaders.render(fields, as: headersFormat)
        } catch {
            StandardOutput.error("feedmerge: key: \(error)")
            return ExitStatus.nothingWritten.rawValue
        }
        do {
            try Data(directory.json.utf8).write(to: URL(fileURLWithPath: output!), options: .atomic)
            if let headers { try Data(lines.utf8).write(to: URL(fileURLWithPath: headers), options: .atomic) }
        } catch {
            StandardOutput.error("feedmerge: key: \(error.localizedDescription)")
            return ExitStatus.nothingWritten.rawValue
        }
        if headers == nil { StandardOutput.write(lines) }
        return ExitStatus.success.rawValue
    }
}
