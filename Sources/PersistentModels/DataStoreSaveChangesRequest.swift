/// What a ``DataStore``'s ``DataStore/save(_:)`` is asked to save (SwiftData's
/// `DataStoreSaveChangesRequest`): the snapshots of the objects inserted, updated and deleted.
///
/// An inserted snapshot carries an identifier the store is to replace with a permanent one of
/// its own (``PersistentIdentifier/identifier(for:entityName:primaryKey:)``), reported in
/// ``DataStoreSaveChangesResult/remappedIdentifiers``; updated and deleted snapshots carry
/// the identifiers the store gave.
public struct DataStoreSaveChangesRequest<SnapshotType: DataStoreSnapshot>: Sendable {
    /// The context that saves.
    public let editingState: EditingState
    /// The new objects.
    public let inserted: [SnapshotType]
    /// The changed objects, with all their values.
    public let updated: [SnapshotType]
    /// The deleted objects, with their last saved values.
    public let deleted: [SnapshotType]

    /// A save request.
    public init(editingState: EditingState, inserted: [SnapshotType], updated: [SnapshotType], deleted: [SnapshotType]) {
        self.editingState = editingState
        self.inserted = inserted
        self.updated = updated
        self.deleted = deleted
    }
}
