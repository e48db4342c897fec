/// What a store type can do. The conformance suite skips (and reports as skipped) each case
/// that needs a capability the store type does not declare.
public struct StoreCapabilities: OptionSet, Sendable, Hashable {
    /// The option bits.
    public let rawValue: Int
    /// Creates capabilities from bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Data survives removing the store and adding it again at the same URL.
    public static let persistent = StoreCapabilities(rawValue: 1 << 0)
    /// The store is an ``IncrementalStore`` (answers requests itself, loads lazily).
    public static let incremental = StoreCapabilities(rawValue: 1 << 1)
    /// Batch update / delete / insert run inside the store.
    public static let batchRequests = StoreCapabilities(rawValue: 1 << 2)
    /// Several processes may open the store at once.
    public static let multiProcess = StoreCapabilities(rawValue: 1 << 3)
    /// The store honours ``StoreOptionKey/readOnly``.
    public static let readOnly = StoreCapabilities(rawValue: 1 << 4)
    /// The whole store is written atomically at save (atomic stores).
    public static let atomicFile = StoreCapabilities(rawValue: 1 << 5)
    /// The store works without a URL.
    public static let noURL = StoreCapabilities(rawValue: 1 << 6)
    /// Row versions (``StoreNode/version``) are kept in the file, so they continue where they
    /// were after the store is reopened. Without it they start again at 1 when the store is
    /// loaded (formats such as Core Data's XML store hold no versions), which is enough for
    /// optimistic locking between the contexts of one coordinator.
    public static let persistentRowVersions = StoreCapabilities(rawValue: 1 << 7)
    /// Fetches may run beside each other and beside the coordinator's other calls: the store
    /// conforms to ``ConcurrentReadingStore`` and hands the coordinator a ``ConcurrentFetcher``.
    /// Stores without it are called under the coordinator's lock only.
    public static let concurrentReads = StoreCapabilities(rawValue: 1 << 8)
    /// The store records persistent history when added with
    /// ``StoreOptionKey/persistentHistoryTracking`` (it conforms to ``PersistentHistoryStore``).
    public static let persistentHistory = StoreCapabilities(rawValue: 1 << 9)

    /// Names of the capabilities in the set, for reports.
    public var names: [String] {
        let all: [(StoreCapabilities, String)] = [
            (.persistent, "persistent"), (.incremental, "incremental"), (.batchRequests, "batchRequests"),
            (.multiProcess, "multiProcess"), (.readOnly, "readOnly"), (.atomicFile, "atomicFile"),
            (.noURL, "noURL"), (.persistentRowVersions, "persistentRowVersions"), (.concurrentReads, "concurrentReads"),
            (.persistentHistory, "persistentHistory"),
        ]
        return all.filter { contains($0.0) }.map(\.1)
    }
}
