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

    private enum CodingKeys: String, CodingKey {
        case name, destinationEntityName, inverseName, isToMany, isOrdered, isOptional, isTransient, minCount
        case maxCount, deleteRule, renamingIdentifier, versionHashModifier, userInfo
    }

    /// Decodes a relationship; every key but `name` and `destinationEntityName` may be missing
    /// (the DSL's defaults apply).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .name), to: try c.decode(String.self, forKey: .destinationEntityName),
            inverse: try c.decodeIfPresent(String.self, forKey: .inverseName),
            toMany: try c.decodeIfPresent(Bool.self, forKey: .isToMany) ?? false,
            ordered: try c.decodeIfPresent(Bool.self, forKey: .isOrdered) ?? false,
            optional: try c.decodeIfPresent(Bool.self, forKey: .isOptional) ?? true,
            transient: try c.decodeIfPresent(Bool.self, forKey: .isTransient) ?? false,
            minCount: try c.decodeIfPresent(Int.self, forKey: .minCount) ?? 0,
            maxCount: try c.decodeIfPresent(Int.self, forKey: .maxCount) ?? 0,
            deleteRule: try c.decodeIfPresent(DeleteRule.self, forKey: .deleteRule) ?? .nullify,
            renamingIdentifier: try c.decodeIfPresent(String.self, forKey: .renamingIdentifier),
            versionHashModifier: try c.decodeIfPresent(String.self, forKey: .versionHashModifier),
            userInfo: try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:])
    }
}
