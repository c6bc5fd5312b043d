import Basics
import FeedModel

/// The site a feed speaks for: the registrable domains (`RegistrableDomain`)
/// of its address and of its own link, one or two. A name of an entry (an id
/// or a link) belongs to the feed when the host it names has one of them:
/// `https://blog.example.com/feed.xml` speaks for
/// `http://www.example.com/2024/post` and `tag:example.com,2024:post`, not
/// for `http://other.example/post` nor `urn:uuid:…`.
struct FeedSite: Sendable {
    let domains: [String]

    init(_ source: FeedSource) {
        var domains: [String] = []
        for url in [source.feedURL, source.link ?? ""] {
            if let domain = RegistrableDomain.of(uri: url), !domains.contains(domain) { domains.append(domain) }
        }
        self.domains = domains
    }

    /// Whether a host (`RegistrableDomain.host(ofURI:)` of a name) is this
    /// site's: its registrable domain is one of the site's. The Public Suffix
    /// List is asked only about a host that ends in one of them (a host
    /// `x.s3.amazonaws.com` ends in `amazonaws.com` and is not its), so
    /// names of other sites cost a comparison.
    func owns(host: String?) -> Bool {
        guard let host else { return false }
        for domain in domains {
            if host == domain { return true }
            let count = domain.utf8.count
            let tail = host.utf8.dropLast(count)
            if tail.last == UInt8(ascii: "."), host.utf8.suffix(count).elementsEqual(domain.utf8) {
                return RegistrableDomain.of(host: host) == domain
            }
        }
        return false
    }

    /// Whether two feeds are of one site (a person's feed and a category feed of the same blog).
    func overlaps(_ other: FeedSite) -> Bool {
        domains.contains { other.domains.contains($0) }
    }
}

/// What a feed's copy of an entry can claim when it meets another feed's
/// copy of it (the same id, else the same link).
enum Standing: Int, Comparable {
    /// Neither a name the copies share nor the copy's own link is the feed's
    /// site's: a copy of someone else's post (an aggregator's, a planet's).
    case copy
    /// No name they share is its site's, but its own link is: a post of that
    /// site whose shared id belongs to no site (`urn:uuid:…`, another site's `tag:`).
    case firstParty
    /// A name the copies share is its feed's site's: its site published it.
    case owner

    static func < (a: Standing, b: Standing) -> Bool { a.rawValue < b.rawValue }
}

/// How two feeds' copies of one entry meet.
enum Meeting: Equatable {
    /// One entry: the kept copy (`newKept`: the incoming one), the other's feed credited (`alsoIn`).
    case merged(newKept: Bool)
    /// Two entries, each its own feed's; the shared names lead to the
    /// incoming copy's (`newHoldsNames`) or to the one already in.
    case apart(newHoldsNames: Bool)

    /// Decides the meeting. Without ownership the copy first in the
    /// timeline's order (`newIsFirst`: earlier date, then list order) is
    /// kept. A copy never hides one with a better standing: the better copy
    /// absorbs a lesser one dated at or after it (a re-publication); a
    /// lesser copy dated before it cannot be a copy of it and stays apart.
    /// Equal standings merge, except two sites' own posts that
    /// share only an id no site owns (`sameSite` false): they stay apart.
    static func decide(new: Standing, existing: Standing, sameDate: Bool, newIsFirst: Bool, sameSite: Bool)
        -> Meeting
    {
        let (first, second) = newIsFirst ? (new, existing) : (existing, new)
        if second > first {
            return sameDate ? .merged(newKept: !newIsFirst) : .apart(newHoldsNames: !newIsFirst)
        }
        if first == .firstParty, second == .firstParty, !sameSite { return .apart(newHoldsNames: newIsFirst) }
        return .merged(newKept: newIsFirst)
    }
}
