import Basics

/// Values left for the process's end: the run's big structures (the
/// timeline's entries) are not freed one allocation at a time just before
/// `exit`, which returns all of the memory at once.
enum ProcessEnd {
    private static let kept = Locked<[any Sendable]>([])

    static func keep(_ value: some Sendable) {
        kept.withLock { $0.append(value) }
    }
}
