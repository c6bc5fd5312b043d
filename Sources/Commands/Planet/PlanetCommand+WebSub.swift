import Foundation
import VenusConfig

extension PlanetCommand {
    /// Venus's WebSub publishing (`planet/publish.py`): with `pubsubhubbub_hub` and `link` set,
    /// each written file named in `pubsubhubbub_feeds` has `link` joined with its name as its
    /// address, and the hub is told of it when a run changes it. The templates name the hub
    /// themselves (`pubsubhubbub_hub` reaches them).
    static func placeWebSub(_ planet: VenusConfiguration, into options: inout MergeOptions) {
        let settings = planet.planet
        if let hub = settings["pubsubhubbub_hub"], !hub.isEmpty, !options.webSub.hubs.contains(hub) {
            options.webSub.hubs.append(hub)
        }
        guard !options.webSub.hubs.isEmpty, let link = settings["link"], !link.isEmpty else { return }
        let names = (settings["pubsubhubbub_feeds"] ?? "atom.xml rss10.xml rss20.xml").split(
            whereSeparator: \.isWhitespace
        ).map(String.init)
        for output in options.outputs {
            let name = (output.path as NSString).lastPathComponent
            guard names.contains(name), let url = WebSubRequest.join(link, name) else { continue }
            options.webSub.publishedPages[output.path] = url
        }
    }
}
