import Foundation

/// An incremental store whose fetches can run in parallel, outside the coordinator's lock
/// (declare ``StoreCapabilities/concurrentReads`` too). The SQLite store in WAL mode is one: it
/// answers fetches from a small pool of read connections while saves stay on its one writer.
///
/// The coordinator asks once, right after ``IncrementalStore/loadMetadata()`` and under its
/// lock, for a fetcher; from then on it sends each fetch that involves only this store to the
/// fetcher, from whichever thread the fetching context runs on, without its lock. Saves, batch
/// requests, faults, metadata and object IDs still go to the store under the lock.
public protocol ConcurrentReadingStore: IncrementalStore {
    /// The fetcher that answers this store's fetches beside other calls, or nil when the store
    /// cannot read concurrently as it was opened (then every call stays under the lock).
    func makeConcurrentFetcher() throws -> (any ConcurrentFetcher)?
}

/// Answers fetches for one store from any thread, several at once (see
/// ``ConcurrentReadingStore``). It shares nothing mutable with its store: it reads what was
/// committed, through its own connections and caches.
public protocol ConcurrentFetcher: Sendable {
    /// Answers a fetch as ``IncrementalStore/execute(_:)`` would, from committed data; nil when
    /// it cannot take the request now (every reader busy), in which case the coordinator runs it
    /// through the store under its lock.
    func fetch(_ request: FetchRequest) throws -> StoreResult?
}
