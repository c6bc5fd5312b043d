/// What makes a page from the planet document: an XSLT theme (the built-in
/// one, Venus's `.xslt` templates) or an htmltmpl template (Planet 2.0's and
/// Venus's `.tmpl`), chosen by the file's extension.
public enum PageTheme: Sendable {
    case xslt(Theme)
    case htmltmpl(TemplateTheme)

    /// Where it came from, for messages.
    public var name: String {
        switch self {
        case .xslt(let theme): theme.name
        case .htmltmpl(let theme): theme.name
        }
    }

    /// The theme in `path`: htmltmpl when its name ends in `.tmpl`, else XSLT.
    public static func file(_ path: String, timeLimit: Double = Theme.defaultTimeLimit) throws(Theme.Failure)
        -> PageTheme
    {
        if path.lowercased().hasSuffix(".tmpl") {
            return .htmltmpl(try TemplateTheme(path: path, timeLimit: timeLimit))
        }
        return .xslt(try Theme.file(path, timeLimit: timeLimit))
    }
}

extension PlanetPage {
    /// The page `theme` makes of `input`, ready to be written.
    public static func render(_ input: PlanetPageInput, theme: PageTheme) throws(Failure) -> RenderedPage {
        let input = input.markingInactiveSources()
        return switch theme {
        case .xslt(let theme): try render(input, theme: theme)
        case .htmltmpl(let theme): theme.render(input)
        }
    }
}
