import FeedEmit
import Foundation

/// What a run asks of WebSub as a publisher (W3C WebSub, sections 4 and 5): the hubs its feeds
/// name beside their own address, and which outputs have an address to tell the hubs of.
struct WebSubRequest: Equatable {
    /// `--hub`, in the order given; Venus's `pubsubhubbub_hub`.
    var hubs: [String] = []
    /// `--public-url`: the address of the folder the outputs are published in, ending in `/`.
    var publicFolder: String?
    /// Outputs of any kind with their public address, by path: `feedmerge planet`'s
    /// `pubsubhubbub_feeds`, each its file name joined to `link`, as Venus joins them.
    var publishedPages: [String: String] = [:]

    /// An `http` or `https` URL with a host, as given.
    /// - Throws: a usage error naming the option when it is not one.
    static func webURL(_ text: String, for option: String) throws(UsageError) -> String {
        guard let parts = URLComponents(string: text), let scheme = parts.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = parts.host, !host.isEmpty
        else {
            throw UsageError("\(option) \(text) is not an http or https URL")
        }
        return text
    }

    /// `name` joined to `base` as a browser resolves a relative reference (Python's `urljoin`,
    /// which Venus uses).
    static func join(_ base: String, _ name: String) -> String? {
        let escaped = name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? name
        return URL(string: escaped, relativeTo: URL(string: base))?.absoluteString
    }
}

extension MergeOptions {
    /// Each output's public address, by path: a page named by `pubsubhubbub_feeds`; a feed's
    /// file name in `--public-url`, else `--self-url`. What its `rel="self"` says and what the
    /// hubs are told of when it changes.
    func publicURLs(kinds: [OutputKind]) -> [String: String] {
        var urls: [String: String] = [:]
        for (output, kind) in zip(outputs, kinds) {
            if let page = webSub.publishedPages[output.path] {
                urls[output.path] = page
            } else if case .feed = kind {
                if let folder = webSub.publicFolder, output.path != "-" {
                    urls[output.path] = WebSubRequest.join(folder, (output.path as NSString).lastPathComponent)
                } else if let selfURL {
                    urls[output.path] = selfURL
                }
            }
        }
        return urls
    }

    /// A hub is told of feeds by their address: some output needs one.
    func checkWebSub(kinds: [OutputKind]) throws(UsageError) {
        guard !webSub.hubs.isEmpty, publicURLs(kinds: kinds).isEmpty else { return }
        throw UsageError(
            "--hub needs the feeds' public address: give --public-url URL (the outputs' folder) or --self-url URL")
    }
}
