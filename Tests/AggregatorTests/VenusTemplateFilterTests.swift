import Foundation
import TestSupport
import Testing

/// A template's own filters (`[index.html.xslt] filters = …`), run by
/// `feedmerge planet` on the page the template made, before it is written,
/// as Venus's `splice.apply` runs them on the file its template wrote.
@Suite(.serialized) struct VenusTemplateFilterTests {
    let planet = VenusPlanetTests()

    func folder(_ w: StateTests.Workspace, _ name: String, _ script: String) throws -> String {
        try FileManager.default.createDirectory(atPath: w.path("filters"), withIntermediateDirectories: true)
        try script.write(toFile: w.path("filters/" + name), atomically: true, encoding: .utf8)
        return w.path("filters")
    }

    @Test(.tags(.corpus), .enabled(if: VenusPlanetTests.present, "needs ../shared/corpora/venus"))
    func addsearchRunsOnTheWrittenPageAndATeeWritesItsOwnFile() async throws {
        let w = try StateTests.Workspace("venus-template-filters")
        let filters = try folder(w, "mark.sed", "s|</body>|<p id=\"marked\">sed was here</p></body>|\n")
        let config =
            planet.configuration(theme: "asf", extra: "filter_directories = \(filters)")
            + "\n[index.html.xslt]\nfilters = addsearch.xslt mark.sed>marked.html\n"
        let run = try await planet.run(w, config)
        #expect(run.status == 0, "\(run.standardError)")
        let page = try planet.text(w, "www/index.html")
        // addsearch.xslt: a search form in the sidebar, an OpenSearch link in the head, an HTML5 doctype.
        // (after the XML declaration the result's serialization begins with, as Venus's does).
        #expect(page.prefix(100).contains("<!DOCTYPE html>"), "\(page.prefix(200))")
        #expect(page.contains("<h2>Search</h2>"))
        #expect(page.contains("opensearchdescription.xml"))
        #expect(!page.contains("sed was here"), "a tee leaves the page as it was")
        let marked = try planet.text(w, "www/marked.html")
        #expect(marked.contains("<p id=\"marked\">sed was here</p></body>"))
        #expect(marked.contains("<h2>Search</h2>"), "the tee reads the page as the filters before it left it")
        #expect(!run.standardError.contains("are not run"), "\(run.standardError)")
        // The other templates are written as their theme makes them.
        #expect(!(try planet.text(w, "www/validate.html")).contains("<h2>Search</h2>"))
    }

    @Test(.tags(.corpus), .enabled(if: VenusPlanetTests.present, "needs ../shared/corpora/venus"))
    func aTemplateFilterThatFailsLeavesThePageAsItsTemplateMadeIt() async throws {
        let w = try StateTests.Workspace("venus-template-filter-fails")
        let filters = try folder(w, "fails.sed", "1q5\n")
        let config =
            planet.configuration(theme: "asf", extra: "filter_directories = \(filters)")
            + "\n[index.html.xslt]\nfilters = addsearch.xslt fails.sed minhead.py mememe.plugin\n"
        let run = try await planet.run(w, config)
        #expect(run.status == 0, "\(run.standardError)")
        #expect(run.standardError.contains("filter \(filters)/fails.sed failed"), "\(run.standardError)")
        #expect(run.standardError.contains("filter mememe.plugin is not run"), "\(run.standardError)")
        let page = try planet.text(w, "www/index.html")
        #expect(!page.contains("<h2>Search</h2>"), "no filter's work is kept when one fails")
        #expect(page.contains("Person 1"))
    }
}
