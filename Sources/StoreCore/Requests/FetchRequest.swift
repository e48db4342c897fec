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

    /// A request whose predicate is parsed from a format string with its `$variables`
    /// substituted: how a fetch request template of the model (or a fetched property, with
    /// `$FETCH_SOURCE` bound to the source object) becomes a request.
    ///
    /// ```swift
    /// let request = try FetchRequest(entityName: "User", predicateFormat: "age >= $MIN_AGE",
    ///                                substitutionVariables: ["MIN_AGE": 18])
    /// ```
    ///
    /// - Throws: a ``StoreError`` (134060) when the format string does not parse.
    public init(
        entityName: String, predicateFormat: String?, substitutionVariables: [String: any PredicateArgument] = [:]
    ) throws {
        self.init(entityName: entityName)
        if let predicateFormat {
            predicate = try FetchPredicate(format: predicateFormat).withSubstitutionVariables(substitutionVariables)
        }
    }

    /// A request from a fetch request template of the model, its `$variables` substituted
    /// (Core Data's `fetchRequestFromTemplate(withName:substitutionVariables:)`).
    ///
    /// - Throws: a ``StoreError`` (134060) when the template's predicate does not parse.
    public init(template: FetchRequestTemplate, substitutionVariables: [String: any PredicateArgument] = [:]) throws {
        try self.init(entityName: template.entityName, predicateFormat: template.predicateFormat, substitutionVariables: substitutionVariables)
        fetchLimit = template.fetchLimit
        fetchBatchSize = template.fetchBatchSize
        includesSubentities = template.includesSubentities
        includesPendingChanges = template.includesPendingChanges
        returnsObjectsAsFaults = template.returnsObjectsAsFaults
        returnsDistinctResults = template.returnsDistinctResults
    }

    /// The request that computes a fetched property for `source` (a managed object or a
    /// ``GraphNode``): the property's predicate with `$FETCH_SOURCE` standing for the source
    /// object (its ID) and `$FETCH_SOURCE.key` for the source's values, read now.
    ///
    /// ```swift
    /// // FetchedPropertyDescription("teammates", entity: "Player", predicate: "team == $FETCH_SOURCE.team")
    /// let request = try FetchRequest(fetchedProperty: teammates, source: player)
    /// ```
    ///
    /// - Throws: a ``StoreError`` (134060) when the property's predicate does not parse.
    public init(fetchedProperty: FetchedPropertyDescription, source: any PredicateEvaluable) throws {
        try self.init(entityName: fetchedProperty.destinationEntityName, predicateFormat: fetchedProperty.predicateFormat)
        let evaluator = PredicateEvaluator()
        predicate = try predicate?.replacingExpressions { expression in
            switch expression {
            case .variable("FETCH_SOURCE"):
                return .constant(source.predicateObjectID.map(StoreValue.objectID) ?? .null)
            case .keyPath(.variable("FETCH_SOURCE"), let components):
                return try evaluator.constant(of: .keyPath(.evaluatedObject, components), with: source)
            default:
                return nil
            }
        }
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

    private enum CodingKeys: String, CodingKey {
        case entityName, predicate, sortKeys, fetchLimit, fetchOffset, fetchBatchSize, resultType, includesSubentities
        case includesPendingChanges, returnsObjectsAsFaults, relationshipKeyPathsForPrefetching, affectedStoreIdentifiers
        case propertiesToFetch, propertiesToGroupBy, returnsDistinctResults
    }

    /// Decodes a request; every key but `entityName` may be missing (the defaults of
    /// ``init(entityName:predicate:sortKeys:)`` apply). The predicate is its format string.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            entityName: try c.decode(String.self, forKey: .entityName),
            predicate: try c.decodeIfPresent(FetchPredicate.self, forKey: .predicate),
            sortKeys: try c.decodeIfPresent([SortKey].self, forKey: .sortKeys) ?? [])
        fetchLimit = try c.decodeIfPresent(Int.self, forKey: .fetchLimit) ?? 0
        fetchOffset = try c.decodeIfPresent(Int.self, forKey: .fetchOffset) ?? 0
        fetchBatchSize = try c.decodeIfPresent(Int.self, forKey: .fetchBatchSize) ?? 0
        resultType = try c.decodeIfPresent(FetchResultType.self, forKey: .resultType) ?? .managedObjects
        includesSubentities = try c.decodeIfPresent(Bool.self, forKey: .includesSubentities) ?? true
        includesPendingChanges = try c.decodeIfPresent(Bool.self, forKey: .includesPendingChanges) ?? true
        returnsObjectsAsFaults = try c.decodeIfPresent(Bool.self, forKey: .returnsObjectsAsFaults) ?? true
        relationshipKeyPathsForPrefetching = try c.decodeIfPresent([String].self, forKey: .relationshipKeyPathsForPrefetching) ?? []
        affectedStoreIdentifiers = try c.decodeIfPresent([String].self, forKey: .affectedStoreIdentifiers)
        propertiesToFetch = try c.decodeIfPresent([PropertyToFetch].self, forKey: .propertiesToFetch) ?? []
        propertiesToGroupBy = try c.decodeIfPresent([String].self, forKey: .propertiesToGroupBy) ?? []
        returnsDistinctResults = try c.decodeIfPresent(Bool.self, forKey: .returnsDistinctResults) ?? false
    }

    /// The entities whose instances match: the entity, plus its descendants when
    /// ``includesSubentities``.
    public func matchingEntityNames(in model: ObjectModel) -> [String] {
        includesSubentities ? model.entityAndDescendants(entityName) : [entityName]
    }
}
