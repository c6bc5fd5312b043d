import Basics

/// How an allowed attribute's value is checked.
enum AttributeKind: UInt8 {
    /// Kept as it is (escaped on output).
    case plain
    /// A URL: normalised, resolved, and kept only for an allowed scheme.
    case url
    /// A URL that may also be a `data:image/…;base64` image (`img`/`source` `src`).
    case imageURL
    /// `srcset`: each candidate's URL checked as an image URL.
    case sourceSet
    /// `style`: through the CSS declaration allowlist.
    case style
}

/// The attribute allowlist: a name maps to its kind and the elements it is
/// allowed on (every kept element when `elements` is empty).
///
/// Decisions: `class` and `id` are dropped (feed content must not restyle or
/// target the page; prefixing would still let one entry target another's
/// ids); `name`, `target`, `tabindex`, `accesskey`, `autofocus`, `form`,
/// `action`, `formaction`, `background`, `dynsrc`, `lowsrc`, `datasrc`,
/// `datafld`, `usemap`, `autoplay` and every `on*` are dropped; the harmless
/// presentational ones feedparser keeps are kept on every element.
struct AttributeRule {
    var kind: AttributeKind
    var elements: [Int]
}

enum AttributePolicy {
    /// Kept on every kept element, as plain values.
    static let everywhere = [
        "abbr", "accept", "align", "alt", "autocomplete", "axis", "balance", "bgcolor", "border", "bordercolor",
        "bordercolordark", "bordercolorlight", "bottompadding", "cellpadding", "cellspacing", "char", "charoff",
        "charset", "checked", "choff", "clear", "color", "cols", "colspan", "compact",
        "coords", "datapagesize", "datetime", "default", "dir", "disabled", "draggable", "end", "face", "frame",
        "gutter", "headers", "height", "hidefocus", "hidden", "high", "hreflang", "hspace", "inputmode", "kind",
        "label", "lang", "leftspacing", "loop", "loopend", "low", "max", "maxlength", "media", "method", "min",
        "multiple", "muted", "nohref", "noshade", "nowrap", "open", "optimum", "pattern", "playsinline", "pqg",
        "prompt", "radiogroup", "readonly", "rel", "repeat", "repeat-max", "repeat-min", "replace", "required",
        "rev", "reversed", "rightspacing", "rows", "rowspan", "rules", "scope", "selected", "shape", "size", "sizes",
        "span", "srclang", "start", "step", "summary", "suppress", "template", "title", "toppadding", "translate",
        "type", "unselectable", "urn", "valign", "value", "variable", "vspace", "width",
    ]

    /// URL-valued attributes and where they are allowed.
    static let urls: [(name: String, kind: AttributeKind, elements: [String])] = [
        ("href", .url, ["a"]),
        ("src", .imageURL, ["img", "source"]),
        ("src", .url, ["video", "audio", "track"]),
        ("srcset", .sourceSet, ["img", "source"]),
        ("poster", .url, ["video"]),
        ("cite", .url, []),
        ("longdesc", .url, []),
        ("icon", .url, []),
    ]

    /// A name's rule, or nil when the attribute is dropped.
    static func rule(for name: UnsafeBufferPointer<UInt8>, element: Int) -> AttributeKind? {
        var hash = FNV1a()
        hash.add(name)
        var slot = Int(truncatingIfNeeded: hash.value) & (table.count - 1)
        while let entry = table[slot] {
            if entry.name.count == name.count, entry.name.elementsEqual(name) {
                for rule in entry.rules where rule.elements.isEmpty || rule.elements.contains(element) {
                    return rule.kind
                }
                return nil
            }
            slot = (slot + 1) & (table.count - 1)
        }
        return nil
    }

    private struct Entry {
        var name: [UInt8]
        var rules: [AttributeRule]
    }

    /// Open addressing by FNV-1a over the name's bytes (gumbo gives lowercase names).
    private static let table: [Entry?] = {
        var entries: [String: [AttributeRule]] = [:]
        for name in everywhere { entries[name, default: []].append(AttributeRule(kind: .plain, elements: [])) }
        entries["style"] = [AttributeRule(kind: .style, elements: [])]
        for (name, kind, elements) in urls {
            let indices = elements.map { ElementPolicy.index(of: $0) }
            entries[name, default: []].append(AttributeRule(kind: kind, elements: indices))
        }
        var table = [Entry?](repeating: nil, count: 512)
        for (name, rules) in entries {
            precondition(!name.hasPrefix("on"), "no on* attribute is ever allowed")
            var slot = Int(truncatingIfNeeded: FNV1a.hash(name)) & (table.count - 1)
            while table[slot] != nil { slot = (slot + 1) & (table.count - 1) }
            table[slot] = Entry(name: Array(name.utf8), rules: rules)
        }
        return table
    }()
}
