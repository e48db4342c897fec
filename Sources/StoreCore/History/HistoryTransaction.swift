import Foundation

/// One save as a store recorded it in its persistent history (Core Data's
/// `NSPersistentHistoryTransaction`): when, by whom, and each object's change. Other contexts —
/// in this process or another sharing the store — catch up with
/// ``ManagedObjectContext/mergeChanges(fromHistory:)``.
public struct HistoryTransaction: Sendable, Hashable {
    /// The store that recorded it.
    public let storeIdentifier: String
    /// Its number in the store (increasing).
    public let number: Int64
    /// When it was saved.
    public let timestamp: Date
    /// The saving context's ``ManagedObjectContext/transactionAuthor``.
    public let author: String?
    /// The saving context's ``ManagedObjectContext/name``.
    public let contextName: String?
    /// The objects it changed.
    public let changes: [HistoryChange]

    /// Creates a transaction.
    public init(storeIdentifier: String, number: Int64, timestamp: Date, author: String?, contextName: String?, changes: [HistoryChange]) {
        self.storeIdentifier = storeIdentifier
        self.number = number
        self.timestamp = timestamp
        self.author = author
        self.contextName = contextName
        self.changes = changes
    }

    /// The token just after this transaction.
    public var token: HistoryToken { HistoryToken(transactions: [storeIdentifier: number]) }

    /// The object IDs it changed, as a did-save payload (for ``ManagedObjectContext/mergeChanges(from:)``).
    public var objectIDs: ContextDidSave {
        var save = ContextDidSave()
        for change in changes {
            switch change.kind {
            case .insert: save.insertedObjectIDs.insert(change.objectID)
            case .update: save.updatedObjectIDs.insert(change.objectID)
            case .delete: save.deletedObjectIDs.insert(change.objectID)
            }
        }
        return save
    }
}
