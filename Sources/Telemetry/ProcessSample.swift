import Foundation

extension MetricRegistry {
    /// Sets what the process itself measures: its resident memory now (`/proc/self/statm`).
    public func sampleProcess() {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return }
        set(.residentMemory, pages * Double(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// The registry of a feedmerge process: every family, with its build and start time set.
    public static func feedmerge(version: String, started: Date = Date()) -> MetricRegistry {
        let registry = MetricRegistry()
        registry.set(.buildInfo, 1, labels: ["version": version])
        registry.set(.processStart, started.timeIntervalSince1970.rounded(.down))
        return registry
    }
}
