import FeedModel
import TextOutput

/// `-o subscriptions.opml`: the subscription list as OPML 2.0, for readers
/// to import or a planet to publish. Folders are kept (nested outlines)
/// and so is the list's order: feeds next to each other in the same folder
/// share its outline, and a folder met again after others gets an outline
/// again (merged into the first, its feeds would move ahead of those in
/// between, and the list read back would be in another order). Each feed
/// carries its title as the feed reports it, its address and its home page
/// as the feed gives it.
public enum OPMLWriter {
    /// One feed of the list.
    public struct Feed: Sendable {
        public var title: String
        /// The address to subscribe to.
        public var xmlURL: String
        public var htmlURL: String?
        /// The folders around it, outermost first.
        public var folder: [String]

        public init(title: String, xmlURL: String, htmlURL: String? = nil, folder: [String] = []) {
            self.title = title
            self.xmlURL = xmlURL
            self.htmlURL = htmlURL
            self.folder = folder
        }
    }

    /// - Parameter created: the document's `dateCreated` (the run's time, so
    ///   that the same run writes the same bytes).
    public static func render(
        _ feeds: [Feed], title: String, ownerName: String?, ownerEmail: String?, created: Timestamp
    ) -> [UInt8] {
        var out = TextBuffer(capacity: 256 + feeds.count * 160)
        out.append("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<opml version=\"2.0\">\n  <head>\n")
        out.element("title", title, indent: 4)
        out.element("dateCreated", created, .rfc822, indent: 4)
        out.element("ownerName", ownerName, indent: 4)
        out.element("ownerEmail", ownerEmail, indent: 4)
        out.append("  </head>\n  <body>\n")
        write(Folder.tree(of: feeds), depth: 2, into: &out)
        out.append("  </body>\n</opml>\n")
        return out.bytes
    }

    /// A folder's feeds and subfolders, in the list's order.
    private final class Folder {
        enum Item {
            case feed(Feed)
            case folder(String, Folder)
        }
        var items: [Item] = []

        static func tree(of feeds: [Feed]) -> Folder {
            let root = Folder()
            for feed in feeds {
                var folder = root
                for name in feed.folder {
                    // The folder continues only while it is the last thing written in its parent.
                    if case .folder(name, let open)? = folder.items.last {
                        folder = open
                    } else {
                        let created = Folder()
                        folder.items.append(.folder(name, created))
                        folder = created
                    }
                }
                folder.items.append(.feed(feed))
            }
            return root
        }
    }

    private static func write(_ folder: Folder, depth: Int, into out: inout TextBuffer) {
        for item in folder.items {
            switch item {
            case .feed(let feed):
                out.emptyElement("outline", indent: depth * 2) {
                    $0.attribute("type", "rss")
                    $0.attribute("text", feed.title)
                    $0.attribute("title", feed.title)
                    $0.attribute("xmlUrl", feed.xmlURL)
                    $0.attribute("htmlUrl", feed.htmlURL)
                }
            case .folder(let name, let inner):
                out.startTag("outline", indent: depth * 2)
                out.attribute("text", name)
                out.attribute("title", name)
                out.append(">\n")
                write(inner, depth: depth + 1, into: &out)
                out.append(spaces: depth * 2)
                out.endTag("outline")
            }
        }
    }
}
