import Basics
import FeedModel

/// Which of two feeds' copies of an entry stands for it: the parts of
/// `Timeline.insert` that ask whose site's names the copies share.
extension Timeline {
    /// How an incoming copy meets another feed's entry (`Meeting.decide`):
    /// each copy's standing is what its own feed's site owns of the names
    /// they share, else of its own link.
    mutating func meeting(
        of source: FeedSource, _ key: TimelineKey, _ names: EntryNames, with existingSource: FeedSource,
        _ existingKey: TimelineKey, sharing shared: SharedNames, newIsFirst: Bool
    ) -> Meeting {
        let newSite = site(of: source, subscription: key.subscription)
        let existingSite = site(of: existingSource, subscription: existingKey.subscription)
        let sharedHosts = [shared.id, shared.link].compactMap { $0.flatMap { RegistrableDomain.host(ofURI: $0.name) } }
        func standing(of site: FeedSite, ownLink: EntryName?) -> Standing {
            if sharedHosts.contains(where: site.owns(host:)) { return .owner }
            if let ownLink, site.owns(host: RegistrableDomain.host(ofURI: ownLink.name)) { return .firstParty }
            return .copy
        }
        return Meeting.decide(
            new: standing(of: newSite, ownLink: names.link),
            existing: standing(of: existingSite, ownLink: namesBySlot[Int(existingKey.slot)].link),
            sameDate: key.date == existingKey.date, newIsFirst: newIsFirst, sameSite: newSite.overlaps(existingSite))
    }

    private mutating func site(of source: FeedSource, subscription: Int32) -> FeedSite {
        if let known = sites[subscription], known.feedURL == source.feedURL { return known.site }
        let made = FeedSite(source)
        sites[subscription] = (source.feedURL, made)
        return made
    }

    /// Adds an incoming copy as an entry of its own beside the other feed's
    /// entry it met. It takes the names it shares with that entry only when
    /// it holds them (`holdsShared`: its feed's copy has the better claim),
    /// and no name another entry holds.
    mutating func addApart(
        _ item: consuming MergedEntry, key: TimelineKey, names: EntryNames, beside existingKey: TimelineKey,
        shared: SharedNames, holdsShared: Bool, make: (@Sendable () -> Entry)?
    ) {
        func takes(_ name: EntryName, _ index: NameIndex, _ sharedName: EntryName?) -> Bool {
            if let sharedName, sharedName.name == name.name { return holdsShared }
            return index[name] == nil
        }
        var own = EntryNames()
        own.id = names.id.flatMap { takes($0, byID, shared.id) ? $0 : nil }
        own.link = names.link.flatMap { takes($0, byLink, shared.link) ? $0 : nil }
        if holdsShared {
            // The entry it met answers to those names no more (nor does whatever replaces it later).
            namesBySlot[Int(existingKey.slot)].drop(shared)
        }
        add(item, key: key, names: own, make: make)
    }
}
