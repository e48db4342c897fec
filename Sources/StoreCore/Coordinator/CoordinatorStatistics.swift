/// How often a coordinator called into its stores: lets tests and tools check that work is
/// done once (a to-many fault asks the store once; prefetching needs one fetch per key path).
public struct CoordinatorStatistics: Sendable, Hashable {
    /// Fetch requests sent to stores (one per store asked).
    public var fetches = 0
    /// Object values loaded from a store to fill a fault (`newValues(forObjectWith:)`).
    public var nodeLoads = 0
    /// Relationships loaded from a store to fill a to-many fault (`newValue(forRelationship:…)`).
    public var relationshipLoads = 0
    /// Saves sent to stores (one per store written).
    public var saves = 0
    /// Batch update, delete and insert requests sent to stores (one per store asked).
    public var batchRequests = 0
    /// Of ``fetches``, those a store answered outside the coordinator's lock, beside other
    /// calls (``StoreCapabilities/concurrentReads``).
    public var concurrentFetches = 0
    /// Fetch requests validated against the model and compiled (routed to their stores) because
    /// no request of the same shape was compiled before (``FetchRequest`` validation runs once
    /// per shape: requests that differ only in their constants share it).
    public var fetchCompilations = 0
    /// Fetch requests that reused a compiled request of the same shape.
    public var compiledFetchReuses = 0

    /// All zero.
    public init() {}
}
