import FeedModel
import TextOutput
/// The normalized JSON of `feedmerge parse` (docs/command-line.md): one object per
/// file, absent values left out, lists always present.
extension ParsedFeed {
    /// One line of the `feedmerge parse` contract for this feed.
    public func normalizedJSON(file: String) -> String {
        var json = JSONWriter()
        json.beginObject()
        json.field("file", file)
        json.field("format", format.rawValue)
        json.beginObject("feed")
        json.text("title", typeKey: "title_type", metadata.title)
        json.text("subtitle", typeKey: "subtitle_type", metadata.subtitle)
        json.field("link", metadata.link)
        json.field("id", metadata.id)
        json.field("updated", date: metadata.updated)
        json.field("published", date: metadata.published)
        json.text("rights", typeKey: "rights_type", metadata.rights)
        json.field("language", metadata.language)
        json.field("icon", metadata.icon)
        json.field("logo", metadata.logo)
        json.field("image", metadata.image)
        json.field("generator", metadata.generator)
        json.people("authors", metadata.authors)
        json.people("contributors", metadata.contributors)
        json.categories(metadata.categories)
        json.endObject()
        json.beginArray("entries")
        for entry in entries {
            json.beginObject()
            json.field("id", entry.id)
            json.text("title", typeKey: "title_type", entry.title)
            json.field("link", entry.link)
            json.text("summary", typeKey: "summary_type", entry.summary)
            json.beginArray("content")
            for content in entry.content {
                json.beginObject()
                json.field("value", content.value)
                json.field("type", content.kind.rawValue)
                json.endObject()
            }
            json.endArray()
            json.field("published", date: entry.published)
            json.field("updated", date: entry.updated)
            json.people("authors", entry.authors)
            json.people("contributors", entry.contributors)
            json.beginArray("enclosures")
            for enclosure in entry.enclosures {
                json.beginObject()
                json.field("url", enclosure.url)
                json.field("length", enclosure.length)
                json.field("type", enclosure.type)
                json.field("duration", enclosure.duration)
                json.endObject()
            }
            json.endArray()
            json.categories(entry.categories)
            json.text("rights", typeKey: "rights_type", entry.rights)
            json.field("comments", entry.comments)
            json.field("language", entry.language)
            json.field("image", entry.image)
            json.endObject()
        }
        json.endArray()
        json.beginArray("warnings")
        for warning in warnings { json.element(warning) }
        json.endArray()
        json.endObject()
        return json.text
    }
}

extension JSONWriter {
    /// `"key"` and `"key_type"` (`typeKey`) for a text construct.
    public mutating func text(_ key: StaticString, typeKey: StaticString, _ value: Text?) {
        guard let value else { return }
        field(key, value.value)
        field(typeKey, value.kind.rawValue)
    }

    public mutating func people(_ key: StaticString, _ people: [Person]) {
        beginArray(key)
        for person in people {
            beginObject()
            field("name", person.name)
            field("email", person.email)
            field("uri", person.uri)
            endObject()
        }
        endArray()
    }

    public mutating func categories(_ categories: [Category]) {
        beginArray("tags")
        for category in categories {
            beginObject()
            field("term", category.term)
            field("scheme", category.scheme)
            field("label", category.label)
            endObject()
        }
        endArray()
    }
}
