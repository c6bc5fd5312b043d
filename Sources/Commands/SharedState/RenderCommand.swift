/// `feedmerge render`: the main job's outputs (feeds, pages, the OPML,
/// `--health`) made from the state alone: nothing fetched, nothing stored.
/// On a shared state, any node renders while workers fetch, and two nodes
/// given the same state, list and `--now` write the same bytes.
enum RenderCommand {
    /// The main command's options, without those that fetch or change the state.
    static let interface: CommandInterface<MergeOptions> = {
        var interface = MergeOptions.interface
        interface.name = "feedmerge render"
        interface.brief = "write the outputs from the state, fetching nothing"
        interface.synopsis = "feedmerge render --state STATE [options] [SOURCE...] -o OUTPUT..."
        interface.summary = """
            Writes every OUTPUT as the main command would, from what the state holds of
            the SOURCEs' feeds: nothing is fetched and nothing in the state changes. With
            a PostgreSQL state that workers keep fetching (feedmerge worker), any machine
            renders the outputs, and two machines rendering the same state with the same
            --now write the same bytes. With no SOURCE, a PostgreSQL state's outputs show
            every feed some run or worker listed in the last 2 days, each under its own
            title. SOURCE and OUTPUT are as for feedmerge.
            """
        let fetching: Set<String> = ["--no-state", "--force", "--due-only", "--fetch-all", "--update-opml"]
        interface.groups = interface.groups.filter { $0.title != "Fetching" }.map { group in
            var group = group
            group.options.removeAll { !fetching.isDisjoint(with: $0.names) }
            return group
        }
        interface.examples = [
            (
                "The planet's page and feed from the workers' state:",
                "feedmerge render --state postgresql://planet@db/planet feeds.opml -o site/index.html -o site/atom.xml"
            ),
            (
                "Every feed the workers fetch, and how each fares, on a node without the list:",
                "feedmerge render --state postgresql://planet@db/planet --health health.json -o all.json"
            ),
        ]
        return interface
    }()

    static func parse(_ arguments: some Sequence<String>) throws(UsageError) -> Request<MergeOptions> {
        let request = try MergeOptions.parse(arguments, interface: interface, needsSource: false)
        guard case .run(var options) = request else { return request }
        guard let statePath = options.statePath else {
            throw UsageError("render needs the state it renders: --state")
        }
        options.renderOnly = true
        if options.rendersWholeState, case .sqlite = StateLocation(statePath) {
            throw UsageError(
                "render without a SOURCE shows the feeds a PostgreSQL state lists; a SQLite state keeps no list: "
                    + "give its SOURCEs")
        }
        return .run(options)
    }
}
