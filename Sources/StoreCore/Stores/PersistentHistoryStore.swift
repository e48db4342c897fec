/// An incremental store that records persistent history (capability
/// ``StoreCapabilities/persistentHistory``): when added with
/// ``StoreOptionKey/persistentHistoryTracking``, each save also writes a ``HistoryTransaction``
/// in the same transaction, and the history can be read and purged. SQLite conforms.
public protocol PersistentHistoryStore: IncrementalStore {
    /// Whether this store records history (added with the option).
    var recordsHistory: Bool { get }
    /// The transactions after number `transaction` (every one for nil), in order.
    func history(after transaction: Int64?) throws -> [HistoryTransaction]
    /// Removes the transactions before number `transaction`.
    func deleteHistory(before transaction: Int64) throws
}
