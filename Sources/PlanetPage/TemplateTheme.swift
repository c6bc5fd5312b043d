import Foundation
import HTMLTemplate

/// An htmltmpl theme (Planet 2.0's and Venus's `.tmpl`), compiled once
/// before anything is fetched. Its `TMPL_INCLUDE`s are read from the `inc`
/// folder beside it, as htmltmpl reads them. What it is given is Venus's
/// set of template variables (`VenusTemplateValues`).
public final class TemplateTheme: Sendable {
    let template: HTMLTemplate
    /// Where it came from, for messages.
    public let name: String

    public init(path: String) throws(Theme.Failure) {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw Theme.Failure(description: "--theme \(path): \(reason)")
        }
        let includes = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("inc")
        let include: (String) -> String? = { file in
            let url = includes.appendingPathComponent(file).standardizedFileURL
            // An include stays in the inc folder.
            guard url.path.hasPrefix(includes.standardizedFileURL.path + "/") else { return nil }
            return (try? Data(contentsOf: url)).map { String(decoding: $0, as: UTF8.self) }
        }
        do {
            template = try HTMLTemplate(text: String(decoding: data, as: UTF8.self), name: path, include: include)
        } catch {
            throw Theme.Failure(description: "--theme \(path): not a usable htmltmpl template: \(error)")
        }
        name = path
    }

    /// The page for `input`: the template filled with Venus's variables.
    func render(_ input: PlanetPageInput) -> RenderedPage {
        RenderedPage(text: Array(template.render(VenusTemplateValues.values(of: input)).utf8))
    }
}
