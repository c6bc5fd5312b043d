/// What the executable tells the commands of the allocator it links (the
/// commands are a library: the allocator is the executable's choice).
public struct LinkedAllocator: Sendable {
    /// Its name and version, for `--version`.
    public var version: String
    /// Gives the system back the pages the allocator keeps of freed memory:
    /// a render calls it after each part, so that what it holds at its
    /// peak is one part's, not the sum of what the parts before it left in
    /// the allocator's keeping.
    public var releaseFreed: @Sendable () -> Void

    public init(version: String, releaseFreed: @escaping @Sendable () -> Void = {}) {
        self.version = version
        self.releaseFreed = releaseFreed
    }
}
