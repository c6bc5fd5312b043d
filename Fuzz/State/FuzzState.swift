import Basics
import FeedModel
import FeedParse
import Foundation

@testable import FeedState
@testable import StateDocument

/// The state's codecs: the bytes a damaged or hostile state file may hold,
/// and the entries a hostile feed may give the store. The first byte picks
/// the boundary; the rest is its input.
/// - 0, a feed document: every entry parsed from it survives being stored
///   (`EntryCompression`: codec, LZ4, checksum) and read back, equal; its
///   feed's document (`FeedEntries`) and metadata (`FeedMetadataCodec`) too.
/// - 1, an entry's plain encoding: what decodes encodes and decodes again to
///   the same entry, and reads the same behind a valid compressed header;
///   skimming it (`EntryCodec.skim`) fails exactly where decoding does.
/// - 2, a stored entry or a feed's document as found in the file: read
///   without trapping; a document that reads, written back, reads back the
///   same, and every operation a run does on it (listing, lazy listing,
///   summary, upsert, prune) holds; a feed's `StoredDates` as found in
///   the file (`entry_dates`): what decodes round-trips.
/// - 3, stored feed metadata: what decodes round-trips.
///
/// With `FEEDMERGE_FUZZ_EMIT=DIR`, each feed of case 0 also writes what it
/// stored as inputs of cases 1-3 into DIR: `scripts/fuzz` makes the seeds of
/// the stored forms this way, from the feed seeds.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzState(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0: storedFeed(rest)
    case 1: plainEntry(rest)
    case 2: storedBytes(rest)
    default: metadata(rest)
    }
    return 0
}

private func storedFeed(_ bytes: [UInt8]) {
    let feed: ParsedFeed
    do {
        feed = try FeedParser.parse(bytes, options: .init(url: "http://fuzz.test/feed"))
    } catch {
        return  // not a feed: nothing to store (the parse target covers refusals)
    }
    let prepared = PreparedEntries(feed.entries)
    var document = FeedEntries()
    document.upsert(prepared, now: 1_700_000_000)
    guard let read = FeedEntries(document: document.document) else { fatalError("a written document does not read") }
    var unreadable = 0
    let back = read.entries(notOlderThan: nil, except: [], unreadable: &unreadable)
    guard unreadable == 0 else { fatalError("\(unreadable) stored entries do not read back") }
    let listed = Set(prepared.keys).count
    guard back.count == listed else { fatalError("\(listed) keys stored, \(back.count) read back") }
    for (entry, stored) in zip(feed.entries, prepared.stored) where EntryCompression.entry(stored[...]) != entry {
        fatalError("an entry stored and read back differs: \(entry)")
    }
    if FeedMetadataCodec.decode(FeedMetadataCodec.encode(feed.metadata)) != feed.metadata {
        fatalError("feed metadata stored and read back differs: \(feed.metadata)")
    }
    if let folder = ProcessInfo.processInfo.environment["FEEDMERGE_FUZZ_EMIT"] {
        var seeds = [[2] + document.document, [3] + FeedMetadataCodec.encode(feed.metadata)]
        seeds += feed.entries.prefix(4).map { [1] + EntryCodec.encode($0) }
        seeds += prepared.stored.prefix(4).map { [2] + $0 }
        for seed in seeds {
            var hash = FNV1a()
            hash.add(seed)
            let name = String(hash.value, radix: 16)
            guard FileManager.default.createFile(atPath: "\(folder)/\(name)", contents: Data(seed)) else {
                fatalError("cannot write a seed into \(folder)")
            }
        }
    }
}

private func plainEntry(_ bytes: [UInt8]) {
    // An entry served lazily is skimmed first: skimming must fail exactly where decoding does.
    let skimmed = EntryCodec.skim(bytes)
    guard let entry = EntryCodec.decode(bytes) else {
        if skimmed != nil { fatalError("bytes that do not decode skim as an entry") }
        return
    }
    guard let skimmed, skimmed.id == entry.id, skimmed.link == entry.link, skimmed.published == entry.published,
        skimmed.updated == entry.updated
    else { fatalError("an entry that decodes skims differently: \(entry)") }
    let encoded = EntryCodec.encode(entry)
    guard EntryCodec.decode(encoded) == entry else { fatalError("decode(encode(e)) != e for \(entry)") }
    if let packed = EntryCompression.compress(bytes), EntryCompression.entry(packed[...]) != entry {
        fatalError("the compressed form of a decodable entry reads differently")
    }
}

private func storedBytes(_ bytes: [UInt8]) {
    _ = EntryCompression.entry(bytes[...])
    // A feed's record's `entry_dates`, as found in the file: what decodes round-trips.
    if let dates = StoredDates(encoded: bytes), StoredDates(encoded: dates.encoded) != dates {
        fatalError("decode(encode(d)) != d for \(dates)")
    }
    guard var document = FeedEntries(document: bytes) else { return }
    // Written back, a document is canonical (shortest varints, valid UTF-8): from then on it is a fixpoint.
    let written = document.document
    guard let again = FeedEntries(document: written), again.document == written else {
        fatalError("a document that reads, written back, does not read back the same")
    }
    var unreadable = 0
    let listed = document.entries(notOlderThan: nil, except: [], unreadable: &unreadable)
    guard listed.count + unreadable == document.rows.count || Set(document.rows.map(\.key)).count < document.rows.count
    else { fatalError("\(document.rows.count) rows, \(listed.count) listed, \(unreadable) unreadable") }
    // Served lazily, the same entries in the same order (what a run served from the state reads).
    var lazyUnreadable = 0
    let lazy = document.lazyEntries(notOlderThan: nil, unreadable: &lazyUnreadable)
    guard lazyUnreadable == unreadable, lazy.map(\.key) == listed.map(\.key),
        zip(lazy, listed).allSatisfy({ $0.entry == $1.entry && $0.sighting == $1.sighting })
    else { fatalError("the document's entries read lazily differ from those read whole") }
    _ = document.summary
    // What bounds the entries' dates is the same for the document written back.
    guard again.dates(pivot: 1_750_000_000) == document.dates(pivot: 1_750_000_000) else {
        fatalError("a document written back bounds its dates differently")
    }
    let entries = listed.prefix(3).map(\.entry)
    document.upsert(PreparedEntries(entries), now: 1_800_000_000)
    _ = document.prune(
        by: RetentionRule(keepDays: 578, keepPerFeed: 2, now: Timestamp(secondsSince1970: 1_800_000_000)))
    guard FeedEntries(document: document.document) != nil else { fatalError("an updated document does not read") }
}

private func metadata(_ bytes: [UInt8]) {
    guard let metadata = FeedMetadataCodec.decode(bytes) else { return }
    guard FeedMetadataCodec.decode(FeedMetadataCodec.encode(metadata)) == metadata else {
        fatalError("decode(encode(m)) != m for \(metadata)")
    }
}
