import FeedEmit

/// What one `-o` holds: a merged feed, the planet page, or the
/// subscription list.
enum OutputKind: Equatable, CustomStringConvertible {
    case feed(OutputFormat)
    /// The planet page (HTML, through a theme).
    case page
    /// The subscriptions as OPML.
    case subscriptionList

    /// The words `--format` takes.
    enum Name: String, CaseIterable {
        case atom, rss, json, html, opml
    }

    init(_ name: Name) {
        switch name {
        case .atom: self = .feed(.atom)
        case .rss: self = .feed(.rss)
        case .json: self = .feed(.json)
        case .html: self = .page
        case .opml: self = .subscriptionList
        }
    }

    var description: String {
        switch self {
        case .feed(let format): format.rawValue
        case .page: "html"
        case .subscriptionList: "opml"
        }
    }
}
