/// What a batch request returns (Core Data's `NSBatchUpdateRequestResultType`,
/// `NSBatchDeleteRequestResultType` and `NSBatchInsertRequestResultType`).
public enum BatchResultType: String, Sendable, Hashable, Codable, CaseIterable {
    /// Only whether the request succeeded (``BatchResult/status(_:)``).
    case status
    /// The IDs of the objects updated, deleted or inserted (``BatchResult/objectIDs(_:)``):
    /// what ``ManagedObjectContext/mergeChanges(from:)`` needs to bring a context up to date.
    case objectIDs
    /// How many objects were updated, deleted or inserted (``BatchResult/count(_:)``).
    case count
}
