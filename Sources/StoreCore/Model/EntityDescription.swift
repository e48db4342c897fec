/// An entity as declared: its own attributes and relationships, its parent, and its options.
///
/// Inherited properties are not repeated here; ``ObjectModel`` resolves inheritance
/// (``ObjectModel/attributes(of:)`` lists inherited ones first).
///
/// ```swift
/// EntityDescription("Circle", parent: "Shape") {
///     AttributeDescription("radius", .float, defaultValue: 8.0)
/// }
/// ```
public struct EntityDescription: Sendable, Hashable, Codable {
    /// The entity name.
    public var name: String
    /// The parent entity's name; nil for a root entity.
    public var parentEntityName: String?
    /// Whether instances of exactly this entity may not be created.
    public var isAbstract: Bool
    /// Attributes declared on this entity.
    public var attributes: [AttributeDescription]
    /// Relationships declared on this entity.
    public var relationships: [RelationshipDescription]
    /// Fetched properties declared on this entity.
    public var fetchedProperties: [FetchedPropertyDescription]
    /// Fetch indexes declared on this entity (a hint for stores).
    public var fetchIndexes: [FetchIndexDescription]
    /// The name of the class an application uses for the entity (informational on Linux; see
    /// ``PersistentStoreCoordinator/register(_:forEntityName:)`` for typed subclasses).
    public var className: String?
    /// The name this entity had in an earlier model version.
    public var renamingIdentifier: String?
    /// Changes the version hash without another change.
    public var versionHashModifier: String?
    /// Sets of property names whose values must be unique together.
    public var uniquenessConstraints: [[String]]
    /// Free-form user info.
    public var userInfo: [String: String]

    /// Creates an entity description with its properties listed in a builder.
    public init(
        _ name: String, parent: String? = nil, abstract: Bool = false, className: String? = nil,
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil,
        uniquenessConstraints: [[String]] = [], userInfo: [String: String] = [:],
        fetchIndexes: [FetchIndexDescription] = [],
        @EntityBuilder properties: () -> [EntityMember] = { [] }
    ) {
        self.name = name
        self.parentEntityName = parent
        self.isAbstract = abstract
        self.className = className
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.uniquenessConstraints = uniquenessConstraints
        self.userInfo = userInfo
        self.fetchIndexes = fetchIndexes
        var attributes: [AttributeDescription] = []
        var relationships: [RelationshipDescription] = []
        var fetchedProperties: [FetchedPropertyDescription] = []
        for member in properties() {
            switch member {
            case .attribute(let a): attributes.append(a)
            case .relationship(let r): relationships.append(r)
            case .fetchedProperty(let f): fetchedProperties.append(f)
            }
        }
        self.attributes = attributes
        self.relationships = relationships
        self.fetchedProperties = fetchedProperties
    }

    /// Names of the attributes and relationships declared on this entity (fetched properties are
    /// listed in ``fetchedProperties``).
    public var propertyNames: [String] { attributes.map(\.name) + relationships.map(\.name) }

    private enum CodingKeys: String, CodingKey {
        case name, parentEntityName, isAbstract, attributes, relationships, fetchedProperties, fetchIndexes
        case className, renamingIdentifier, versionHashModifier, uniquenessConstraints, userInfo
    }

    /// Decodes an entity; every key but `name` may be missing (the DSL's defaults apply), so
    /// hand-written JSON models stay short.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try c.decode(String.self, forKey: .name)
        self.parentEntityName = try c.decodeIfPresent(String.self, forKey: .parentEntityName)
        self.isAbstract = try c.decodeIfPresent(Bool.self, forKey: .isAbstract) ?? false
        self.attributes = try c.decodeIfPresent([AttributeDescription].self, forKey: .attributes) ?? []
        self.relationships = try c.decodeIfPresent([RelationshipDescription].self, forKey: .relationships) ?? []
        self.fetchedProperties =
            try c.decodeIfPresent([FetchedPropertyDescription].self, forKey: .fetchedProperties) ?? []
        self.fetchIndexes = try c.decodeIfPresent([FetchIndexDescription].self, forKey: .fetchIndexes) ?? []
        self.className = try c.decodeIfPresent(String.self, forKey: .className)
        self.renamingIdentifier = try c.decodeIfPresent(String.self, forKey: .renamingIdentifier)
        self.versionHashModifier = try c.decodeIfPresent(String.self, forKey: .versionHashModifier)
        self.uniquenessConstraints = try c.decodeIfPresent([[String]].self, forKey: .uniquenessConstraints) ?? []
        self.userInfo = try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:]
    }
}

/// One property in an ``EntityBuilder`` block.
public enum EntityMember: Sendable, Hashable {
    /// An attribute.
    case attribute(AttributeDescription)
    /// A relationship.
    case relationship(RelationshipDescription)
    /// A fetched property.
    case fetchedProperty(FetchedPropertyDescription)
}

/// Builds an entity's property list from attribute and relationship descriptions.
@resultBuilder
public enum EntityBuilder {
    /// An attribute.
    public static func buildExpression(_ attribute: AttributeDescription) -> [EntityMember] { [.attribute(attribute)] }
    /// A relationship.
    public static func buildExpression(_ relationship: RelationshipDescription) -> [EntityMember] {
        [.relationship(relationship)]
    }
    /// A fetched property.
    public static func buildExpression(_ fetchedProperty: FetchedPropertyDescription) -> [EntityMember] {
        [.fetchedProperty(fetchedProperty)]
    }
    /// Several properties.
    public static func buildBlock(_ parts: [EntityMember]...) -> [EntityMember] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [EntityMember]?) -> [EntityMember] { part ?? [] }
    /// An `if`/`else`, first branch.
    public static func buildEither(first part: [EntityMember]) -> [EntityMember] { part }
    /// An `if`/`else`, second branch.
    public static func buildEither(second part: [EntityMember]) -> [EntityMember] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[EntityMember]]) -> [EntityMember] { parts.flatMap { $0 } }
}

/// Builds a model's entity list.
@resultBuilder
public enum ModelBuilder {
    /// An entity.
    public static func buildExpression(_ entity: EntityDescription) -> [EntityDescription] { [entity] }
    /// Several entities.
    public static func buildBlock(_ parts: [EntityDescription]...) -> [EntityDescription] { parts.flatMap { $0 } }
    /// An `if` without `else`.
    public static func buildOptional(_ part: [EntityDescription]?) -> [EntityDescription] { part ?? [] }
    /// An `if`/`else`, first branch.
    public static func buildEither(first part: [EntityDescription]) -> [EntityDescription] { part }
    /// An `if`/`else`, second branch.
    public static func buildEither(second part: [EntityDescription]) -> [EntityDescription] { part }
    /// A `for` loop.
    public static func buildArray(_ parts: [[EntityDescription]]) -> [EntityDescription] { parts.flatMap { $0 } }
}

/// Short names for the model DSL: `Entity`, `Attribute`, `Relationship`.
///
/// ```swift
/// let model = try ObjectModel {
///     Entity("Team") {
///         Attribute("name", .string)
///         Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
///     }
///     Entity("Player") {
///         Attribute("firstName", .string)
///         Relationship("team", to: "Team", inverse: "players")
///     }
/// }
/// ```
public typealias Entity = EntityDescription
/// Short name for ``AttributeDescription`` in the model DSL.
public typealias Attribute = AttributeDescription
/// Short name for ``RelationshipDescription`` in the model DSL.
public typealias Relationship = RelationshipDescription
