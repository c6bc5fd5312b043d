import FeedModel
import TextOutput

/// JSON Feed 1.1, with provenance in the `_feedmerge` extension object.
enum JSONFeedWriter {
    static func render(_ entries: [MergedEntry], metadata: OutputMetadata, into out: inout TextBuffer) {
        JSONWriter.writing(into: &out) { json in
            json.beginObject()
            json.field("version", "https://jsonfeed.org/version/1.1")
            json.field("title", metadata.title)
            json.field("home_page_url", metadata.link)
            json.field("feed_url", metadata.selfURL)
            if !metadata.hubs.isEmpty {
                json.beginArray("hubs")
                for hub in metadata.hubs {
                    json.beginObject()
                    json.field("type", "WebSub")
                    json.field("url", hub)
                    json.endObject()
                }
                json.endArray()
            }
            // Items without authors would inherit these (JSON Feed 1.1): only
            // when every item names its own are they safe to write.
            if let author = metadata.author, entries.allSatisfy({ !$0.entry.authors.isEmpty }) {
                json.beginArray("authors")
                person(author, into: &json)
                json.endArray()
            }
            json.beginObject("_feedmerge")
            json.field("about", metadata.generatorURI)
            json.field("generator", "\(metadata.generator) \(metadata.generatorVersion)")
            json.field("id", metadata.id)
            json.field("updated", date: metadata.updated)
            json.endObject()
            json.beginArray("items")
            entries.forEachInPlace { entry in
                item(entry, into: &json)
                json.drainIfFull()
            }
            json.endArray()
            json.endObject()
            json.endLine()
        }
    }

    private static func item(_ item: UnsafePointer<MergedEntry>, into json: inout JSONWriter) {
        json.beginObject()
        json.field("id", item.stableID)
        json.field("url", item.pointee.entry.link)
        json.field("title", item.plainTitle)
        let content = item.pointee.entry.content.first ?? item.pointee.entry.summary
        if let content, content.kind != .text {
            json.field("content_html", content.value)
        } else {
            json.field("content_text", content?.value ?? "")
        }
        if let summary = item.pointee.entry.summary, item.pointee.entry.content.first != nil {
            json.field("summary", summary.kind == .text ? summary.value : PlainText.from(html: summary.value))
        }
        json.field("image", item.pointee.entry.image)
        json.field("date_published", date: item.pointee.date)
        json.field("date_modified", date: item.pointee.entry.updated)
        if !item.pointee.entry.authors.isEmpty {
            json.beginArray("authors")
            for author in item.pointee.entry.authors { person(author, into: &json) }
            json.endArray()
        }
        if !item.pointee.entry.categories.isEmpty {
            json.beginArray("tags")
            for category in item.pointee.entry.categories { json.element(category.term) }
            json.endArray()
        }
        json.field("language", item.pointee.entry.language)
        if !item.pointee.entry.enclosures.isEmpty {
            json.beginArray("attachments")
            for enclosure in item.pointee.entry.enclosures {
                json.beginObject()
                json.field("url", enclosure.url)
                json.field("mime_type", enclosure.mediaType ?? "application/octet-stream")
                json.field("size_in_bytes", enclosure.length)
                json.field("duration_in_seconds", enclosure.duration)
                json.endObject()
            }
            json.endArray()
        }
        json.beginObject("_feedmerge")
        json.beginObject("source")
        json.field("title", item.pointee.source.title)
        json.field("home_page_url", item.pointee.source.link)
        json.field("feed_url", item.pointee.source.feedURL)
        json.field("id", item.pointee.source.id)
        json.field("updated", date: item.pointee.source.updated)
        json.endObject()
        if !item.pointee.source.folder.isEmpty {
            json.beginArray("folder")
            for name in item.pointee.source.folder { json.element(name) }
            json.endArray()
        }
        if !item.pointee.alsoIn.isEmpty {
            json.beginArray("also_in")
            for url in item.pointee.alsoIn { json.element(url) }
            json.endArray()
        }
        json.endObject()
        json.endObject()
    }

    private static func person(_ person: Person, into json: inout JSONWriter) {
        json.beginObject()
        let email = person.email.flatMap { Person.isAddress($0) ? $0 : nil }
        json.field("name", person.name ?? email)
        json.field("url", person.uri ?? email.map { "mailto:\($0)" })
        json.endObject()
    }
}
