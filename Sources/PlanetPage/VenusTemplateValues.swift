import FeedEmit
import FeedModel
import Foundation
import HTMLSanitizer
import HTMLTemplate
import TextOutput

/// The variables Venus's htmltmpl shell gives a template (its
/// `planet/shell/tmpl.py`), made from the planet page's input:
/// - the planet: `name`, `link`, `owner_name`, `owner_email`, `generator`,
///   `feed`, `feedtype`, `date`, `date_iso`, `date_822`, `url`, `fullurl`,
///   `title`, `title_plain`, `id`, and the `[Planet]` settings templates
///   read (`pubsubhubbub_hub`, …);
/// - `Channels`, the subscriptions sorted by name: `name`, `title`,
///   `title_plain`, `link`, `url`, `id`, `subtitle`, `icon`,
///   `last_updated`, `message`, `http_status`, and every option of its
///   section (`face`, `facewidth`, …);
/// - `Items`, the entries: `id`, `link`, `title` (markup), `title_plain`,
///   `content` (sanitized), `author`, `author_name`, `author_email`,
///   `author_uri` (the item's own author: its feed's is `channel_author…`), `date`, `date_iso`, `date_822`, `updated`, `published`
///   (with `_iso` and `_822`), `new_date` and `new_channel` (only where the
///   day or the feed changes), `enclosure_href`, `enclosure_length`,
///   `enclosure_type`, `excerpt`, `guid_isPermaLink`, the languages, and its
///   feed's as `channel_…` (`channel_name`, `channel_link`, `channel_face`, …).
///
/// Feed text is text (escaped unless the template escapes it); titles and
/// contents are markup, sanitized as the page's are.
enum VenusTemplateValues {
    static func values(of input: PlanetPageInput) -> [String: TemplateValue] {
        let settings = input.settings
        let dateFormat = settings["date_format"] ?? "%B %d, %Y %I:%M %p"
        let newDateFormat = settings["new_date_format"] ?? "%B %d, %Y"
        let locale = settings["locale"].flatMap(PageLocale.named)
        var top: [String: TemplateValue] = [:]
        // The [Planet] settings first: what the shell sets itself replaces them.
        for (key, value) in settings where Self.isName(key) { top[key] = .markup(value) }
        let metadata = input.metadata
        top["name"] = .markup(settings["name"] ?? metadata.title)
        top["title"] = .markup(escaped(metadata.title))
        top["title_plain"] = .text(metadata.title)
        top["id"] = .text(metadata.id)
        top["link"] = .text(metadata.link ?? "")
        // The configuration's values as written (HTML), as the shell hands them.
        top["owner_name"] = settings["owner_name"].map(TemplateValue.markup) ?? .text(metadata.author?.name ?? "")
        top["owner_email"] = settings["owner_email"].map(TemplateValue.markup) ?? .text(metadata.author?.email ?? "")
        top["author_name"] = top["owner_name"]
        top["generator"] = .text(settings["generator_uri"] ?? metadata.generatorURI ?? metadata.generator)
        if let feed = settings["feed"] ?? metadata.selfURL {
            top["feed"] = .text(feed)
            top["feedtype"] = .text(settings["feedtype"] ?? (feed.contains("rss") ? "rss" : "atom"))
        }
        top["date"] = .text(PageDates.formatted(input.generated, dateFormat, locale: locale))
        top["date_iso"] = .text(iso(input.generated))
        top["date_822"] = .text(rfc822(input.generated))
        if let link = metadata.link, let output = input.outputName {
            top["url"] = .text(
                URL(string: (output as NSString).deletingPathExtension, relativeTo: URL(string: link))?.absoluteString
                    ?? "")
            top["fullurl"] = .text(URL(string: output, relativeTo: URL(string: link))?.absoluteString ?? "")
        }

        var channels: [String: [String: TemplateValue]] = [:]
        for source in input.sources {
            channels[source.feedURL] = channel(source, dateFormat: dateFormat, locale: locale)
        }
        top["Channels"] = .loop(
            input.sources.sorted { ($0.name, $0.feedURL) < ($1.name, $1.feedURL) }.compactMap { channels[$0.feedURL] })

        var items: [[String: TemplateValue]] = []
        items.reserveCapacity(input.entries.count)
        var lastDate: String?
        var lastChannel: String?
        for item in input.entries {
            var values = Self.item(item, input: input, dateFormat: dateFormat, locale: locale)
            for (key, value) in channels[item.source.feedURL]
                ?? feedChannel(item.source, dateFormat: dateFormat, locale: locale)
            {
                values["channel_" + key] = value
            }
            if let author = item.source.authors.first {
                values.merge(Self.person(author, as: "channel_author")) { $1 }
            }
            // Only where the day, or the feed within a day, changes.
            let newDate = PageDates.formatted(item.date, newDateFormat, locale: locale)
            let channelID = item.source.id ?? item.source.feedURL
            if newDate != lastDate { values["new_date"] = .text(newDate) }
            if newDate != lastDate || channelID != lastChannel { values["new_channel"] = .text(channelID) }
            lastDate = newDate
            lastChannel = channelID
            items.append(values)
        }
        top["Items"] = .loop(items)
        return top
    }

