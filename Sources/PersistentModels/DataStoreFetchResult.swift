/// What a ``DataStore``'s ``DataStore/fetch(_:)`` answers (SwiftData's
/// `DataStoreFetchResult`): the snapshots of the fetched objects, and of related objects the
/// store read with them.
public struct DataStoreFetchResult<ModelType: PersistentModel, SnapshotType: DataStoreSnapshot> {
    /// The descriptor the result answers.
    public let descriptor: FetchDescriptor<ModelType>
    /// The fetched objects' snapshots.
    public let fetchedSnapshots: [SnapshotType]
    /// Snapshots of objects the fetched ones refer to, by identifier.
    public let relatedSnapshots: [PersistentIdentifier: SnapshotType]

    /// A result for a descriptor.
    public init(
        descriptor: FetchDescriptor<ModelType>, fetchedSnapshots: [SnapshotType],
        relatedSnapshots: [PersistentIdentifier: SnapshotType] = [:]
    ) {
        self.descriptor = descriptor
        self.fetchedSnapshots = fetchedSnapshots
        self.relatedSnapshots = relatedSnapshots
    }
}
