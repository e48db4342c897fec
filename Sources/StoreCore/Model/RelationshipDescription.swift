/// A relationship of an entity: destination, inverse, cardinality, ordering and delete rule.
///
/// ```swift
/// RelationshipDescription("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
/// RelationshipDescription("team", to: "Team", inverse: "players")
/// ```
public struct RelationshipDescription: Sendable, Hashable, Codable {
    /// The property name.
    public var name: String
    /// The destination entity's name.
    public var destinationEntityName: String
    /// The inverse relationship's name on the destination; nil for none.
    public var inverseName: String?
    /// To-many (a collection) or to-one.
    public var isToMany: Bool
    /// Whether a to-many keeps its order.
    public var isOrdered: Bool
    /// Whether empty / nil is valid at save (Core Data's default: true).
    public var isOptional: Bool
    /// Whether the relationship is kept in memory only.
    public var isTransient: Bool
    /// Fewest related objects valid at save (to-many); 0 for no minimum.
    public var minCount: Int
    /// Most related objects valid at save (to-many); 0 for no maximum.
    public var maxCount: Int
    /// What deleting the source does to the destinations.
    public var deleteRule: DeleteRule
    /// The name this relationship had in an earlier model version.
    public var renamingIdentifier: String?
    /// Changes the version hash without another change.
    public var versionHashModifier: String?
    /// Free-form user info.
    public var userInfo: [String: String]

    /// Creates a relationship description.
    public init(
        _ name: String, to destination: String, inverse: String? = nil, toMany: Bool = false,
        ordered: Bool = false, optional: Bool = true, transient: Bool = false, minCount: Int = 0,
        maxCount: Int = 0, deleteRule: DeleteRule = .nullify, renamingIdentifier: String? = nil,
        versionHashModifier: String? = nil, userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.inverseName = inverse
        self.isToMany = toMany
        self.isOrdered = ordered
        self.isOptional = optional
        self.isTransient = transient
        self.minCount = minCount
        self.maxCount = maxCount
        self.deleteRule = deleteRule
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }
}
