/// One object's change in a ``HistoryTransaction`` (Core Data's `NSPersistentHistoryChange`).
public struct HistoryChange: Sendable, Hashable {
    /// What happened to the object.
    public enum Kind: Int, Sendable, Hashable, Codable {
        /// It was inserted.
        case insert = 0
        /// It was updated.
        case update = 1
        /// It was deleted.
        case delete = 2
    }

    /// The object.
    public let objectID: ObjectID
    /// What happened.
    public let kind: Kind
    /// The properties an update changed (empty for inserts and deletes, or when unknown).
    public let updatedProperties: Set<String>

    /// Creates a change.
    public init(objectID: ObjectID, kind: Kind, updatedProperties: Set<String> = []) {
        self.objectID = objectID
        self.kind = kind
        self.updatedProperties = updatedProperties
    }
}
