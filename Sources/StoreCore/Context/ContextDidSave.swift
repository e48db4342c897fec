/// What a save changed, by object ID: the payload of the did-save notification, and what
/// ``ManagedObjectContext/mergeChanges(from:)`` takes to bring another context up to date.
/// Sendable, so it can cross to the context of another thread or task.
public struct ContextDidSave: Sendable, Hashable {
    /// Objects the save inserted (permanent IDs).
    public var insertedObjectIDs: Set<ObjectID>
    /// Objects the save updated.
    public var updatedObjectIDs: Set<ObjectID>
    /// Objects the save deleted.
    public var deletedObjectIDs: Set<ObjectID>

    /// Creates a payload.
    public init(insertedObjectIDs: Set<ObjectID> = [], updatedObjectIDs: Set<ObjectID> = [], deletedObjectIDs: Set<ObjectID> = []) {
        self.insertedObjectIDs = insertedObjectIDs
        self.updatedObjectIDs = updatedObjectIDs
        self.deletedObjectIDs = deletedObjectIDs
    }
}
