import FeedEmit
import Foundation

/// `--update-opml`: writes permanent redirects back into the OPML files the
/// subscriptions came from. Only the `xmlUrl` attribute values change; every
/// other byte (structure, comments, other outlines) stays as it was, and
/// the file is replaced atomically.
public enum OPMLRewriter {
    /// - Returns: how many outlines were updated, per file.
    public static func apply(_ reports: [FeedReport]) -> [String: Int] {
        var moves: [String: [(old: String, new: String)]] = [:]
        for report in reports {
            guard let file = report.subscription.opmlFile, let target = report.movedTo,
                target != report.subscription.url
            else { continue }
            moves[file, default: []].append((report.subscription.url, target))
        }
        var updated: [String: Int] = [:]
        for (file, pairs) in moves {
            guard let data = FileManager.default.contents(atPath: file) else { continue }
            var text = String(decoding: data, as: UTF8.self)
            var count = 0
            for (old, new) in pairs {
                for quote in ["\"", "'"] {
                    let from = "xmlUrl=\(quote)\(escape(old))\(quote)"
                    guard text.contains(from) else { continue }
                    text = text.replacingOccurrences(of: from, with: "xmlUrl=\(quote)\(escape(new))\(quote)")
                    count += 1
                }
            }
            if count > 0, (try? AtomicFile.write(text, to: file)) != nil { updated[file] = count }
        }
        return updated
    }

    private static func escape(_ url: String) -> String {
        url.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
            .replacingOccurrences(of: "<", with: "&lt;")
    }
}