    /// A subscription: the feed's own values and the subscription's options.
    private static func channel(_ source: PlanetSource, dateFormat: String, locale: PageLocale?)
        -> [String: TemplateValue]
    {
        var values: [String: TemplateValue] = [:]
        // The configuration's values as written (HTML); a feed's title is text.
        let configured = { (value: String) in source.propertiesAreMarkup ? TemplateValue.markup(value) : .text(value) }
        for (key, value) in source.properties where isName(key) { values[key] = configured(value) }
        let title = source.title ?? source.name
        values["name"] = source.properties["name"] == source.name ? configured(source.name) : .text(source.name)
        values["title"] = .markup(escaped(title))
        values["title_plain"] = .text(title)
        values["link"] = .text(source.link.flatMap(PageLink.safe) ?? "")
        values["url"] = .text(
            source.location.flatMap(PageLink.safe) ?? PageLink.safe(source.shownFeedAddress) ?? source.feedURL)
        values["id"] = .text(source.id ?? source.feedURL)
        if let subtitle = source.subtitle { values["subtitle"] = .markup(escaped(subtitle)) }
        if let icon = source.icon.flatMap(PageLink.safe) { values["icon"] = .text(icon) }
        if let message = source.message { values["message"] = .text(message) }
        if let status = source.httpStatus { values["http_status"] = .text(String(status)) }
        if let newest = source.newestEntry {
            values["last_updated"] = .text(PageDates.formatted(newest, dateFormat, locale: locale))
            values["last_updated_iso"] = .text(iso(newest))
            values["last_updated_822"] = .text(rfc822(newest))
        }
        return values
    }

    /// An entry's feed that no subscription names (it should not happen): its own values.
    private static func feedChannel(_ source: FeedSource, dateFormat: String, locale: PageLocale?)
        -> [String: TemplateValue]
    {
        channel(
            PlanetSource(
                name: source.title ?? source.feedURL, feedURL: source.feedURL, title: source.title,
                link: source.link, id: source.id), dateFormat: dateFormat, locale: locale)
    }

