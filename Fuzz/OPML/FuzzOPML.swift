import FeedModel
@testable import Subscriptions

/// A subscription list, any bytes (a file the user was sent, or an OPML
/// URL's answer).
/// - The reader never traps (a document it refuses is an error).
/// - A list it reads, written by `OPMLWriter` (`-o subscriptions.opml`),
///   reads back as the same subscriptions: URLs, titles, home pages, folders.
/// - `--update-opml`'s rewrite of every feed's URL gives a file that still
///   reads, with each subscription it says it rewrote at its new URL, in the
///   same order (one it could not find is reported to the user by `apply`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOPML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var list = SubscriptionList()
    do {
        try OPMLReader.read(bytes, source: "fuzz.opml", into: &list, localFile: nil, namesLocalFiles: false)
    } catch {
        return 0  // refused with an error (line and reason): what a broken list should get
    }
    // A list that does not name local files (one fetched over the network) gives none the right to.
    if let local = list.subscriptions.first(where: \.mayReadLocalFile) {
        fatalError("a fetched list let \(local.url) be read from the disk")
    }
    let subscriptions = list.subscriptions

    let feeds = subscriptions.map {
        OPMLWriter.Feed(title: $0.title ?? $0.url, xmlURL: $0.url, htmlURL: $0.htmlURL, folder: $0.folder)
    }
    let written = OPMLWriter.render(
        feeds, title: list.title ?? "fuzz", ownerName: list.ownerName, ownerEmail: list.ownerEmail,
        created: Timestamp(secondsSince1970: 1_800_000_000))
    let again = read(written, "our own OPML output")
    let expected = subscriptions.map { Facts(url: $0.url, title: $0.title ?? $0.url, htmlURL: $0.htmlURL, folder: $0.folder) }
    let found = again.map { Facts(url: $0.url, title: $0.title ?? $0.url, htmlURL: $0.htmlURL, folder: $0.folder) }
    guard found == expected else { fatalError("written and read back differently:\n\(expected)\n\(found)") }

    // The moved URLs must be told from the list's own: a list that already has one (the fuzzer
    // learns the prefix from the comparisons) says nothing about the rewrite.
    guard !subscriptions.contains(where: { $0.url.lowercased().contains("moved.invalid") }) else { return 0 }
    var moves: [String: String] = [:]
    for (index, subscription) in subscriptions.enumerated() { moves[subscription.url] = movedURL(index) }
    let rewritten = OPMLRewriter.rewrite(bytes, moves: moves)
    let moved = read(rewritten.bytes, "the list with its URLs rewritten").map(\.url).filter { $0.hasPrefix(movedPrefix) }
    // What it could not find to rewrite it says (`apply` reports it); the rest moved, in order.
    let expectedMoves = subscriptions.indices.filter { rewritten.applied.contains(subscriptions[$0].url) }.map(movedURL)
    guard moved == expectedMoves else {
        fatalError("rewriting \(subscriptions.count) URLs gave \(moved)\n\(String(decoding: rewritten.bytes, as: UTF8.self))")
    }
    return 0
}

private struct Facts: Equatable, CustomStringConvertible {
    var url: String
    var title: String
    var htmlURL: String?
    var folder: [String]
    var description: String { "\(url) \(title.debugDescription) \(htmlURL ?? "-") \(folder)" }
}

private let movedPrefix = "http://moved.invalid/fuzz-"
private func movedURL(_ index: Int) -> String { movedPrefix + String(index) }

private func read(_ bytes: [UInt8], _ what: String) -> [Subscription] {
    var list = SubscriptionList()
    do {
        try OPMLReader.read(bytes, source: "again.opml", into: &list, localFile: nil, namesLocalFiles: true)
    } catch {
        fatalError("\(what) does not read: \(error)\n\(String(decoding: bytes, as: UTF8.self))")
    }
    return list.subscriptions
}
