import Basics

extension ThreadExecutor {
    /// One for the whole test process: its thread lives as long as the process. A task
    /// that prefers it, and every child task it makes, runs there however long the other
    /// suites keep Swift's cooperative pool busy.
    public static let shared = ThreadExecutor(name: "test executor")
}
