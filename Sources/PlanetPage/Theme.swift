internal import CLibXML2
internal import CLibXSLT
import Foundation

/// A compiled XSLT theme: the default one built into the binary, or a
/// user's file (`--theme FILE.xsl`), compiled once, before anything is
/// fetched, so a broken theme stops the run before it costs anything.
///
/// A theme is compiled first thing in a run, with no network and no file
/// outside its own folder: its `xsl:import` and `xsl:include` are read only
/// from inside that folder (links followed to their real paths), its
/// external entities and DTDs never (`CLibXSLT_compile`). While it runs, it
/// may read no file but itself (`document('')`), write no file, create no
/// folder and use no network (libxslt's security preferences), and it is
/// stopped at its time limit: what it shows comes from the planet document
/// and its parameters.
public final class Theme: @unchecked Sendable {
    // Unchecked: the stylesheet is only read once compiled; libxslt allows
    // one compiled stylesheet to serve transformations on several threads.
    let stylesheet: xsltStylesheetPtr
    /// Where it came from, for messages.
    public let name: String

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Seconds a transformation may take: far more than a page of
    /// thousands of entries needs (well under a second), far less than a
    /// runaway theme would take.
    public static let defaultTimeLimit: Double = 60

    /// How long one transformation may run before it is stopped (`CLibXSLT_applyWithin`).
    public let timeLimit: Double
    /// Whether it is the theme that ships with feedmerge, whose list of
    /// subscriptions a run may make apart (`PageSubscriptions`).
    public let isBuiltIn: Bool

    /// The theme that ships with feedmerge.
    public static func builtIn(timeLimit: Double = defaultTimeLimit) throws(Failure) -> Theme {
        try Theme(
            bytes: Array(DefaultTheme.stylesheet.utf8), url: "feedmerge:default-theme", name: "the default theme",
            timeLimit: timeLimit, isBuiltIn: true)
    }

    /// A user's theme file.
    public static func file(_ path: String, timeLimit: Double = defaultTimeLimit) throws(Failure) -> Theme {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw Failure(description: "--theme \(path): \(reason)")
        }
        let url = URL(fileURLWithPath: path).absoluteString
        return try Theme(bytes: [UInt8](data), url: url, name: path, timeLimit: timeLimit, isBuiltIn: false)
    }

    /// - Parameter url: its file's URL: its includes and imports may be read only from that folder.
    private init(bytes: [UInt8], url: String, name: String, timeLimit: Double, isBuiltIn: Bool) throws(Failure) {
        self.isBuiltIn = isBuiltIn
        self.name = name
        self.timeLimit = timeLimit
        PageSetup.once()
        var messages = CLibXSLT_Messages()
        // libxslt reports compile errors through one process-wide handler: one compile at a time.
        let compiled: xsltStylesheetPtr? = PageSetup.compiling.withLock {
            bytes.withUnsafeBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    CLibXSLT_compile($0, Int32(buffer.count), url, &messages)
                }
            }
        }
        guard let compiled else {
            throw Failure(description: "--theme \(name): not a usable XSLT stylesheet: \(messages.summary)")
        }
        // A text theme's output would go into the page as it is, feed text unescaped.
        if let method = compiled.pointee.method, String(cString: method) == "text" {
            xsltFreeStylesheet(compiled)
            throw Failure(
                description: "--theme \(name): its output method is text; a page theme must make a document "
                    + "(xsl:output method=\"xml\" or \"html\"), which feedmerge writes as HTML")
        }
        CLibXSLT_recoverComments(compiled)
        stylesheet = compiled
    }

    deinit { xsltFreeStylesheet(stylesheet) }

    /// `60 s`, `0.5 s`.
    static func text(seconds: Double) -> String {
        seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

extension CLibXSLT_Messages {
    /// The collected messages on one line (`CLibXSLT_summary`).
    var summary: String {
        var copy = self
        let line = String(cString: CLibXSLT_summary(&copy))
        return line.isEmpty ? "no reason given" : line
    }
}

/// libxml2's and libxslt's process-wide setup, done once.
enum PageSetup {
    /// Held while a theme compiles (libxslt's compile errors go to a process-wide handler).
    static let compiling = NSLock()

    private static let done: Void = {
        // libxml2's entity loader refuses every load before anything is compiled.
        CLibXML2_initialize()
        exsltRegisterAll()
        CLibXSLT_collectMessages(nil)  // libxslt's default handler would print to stderr
    }()

    static func once() { _ = done }
}
