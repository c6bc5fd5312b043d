internal import CGumbo

/// What the sanitizer does with an element, decided by its tag alone.
enum ElementAction: UInt8 {
    /// Written out, with the attributes its allowlist keeps.
    case keep
    /// Left out, its content (text and elements) kept in its place.
    case unwrap
    /// Left out with everything inside it.
    case drop
}

/// The element allowlist, as tables indexed by gumbo's tag enum (built once).
///
/// Borderline elements and the decision taken:
///
/// | element                                    | action | why |
/// |--------------------------------------------|--------|-----|
/// | `fieldset`, `legend`                       | keep   | a box and its caption; no control inside survives |
/// | `meter`, `progress`                        | keep   | read-only display, no script needed |
/// | `font`, `center`, `big`, `tt`, `strike`, `acronym`, `dir` | keep | old presentational markup still in feeds |
/// | `details`, `summary`                       | keep   | disclosure without script |
/// | `picture`                                  | keep   | not in gumbo 0.10's tag enum: matched by name |
/// | `audio`, `video`                           | keep   | `controls` forced on, `autoplay` dropped |
/// | `object`, `applet`                         | unwrap | the element goes; its fallback content is what a browser shows without the plugin (`param` children are dropped) |
/// | `iframe`                                   | drop   | its content is raw text a browser never shows |
/// | `canvas`                                   | drop   | shows nothing without script; its fallback is hidden when scripting is on |
/// | `dialog`                                   | unwrap | an open dialog overlays the page; its text is kept (unknown to gumbo 0.10) |
/// | `output`, `datalist`, `keygen`, `button`, … | drop  | form controls, with their content |
/// | `map`, `label`, `marquee`, `blink`, `nobr`, `spacer`, `listing`, `menuitem` | unwrap | layout or behaviour we do not want; text kept |
/// | `area`, `bgsound`, `basefont`, `isindex`   | drop   | link, sound or form machinery without content |
/// | `svg`, `math` (and everything in them)     | drop   | foreign content parses differently: the mutation-XSS class |
/// | unknown elements (custom elements, `o:p`)  | unwrap | content kept |
enum ElementPolicy {
    /// Elements written out as they are (attributes through their allowlist).
    static let kept = [
        "a", "abbr", "acronym", "address", "article", "aside", "audio", "b", "bdi", "bdo", "big", "blockquote",
        "br", "caption", "center", "cite", "code", "col", "colgroup", "data", "dd", "del", "details", "dfn", "dir",
        "div", "dl", "dt", "em", "fieldset", "figcaption", "figure", "font", "footer", "h1", "h2", "h3", "h4", "h5",
        "h6", "header", "hgroup", "hr", "i", "img", "ins", "kbd", "legend", "li", "main", "mark", "menu", "meter",
        "nav", "ol", "p", "pre", "progress", "q", "rb", "rp", "rt", "rtc", "ruby", "s", "samp", "section", "small",
        "source", "span", "strike", "strong", "sub", "summary", "sup", "table", "tbody", "td", "tfoot", "th",
        "thead", "time", "tr", "track", "tt", "u", "ul", "var", "video", "wbr",
    ]

    /// Elements left out with their content.
    static let dropped = [
        "script", "style", "noscript", "template", "iframe", "frame", "frameset", "embed",
        "param", "form", "input", "button", "select", "option", "optgroup", "datalist", "textarea", "keygen",
        "output", "base", "meta", "link", "title", "head", "noembed", "noframes", "xmp", "plaintext", "svg",
        "math", "canvas", "area", "bgsound", "basefont", "isindex",
    ]

    /// Void elements: written without an end tag (HTML) or self-closed (XHTML).
    static let void = ["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]

    /// The unknown element kept by name (gumbo 0.10 predates it).
    static let picture: [UInt8] = Array("picture".utf8)

    static let tagCount = Int(GUMBO_TAG_LAST.rawValue) + 1

    /// `actions[tag]`: what happens to an HTML element with that tag; unknown tags unwrap.
    static let actions: [ElementAction] = {
        var table = [ElementAction](repeating: .unwrap, count: tagCount)
        for name in kept { table[index(of: name)] = .keep }
        for name in dropped { table[index(of: name)] = .drop }
        return table
    }()

    /// `isVoid[tag]`, for every tag and `pictureTag`.
    static let isVoid: [Bool] = {
        var table = [Bool](repeating: false, count: tagCount + 1)
        for name in void { table[index(of: name)] = true }
        return table
    }()

    /// `names[tag]`: the lowercase tag name as bytes (empty for unknown
    /// tags), and "picture" at `pictureTag`.
    static let names: [[UInt8]] =
        (0..<tagCount).map { raw in
            let tag = GumboTag(rawValue: UInt32(raw))
            guard tag != GUMBO_TAG_UNKNOWN, tag != GUMBO_TAG_LAST, let name = gumbo_normalized_tagname(tag) else {
                return []
            }
            return Array(String(cString: name).utf8)
        } + [picture]

    /// The enum value gumbo gives `name`; a name missing from the enum is a
    /// programming error in the tables above.
    static func index(of name: String) -> Int {
        let tag = gumbo_tag_enum(name)
        precondition(tag != GUMBO_TAG_UNKNOWN, "\(name) is not in gumbo's tag enum")
        return Int(tag.rawValue)
    }

    /// Table parts and the written parents the parser gives them; anywhere
    /// else (after an unwrap or drop, or gumbo's own odd trees) the output is re-parsed.
    static let tableParents: [Int: [Int]] = {
        let sections = ["tbody", "thead", "tfoot"].map(index(of:))
        return [
            index(of: "tr"): sections + [index(of: "table")],
            index(of: "td"): [index(of: "tr")],
            index(of: "th"): [index(of: "tr")],
            index(of: "col"): [index(of: "colgroup"), index(of: "table")],
            index(of: "caption"): [index(of: "table")],
            index(of: "colgroup"): [index(of: "table")],
        ].merging(sections.map { ($0, [index(of: "table")]) }) { first, _ in first }
    }()

    static let a = index(of: "a")
    static let img = index(of: "img")
    static let pre = index(of: "pre")
    static let video = index(of: "video")
    static let audio = index(of: "audio")
    static let source = index(of: "source")
    static let track = index(of: "track")
    /// The index standing for `picture` (an unknown tag to gumbo) in these tables.
    static let pictureTag = tagCount
}
