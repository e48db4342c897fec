/// What a fetch returns.
public enum FetchResultType: String, Sendable, Hashable, Codable {
    /// Managed objects.
    case managedObjects
    /// Object IDs only.
    case objectIDs
    /// The number of matching objects.
    case count
    /// One dictionary per object (or per group) with the ``FetchRequest/propertiesToFetch``
    /// (Core Data's `NSDictionaryResultType`); nil values are absent from the dictionaries.
    case dictionaries
}

/// A fetch: which entity, which objects, in what order, how many, and in what form.
///
/// ```swift
/// var request = FetchRequest(entityName: "Player")
/// request.predicate = try FetchPredicate(format: "team.name == %@", "Crew")
/// request.sortKeys = [SortKey("lastName")]
/// request.fetchLimit = 10
/// let players = try context.fetch(request)
/// ```
///
/// The steps, in order: filter by ``predicate``, sort by ``sortKeys``, shape (dictionaries,
/// distinct, grouping and aggregates), then skip ``fetchOffset`` and keep ``fetchLimit``.
public struct FetchRequest: Sendable, Hashable, Codable {
    /// The entity to fetch.
    public var entityName: String
    /// The condition objects must meet; nil for every object.
    public var predicate: FetchPredicate?
    /// The sort order; objects equal on every key keep the store's order.
    public var sortKeys: [SortKey]
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
    /// The columns of a ``FetchResultType/dictionaries`` fetch; empty for every attribute.
    public var propertiesToFetch: [PropertyToFetch]
    /// The properties (or to-one key paths) a dictionary fetch groups by; aggregates in
    /// ``propertiesToFetch`` are then computed per group.
    public var propertiesToGroupBy: [String]
    /// Whether a dictionary fetch drops duplicate dictionaries (the first of each stays).
    public var returnsDistinctResults: Bool

    /// Creates a request for the objects of an entity that match a predicate, in order.
    public init(entityName: String, predicate: FetchPredicate? = nil, sortKeys: [SortKey] = []) {
        self.entityName = entityName
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.propertiesToFetch = []
        self.propertiesToGroupBy = []
        self.returnsDistinctResults = false
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

    /// Whether the dictionaries of this request are aggregates (an aggregate column, or grouping).
    public var hasAggregates: Bool {
        resultType == .dictionaries && (!propertiesToGroupBy.isEmpty || propertiesToFetch.contains(where: \.isAggregate))
    }

    /// The request with its predicate's `$variables` replaced (for fetch request templates).
    public func withSubstitutionVariables(_ variables: [String: any PredicateArgument]) -> FetchRequest {
        var copy = self
        copy.predicate = predicate?.withSubstitutionVariables(variables)
        return copy
    }

    /// Checks the request against a model: the entity exists; the predicate, sort keys,
    /// properties to fetch and group-by key paths name existing properties; sort keys and
    /// dictionary columns do not pass through to-many relationships.
    ///
    /// - Throws: a ``StoreError`` (134060); predicate errors carry the position in the format
    ///   string.
    public func validate(in model: ObjectModel) throws {
        guard model.entity(named: entityName) != nil else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        try predicate?.validate(forEntityNamed: entityName, in: model)
        for key in sortKeys { try key.validate(forEntityNamed: entityName, in: model) }
        let validator = PredicateValidator(model: model)
        func checkColumn(_ keyPath: String) throws {
            if case .collection = try validator.resultKind(of: .keyPath(keyPath), entity: entityName) {
                throw StoreError(
                    .coreData, "The dictionary column \(keyPath) passes through a to-many relationship", entityName: entityName)
            }
        }
        for property in propertiesToFetch {
            switch property {
            case .property(let keyPath): try checkColumn(keyPath)
            case .expression(let description):
                let kind = try validator.resultKind(of: description.expression, entity: entityName)
                if description.function == nil, case .collection = kind {
                    throw StoreError(
                        .coreData, "The expression \(description.expression) of column \(description.name) is a collection; give it an aggregate function",
                        entityName: entityName)
                }
            }
        }
        for keyPath in propertiesToGroupBy { try checkColumn(keyPath) }
    }

    /// The entities whose instances match: the entity, plus its descendants when
    /// ``includesSubentities``.
    public func matchingEntityNames(in model: ObjectModel) -> [String] {
        includesSubentities ? model.entityAndDescendants(entityName) : [entityName]
    }
}
