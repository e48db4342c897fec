/// A store written against SwiftData's store protocol (SwiftData's `DataStore`, iOS 18): it
/// saves and fetches ``DefaultSnapshot``s, and the framework runs it as a store type of its
/// own, so a custom store written for SwiftData works here with its `import` changed.
///
/// ```swift
/// let configuration = JSONStoreConfiguration(name: "Trips", fileURL: url)
/// let container = try ModelContainer(for: Trip.self, configurations: configuration)
/// ```
///
/// The store is wrapped in a ``DataStoreAdapter``, an atomic store: when it is added, every
/// object is read with one ``fetch(_:)`` per entity (a descriptor without predicate, sort,
/// limit or offset); fetches are then answered in memory, as SwiftData answers them when a
/// store throws ``DataStoreError/preferInMemoryFilter`` and
/// ``DataStoreError/preferInMemorySort``; each context save becomes one ``save(_:)`` with the
/// objects inserted, changed and deleted since the last one. docs/swift-models.md says what
/// differs from SwiftData.
public protocol DataStore: AnyObject, SendableMetatype {
    /// The configuration type that describes a store of this type.
    associatedtype Configuration: DataStoreConfiguration where Configuration.Store == Self
    /// The snapshot type the store saves and fetches (the adapter runs stores of
    /// ``DefaultSnapshot``).
    associatedtype Snapshot: DataStoreSnapshot

    /// A store for a configuration; `migrationPlan` is the container's plan (nil when none was
    /// given), for the store to migrate its own data.
    init(_ configuration: Configuration, migrationPlan: (any SchemaMigrationPlan.Type)?) throws

    /// The configuration the store was made with.
    var configuration: Configuration { get }
    /// The store's identifier: the store identifier of the ``PersistentIdentifier``s it makes.
    var identifier: String { get }
    /// The schema of the objects the store holds.
    var schema: Schema { get }

    /// The snapshots of the objects a request asks for.
    func fetch<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> DataStoreFetchResult<T, Snapshot>
    /// How many objects a request matches (default: the number of the request's entity
    /// ``fetch(_:)`` returns). A `ModelContext`'s `fetchCount` asks it when the context has
    /// nothing unsaved to count.
    func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int
    /// The identifiers of the objects a request matches (default: those ``fetch(_:)`` returns).
    func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier]
    /// Saves inserted, updated and deleted snapshots; returns the permanent identifier of each
    /// inserted one (``DataStoreSaveChangesResult/remappedIdentifiers``).
    func save(_ request: DataStoreSaveChangesRequest<Snapshot>) throws -> DataStoreSaveChangesResult<Snapshot>
    /// Removes every object (default: fails with ``DataStoreError/unsupportedFeature``).
    func erase() throws
    /// A context began editing (default: nothing).
    func initializeState(for editingState: EditingState)
    /// A context stopped editing (default: nothing).
    func invalidateState(for editingState: EditingState)
    /// Snapshots the store keeps cached for the identifiers (default: none).
    func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws
        -> [PersistentIdentifier: Snapshot]
}

extension DataStore {
    /// The number of snapshots ``fetch(_:)`` returns of the request's entity and its
    /// sub-entities (a store whose fetch answers with every object it holds, as the session's
    /// JSON store does, counts the ones asked for).
    public func fetchCount<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> Int {
        let entityNames = Self.entityNames(of: T.self, in: schema)
        return try fetch(request).fetchedSnapshots.count { entityNames.contains($0.persistentIdentifier.entityName) }
    }

    /// The identifiers of the snapshots ``fetch(_:)`` returns of the request's entity and its
    /// sub-entities.
    public func fetchIdentifiers<T: PersistentModel>(_ request: DataStoreFetchRequest<T>) throws -> [PersistentIdentifier] {
        let entityNames = Self.entityNames(of: T.self, in: schema)
        return try fetch(request).fetchedSnapshots.map(\.persistentIdentifier).filter { entityNames.contains($0.entityName) }
    }

    /// The entity of a model class and its descendants in a schema.
    private static func entityNames<T: PersistentModel>(of type: T.Type, in schema: Schema) -> Set<String> {
        let entityName = T.persistentEntitySchema.entityName
        return Set([entityName] + schema.objectModel.entityAndDescendants(entityName))
    }

    /// Fails with ``DataStoreError/unsupportedFeature``.
    public func erase() throws { throw DataStoreError.unsupportedFeature }

    /// Does nothing.
    public func initializeState(for editingState: EditingState) {}

    /// Does nothing.
    public func invalidateState(for editingState: EditingState) {}

    /// No cached snapshots.
    public func cachedSnapshots(for persistentIdentifiers: [PersistentIdentifier], editingState: EditingState) throws
        -> [PersistentIdentifier: Snapshot]
    { [:] }
}