    private static func item(
        _ item: MergedEntry, input: PlanetPageInput, dateFormat: String, locale: PageLocale?
    ) -> [String: TemplateValue] {
        let entry = item.entry
        var values: [String: TemplateValue] = [:]
        let (id, plainTitle) = withUnsafePointer(to: item) { ($0.stableID, $0.plainTitle) }
        values["id"] = .text(id)
        let link = entry.link.flatMap(PageLink.safe)
        if let link { values["link"] = .text(link) }
        values["guid_isPermaLink"] = .text(id == link ? "true" : "false")
        let base = entry.link ?? item.source.link
        if let title = entry.title, !title.value.isEmpty {
            values["title"] = .markup(markup(title, base: base))
            values["title_plain"] = .text(plainTitle ?? "")
        }
        let shown = input.summaryOnly ? entry.summary ?? entry.content.first : entry.content.first ?? entry.summary
        let shownMarkup = shown.map { markup($0, base: base) }
        if let shownMarkup { values["content"] = .markup(shownMarkup) }
        if let language = entry.language {
            for key in ["title_language", "content_language", "summary_language"] { values[key] = .text(language) }
        }
        // The item's own author; its feed's is `channel_author`.
        if let author = item.ownAuthors.first { values.merge(Self.person(author, as: "author")) { $1 } }
        // Dated as the timeline sorts it (Venus: `updated`, else `published`).
        for (prefix, date) in [("date", item.date), ("updated", item.date)] {
            values[prefix] = .text(PageDates.formatted(date, dateFormat, locale: locale))
            values[prefix + "_iso"] = .text(iso(date))
            values[prefix + "_822"] = .text(rfc822(date))
        }
        if let published = entry.published {
            values["published"] = .text(PageDates.formatted(published, dateFormat, locale: locale))
            values["published_iso"] = .text(iso(published))
            values["published_822"] = .text(rfc822(published))
        }
        if let enclosure = entry.enclosures.first(where: { PageLink.safe($0.url) != nil }) {
            values["enclosure_href"] = .text(PageLink.safe(enclosure.url)!)
            if let length = enclosure.length { values["enclosure_length"] = .text(String(length)) }
            if let type = enclosure.type { values["enclosure_type"] = .text(type) }
        }
        if let excerpt = (input.summaryOnly ? entry.summary : entry.summary ?? entry.content.first) {
            // From the shown value's markup when it is the same value: sanitized once.
            values["excerpt"] = .text(
                excerpt.kind == .text
                    ? Excerpt.of(text: excerpt.value, length: input.excerptLength)
                    : Excerpt.of(
                        markup: excerpt == shown ? shownMarkup! : markup(excerpt, base: base),
                        length: input.excerptLength))
        }
        if let rights = entry.rights { values["rights"] = .markup(markup(rights, base: base)) }
        return values
    }

    /// A person as feedparser gives one to a template: `KEY` ("name (email)"),
    /// `KEY_name`, `KEY_email`, `KEY_uri`.
    private static func person(_ person: Person, as key: String) -> [String: TemplateValue] {
        var values: [String: TemplateValue] = [:]
        values[key + "_name"] = person.name.map(TemplateValue.text)
        values[key + "_email"] = person.email.map(TemplateValue.text)
        values[key + "_uri"] = person.uri.flatMap(PageLink.safe).map(TemplateValue.text)
        let said = [person.name, person.email.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
        if !said.isEmpty { values[key] = .text(said) }
        return values
    }

    /// A text construct as markup: text escaped, HTML sanitized.
    private static func markup(_ text: Text, base: String?) -> String {
        text.kind == .text ? escaped(text.value) : HTMLSanitizer.sanitizeToXHTML(text.value, base: base)
    }

    private static func escaped(_ text: String) -> String {
        var out = TextBuffer(capacity: text.utf8.count + 16)
        out.appendXMLEscaped(text)
        return out.text
    }

    private static func iso(_ date: Timestamp) -> String { PageDates.formatted(date, "%Y-%m-%dT%H:%M:%S+00:00") }
    private static func rfc822(_ date: Timestamp) -> String { PageDates.formatted(date, "%a, %d %b %Y %H:%M:%S +0000") }

    /// A name a template can use (letters, digits, `_`).
    private static func isName(_ key: String) -> Bool {
        !key.isEmpty
            && key.unicodeScalars.allSatisfy {
                ($0.isASCII && $0.properties.isAlphabetic) || ("0"..."9").contains($0) || $0 == "_"
            }
    }
}
