import Basics
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

    /// - Parameter timeLimit: seconds compiling may take (`--theme-timeout`).
    public init(path: String, timeLimit: Double = Theme.defaultTimeLimit) throws(Theme.Failure) {
        guard let data = FileManager.default.contents(atPath: path) else {
            let reason = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "does not exist"
            throw Theme.Failure(description: "--theme \(path): \(reason)")
        }
        let includes = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("inc").path
        let include: (String) -> String? = { file in
            // An include stays in the inc folder, links followed to where they really lead.
            guard let real = RealPath.of(includes + "/" + file, inside: includes), real != RealPath.of(includes),
                (try? FileManager.default.attributesOfItem(atPath: real)[.type] as? FileAttributeType) == .typeRegular
            else { return nil }
            return (try? Data(contentsOf: URL(fileURLWithPath: real))).map { String(decoding: $0, as: UTF8.self) }
        }
        do {
            template = try HTMLTemplate(
                text: String(decoding: data, as: UTF8.self), name: path, include: include, timeLimit: timeLimit)
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
