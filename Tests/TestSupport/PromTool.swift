import Testing

/// Prometheus's `promtool check metrics` (Debian's `prometheus`, installed by `scripts/setup --test`):
/// an exposition read by Prometheus's own parser and linted by its conventions.
public enum PromTool {
    public static func check(_ exposition: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        guard let promtool = ExternalProgram("promtool") else {
            Issue.record(
                "promtool is not installed (scripts/setup --test installs Debian's prometheus)",
                sourceLocation: sourceLocation)
            return
        }
        let outcome = try await promtool.run(["check", "metrics"], input: exposition)
        #expect(
            outcome.status == 0, "promtool check metrics: \(outcome.standardOutput)\(outcome.standardError)",
            sourceLocation: sourceLocation)
    }
}
