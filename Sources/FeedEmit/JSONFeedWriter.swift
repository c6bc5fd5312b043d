import FeedModel

/// JSON Feed 1.1, with provenance in the `_feedmerge` extension object.
enum JSONFeedWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        var json = JSONWriter(buffer: out)
        out = TextBuffer(capacity: 0)  // the writer's copy is then the only one, appended to in place
        json.beginObject()
        json.field("version", "https://jsonfeed.org/version/1.1")
        json.field("title", metadata.title)
        json.field("home_page_url", metadata.link)
        json.field("feed_url", metadata.selfURL)
        if let author = metadata.author {
            json.beginArray("authors")
            person(author, into: &json)
            json.endArray()
        }
        json.beginObject("_feedmerge")
        json.field("about", metadata.generatorURI)
        json.field("generator", "\(metadata.generator) \(metadata.generatorVersion)")
        json.field("id", metadata.id)
        json.field("updated", metadata.updated.rfc3339)
        json.endObject()
        json.beginArray("items")
        entries.forEachBorrowed { entry in
            item(entry, into: &json)
            json.drainIfFull()
        }
        json.endArray()
        json.endObject()
        json.endLine()
        out = json.buffer
    }

    private static func item(_ item: MergedEntry, into json: inout JSONWriter) {
        let e = item.entry
        json.beginObject()
        json.field("id", item.stableID)
        json.field("url", e.link)
        json.field("title", item.plainTitle)
        let content = e.content.first ?? e.summary
        if let content, content.kind != .text {
            json.field("content_html", content.value)
        } else {
            json.field("content_text", content?.value ?? "")
        }
        if let summary = e.summary, e.content.first != nil {
            json.field("summary", summary.kind == .text ? summary.value : PlainText.from(html: summary.value))
        }
        json.field("image", e.image)
        json.field("date_published", item.date.rfc3339)
        json.field("date_modified", e.updated?.rfc3339)
        if !e.authors.isEmpty {
            json.beginArray("authors")
            for author in e.authors { person(author, into: &json) }
            json.endArray()
        }
        if !e.categories.isEmpty {
            json.beginArray("tags")
            for category in e.categories { json.element(category.term) }
            json.endArray()
        }
        json.field("language", e.language)
        if !e.enclosures.isEmpty {
            json.beginArray("attachments")
            for enclosure in e.enclosures {
                json.beginObject()
                json.field("url", enclosure.url)
                json.field("mime_type", enclosure.type ?? "application/octet-stream")
                json.field("size_in_bytes", enclosure.length)
                json.endObject()
            }
            json.endArray()
        }
        json.beginObject("_feedmerge")
        json.beginObject("source")
        json.field("title", item.source.title)
        json.field("home_page_url", item.source.link)
        json.field("feed_url", item.source.feedURL)
        json.field("id", item.source.id)
        json.field("updated", item.source.updated?.rfc3339)
        json.endObject()
        if !item.source.folder.isEmpty {
            json.beginArray("folder")
            for name in item.source.folder { json.element(name) }
            json.endArray()
        }
        if !item.alsoIn.isEmpty {
            json.beginArray("also_in")
            for url in item.alsoIn { json.element(url) }
            json.endArray()
        }
        json.endObject()
        json.endObject()
    }

    private static func person(_ person: Person, into json: inout JSONWriter) {
        json.beginObject()
        json.field("name", person.name ?? person.email)
        json.field("url", person.uri ?? person.email.map { "mailto:\($0)" })
        json.endObject()
    }
}
