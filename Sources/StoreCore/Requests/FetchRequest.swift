/// What a fetch returns.
public enum FetchResultType: String, Sendable, Hashable, Codable {
    /// Managed objects.
    case managedObjects
    /// Object IDs only.
    case objectIDs
    /// The number of matching objects.
    case count
}

/// A fetch: which entity, how many, and in what form.
///
/// ```swift
/// var request = FetchRequest(entityName: "Player")
/// request.fetchLimit = 10
/// let players = try context.fetch(request)
/// ```
public struct FetchRequest: Sendable, Hashable {
    /// The entity to fetch.
    public var entityName: String
    /// At most this many results; 0 for no limit.
    public var fetchLimit: Int
    /// Skip this many results first.
    public var fetchOffset: Int
    /// A hint for how many objects to load at a time; 0 for all.
    public var fetchBatchSize: Int
    /// Objects, IDs or count.
    public var resultType: FetchResultType
    /// Whether sub-entity instances match (default true).
    public var includesSubentities: Bool
    /// Whether the fetching context's unsaved inserts, updates and deletes are merged into the
    /// results (default true).
    public var includesPendingChanges: Bool
    /// Whether objects not yet registered are returned as faults (a hint: stores that return
    /// values cheaply fill them at once).
    public var returnsObjectsAsFaults: Bool
    /// Relationship key paths whose destinations are fetched along with the results.
    public var relationshipKeyPathsForPrefetching: [String]
    /// Identifiers of the stores to search; nil for every store that holds the entity.
    public var affectedStoreIdentifiers: [String]?

    /// Creates a request for every object of an entity.
    public init(entityName: String) {
        self.entityName = entityName
        self.fetchLimit = 0
        self.fetchOffset = 0
        self.fetchBatchSize = 0
        self.resultType = .managedObjects
        self.includesSubentities = true
        self.includesPendingChanges = true
        self.returnsObjectsAsFaults = true
        self.relationshipKeyPathsForPrefetching = []
        self.affectedStoreIdentifiers = nil
    }

    /// The entities whose instances match: the entity, plus its descendants when
    /// ``includesSubentities``.
    public func matchingEntityNames(in model: ObjectModel) -> [String] {
        includesSubentities ? model.entityAndDescendants(entityName) : [entityName]
    }
}
