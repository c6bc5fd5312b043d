import FeedModel
import Foundation
import Testing
import TextOutput

@testable import PlanetPage

/// Faces (Venus's `planet:face`), a subscription's other options, and a page's cap.
@Suite struct FaceAndCapTests {
    func input(face: String?, icon: String?) -> PlanetPageInput {
        var input = Sample.input
        input.sources[0].properties = ["facewidth": "65", "not a name": "x", "name": "not this"]
        if let face { input.sources[0].properties["face"] = face }
        input.sources[0].icon = icon
        return input
    }

    @Test func aConfiguredFaceElseTheFeedsIconReachesThePlanetDocument() throws {
        let probe = try Sample.theme(
            Sample.probe([
                "planet:source[1]/planet:face", "planet:source[1]/planet:facewidth", "planet:source[1]/planet:name",
                "atom:entry[1]/atom:source/planet:face", "count(planet:source[1]/planet:*)",
            ]))
        let configured = Sample.values(
            try Sample.render(input(face: "jdub.png", icon: "https://blog.example.org/i.png"), theme: probe))
        // name, http_status, face, facewidth: the option called name, and one that is no XML name, left out.
        #expect(configured == ["jdub.png", "65", "Planet Name", "jdub.png", "4"])
        let icon = Sample.values(
            try Sample.render(input(face: nil, icon: "https://blog.example.org/i.png"), theme: probe))
        #expect(icon[0] == "https://blog.example.org/i.png" && icon[3] == "https://blog.example.org/i.png")
        let unsafe = Sample.values(try Sample.render(input(face: nil, icon: "javascript:alert(1)"), theme: probe))
        #expect(unsafe[0] == "")
    }

    @Test func theDefaultPageShowsAFaceThatIsAWebAddress() throws {
        let theme = try Theme.builtIn()
        let page = try Sample.render(input(face: nil, icon: "https://blog.example.org/i.png"), theme: theme)
        #expect(page.contains("<img class=\"face\" src=\"https://blog.example.org/i.png\""))
        let local = try Sample.render(input(face: "jdub.png", icon: nil), theme: theme)
        #expect(!local.contains("class=\"face\""), "a file name is a Venus theme's, not the default page's")
    }

    @Test func aCapKeepsTheNewestEntriesAndWholeDays() {
        let entries = Sample.input.entries  // 30 Nov 13:05, 30 Nov 09:00, 28 Nov
        #expect(PageCap(items: 2).apply(entries).count == 2)
        #expect(PageCap(items: nil).apply(entries).count == 3)
        #expect(PageCap(items: nil, days: 1).apply(entries).count == 2)
        #expect(PageCap(items: 1, days: 1).apply(entries).count == 1)
        #expect(PageCap(items: nil, days: 2).apply(entries).count == 3)
        #expect(PageCap().items == 60, "Venus's items_per_page")
    }
}

/// Enclosures on the default page: played where a browser can, always linked.
@Suite struct EnclosureTests {
    @Test func audioAndVideoGetPlayersAndEveryEnclosureALink() throws {
        var input = Sample.input
        input.entries[0].entry.enclosures = [
            Enclosure(url: "https://cdn.example/show-12.mp3", length: 35_000_000, type: "audio/mpeg", duration: 3723),
            Enclosure(url: "https://cdn.example/clip.mp4", length: 900_000, type: "video/mp4", duration: 125),
            Enclosure(url: "https://cdn.example/notes.pdf", length: nil, type: "application/pdf"),
            Enclosure(url: "javascript:alert(1)", length: 1, type: "audio/mpeg"),
        ]
        let page = try Sample.render(input, theme: try Theme.builtIn())
        #expect(
            page.contains("<audio controls=\"\" preload=\"none\" src=\"https://cdn.example/show-12.mp3\"></audio>"),
            "\(page)")
        #expect(page.contains("<video controls=\"\" preload=\"none\" src=\"https://cdn.example/clip.mp4\"></video>"))
        #expect(page.contains("<a href=\"https://cdn.example/show-12.mp3\""))
        #expect(page.contains("(audio/mpeg, 33.4 MB, 1:02:03)"), "\(page)")
        #expect(page.contains("(video/mp4, 879 KB, 2:05)"))
        #expect(page.contains("<a href=\"https://cdn.example/notes.pdf\"") && page.contains("(application/pdf)"))
        #expect(!page.contains("javascript:"))
        #expect(page.components(separatedBy: "<audio").count == 2, "one player per playable enclosure")
    }
}
