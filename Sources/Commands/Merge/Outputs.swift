import FeedEmit
import PlanetPage
import TextOutput

/// The destinations of a run, each reserved before any feed is fetched: a
/// file's temporary file exists from the start, so a destination that
/// cannot be written stops the run before it costs anything.
struct Outputs {
    enum Destination {
        case standardOutput
        case file(AtomicFile)
    }

    struct Output {
        var path: String
        var kind: OutputKind
        var destination: Destination
        /// A page's theme and cap.
        var page: Page?
    }

    struct Page {
        var theme: PageTheme
        var cap: PageCap
        /// Its own settings, over the run's (`PlanetPageInput.settings`).
        var settings: [String: String] = [:]
        /// What is done to the page once its theme has made it.
        var filters: [PageFilter] = []
    }

    var outputs: [Output] = []
    /// `--health FILE`.
    var health: AtomicFile?
    /// `--metrics FILE`.
    var metrics: AtomicFile?

    /// Reserves every destination, or none.
    /// - Throws: one message per destination that cannot be written.
    static func reserve(
        _ requests: [(path: String, kind: OutputKind, page: Page?)], health: String?, metrics: String? = nil
    ) throws(ReservationFailure) -> Outputs {
        var result = Outputs()
        var failures: [String] = []
        for (path, kind, page) in requests {
            if path == "-" {
                result.outputs.append(Output(path: path, kind: kind, destination: .standardOutput, page: page))
                continue
            }
            AtomicFile.removeLeftovers(of: path)
            do {
                let file = try AtomicFile.reserve(path)
                Termination.onSignal { file.abandon() }
                result.outputs.append(Output(path: path, kind: kind, destination: .file(file), page: page))
            } catch {
                failures.append(error.description)
            }
        }
        // The reports beside the outputs: written as they are, committed as they are.
        func report(_ path: String?, option: String) -> AtomicFile? {
            guard let path else { return nil }
            AtomicFile.removeLeftovers(of: path)
            do {
                let file = try AtomicFile.reserve(path)
                Termination.onSignal { file.abandon() }
                return file
            } catch {
                failures.append("\(option) \(error.description)")
                return nil
            }
        }
        result.health = report(health, option: "--health")
        result.metrics = report(metrics, option: "--metrics")
        guard failures.isEmpty else {
            result.discard()
            throw ReservationFailure(messages: failures)
        }
        return result
    }

    /// Gives every reservation up: the files stay as they were.
    func discard() {
        discardOutputs()
        health?.discard()
        metrics?.discard()
    }

    /// Gives the `-o` reservations up: their files stay as they were.
    func discardOutputs() {
        for output in outputs { if case .file(let file) = output.destination { file.discard() } }
    }

    struct ReservationFailure: Error {
        var messages: [String]
    }
}
