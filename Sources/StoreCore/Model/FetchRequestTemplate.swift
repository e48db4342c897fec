/// A named fetch request stored in the model (Core Data's fetch request templates, the
/// `<fetchRequest>` elements of an Xcode model).
///
/// The predicate is kept as its format string, with `$VARIABLE` placeholders as written in the
/// model; substituting variables and parsing the predicate happen when the template is turned
/// into a fetch.
///
/// ```swift
/// let template = model.fetchRequestTemplate(named: "AdultUsers")
/// template?.predicateFormat   // "age >= $MIN_AGE"
/// ```
public struct FetchRequestTemplate: Sendable, Hashable, Codable {
    /// The template's name, unique in the model.
    public var name: String
    /// The entity the request fetches.
    public var entityName: String
    /// The predicate as a format string; nil for every object of the entity.
    public var predicateFormat: String?
    /// At most this many results; 0 for no limit.
    public var fetchLimit: Int
    /// A hint for how many objects to load at a time; 0 for all.
    public var fetchBatchSize: Int
    /// Whether sub-entity instances match.
    public var includesSubentities: Bool
    /// Whether unsaved changes of the fetching context are included.
    public var includesPendingChanges: Bool
    /// Whether results are returned as faults.
    public var returnsObjectsAsFaults: Bool
    /// Whether only distinct results are returned (dictionary results).
    public var returnsDistinctResults: Bool

    /// Creates a template.
    public init(
        _ name: String, entity: String, predicate: String? = nil, fetchLimit: Int = 0, fetchBatchSize: Int = 0,
        includesSubentities: Bool = true, includesPendingChanges: Bool = true, returnsObjectsAsFaults: Bool = true,
        returnsDistinctResults: Bool = false
    ) {
        self.name = name
        self.entityName = entity
        self.predicateFormat = predicate
        self.fetchLimit = fetchLimit
        self.fetchBatchSize = fetchBatchSize
        self.includesSubentities = includesSubentities
        self.includesPendingChanges = includesPendingChanges
        self.returnsObjectsAsFaults = returnsObjectsAsFaults
        self.returnsDistinctResults = returnsDistinctResults
    }

    private enum CodingKeys: String, CodingKey {
        case name, entityName, predicateFormat, fetchLimit, fetchBatchSize, includesSubentities
        case includesPendingChanges, returnsObjectsAsFaults, returnsDistinctResults
    }

    /// Decodes a template; keys other than the name and entity may be missing.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .name), entity: try c.decode(String.self, forKey: .entityName),
            predicate: try c.decodeIfPresent(String.self, forKey: .predicateFormat),
            fetchLimit: try c.decodeIfPresent(Int.self, forKey: .fetchLimit) ?? 0,
            fetchBatchSize: try c.decodeIfPresent(Int.self, forKey: .fetchBatchSize) ?? 0,
            includesSubentities: try c.decodeIfPresent(Bool.self, forKey: .includesSubentities) ?? true,
            includesPendingChanges: try c.decodeIfPresent(Bool.self, forKey: .includesPendingChanges) ?? true,
            returnsObjectsAsFaults: try c.decodeIfPresent(Bool.self, forKey: .returnsObjectsAsFaults) ?? true,
            returnsDistinctResults: try c.decodeIfPresent(Bool.self, forKey: .returnsDistinctResults) ?? false)
    }
}
