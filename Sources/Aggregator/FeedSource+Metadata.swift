import FeedEmit
import FeedModel
import Subscriptions

extension FeedSource {
    /// A feed's provenance as its metadata gives it, with the subscription's
    /// title and home page where the feed names none.
    ///
    /// The one place a source is built, whether the metadata was just parsed
    /// or comes from the state (a 304, a failure, a deferred fetch): the same
    /// metadata gives the same source, so an unchanged feed gives the same
    /// output bytes.
    init(metadata: FeedMetadata?, subscription: Subscription, feedURL: String) {
        var title = metadata?.title.map { $0.kind == .text ? $0.value : PlainText.from(html: $0.value) }
        if title?.isEmpty != false { title = subscription.title }
        self.init(
            title: title, link: metadata?.link ?? subscription.htmlURL, feedURL: feedURL, id: metadata?.id,
            updated: metadata?.updated ?? metadata?.published, authors: metadata?.authors ?? [],
            categories: metadata?.categories ?? [], folder: subscription.folder,
            icon: metadata?.icon ?? metadata?.logo ?? metadata?.image)
        rights = metadata?.rights
        selfLink = metadata?.selfLink
    }
}
