/// What a ``DataStore``'s ``DataStore/save(_:)`` answers (SwiftData's
/// `DataStoreSaveChangesResult`): the permanent identifier of each inserted object.
public final class DataStoreSaveChangesResult<T: DataStoreSnapshot>: Sendable {
    /// The identifier of the store that saved.
    public let storeIdentifier: String
    /// Each inserted snapshot's identifier → the permanent identifier the store gave it, which
    /// becomes the object's identifier in the saving context.
    public let remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier]
    /// Snapshots whose values the store changed while saving, by identifier (the store's, or
    /// the one the save carried): they become the saved objects' values.
    public let snapshotsToReregister: [PersistentIdentifier: T]

    /// A result for the store with that identifier.
    public init(
        for storeIdentifier: String, remappedIdentifiers: [PersistentIdentifier: PersistentIdentifier] = [:],
        snapshotsToReregister: [PersistentIdentifier: T] = [:]
    ) {
        self.storeIdentifier = storeIdentifier
        self.remappedIdentifiers = remappedIdentifiers
        self.snapshotsToReregister = snapshotsToReregister
    }
}
