import Foundation

/// A managed object model: entities with their properties and inheritance, configurations, and
/// version identifiers. A Sendable, Hashable, Codable value, validated when it is created.
///
/// Build one in code with the DSL, decode it from JSON (``init(jsonData:)``), or read it from
/// an Xcode model.
///
/// ```swift
/// let model = try ObjectModel {
///     Entity("Team") {
///         Attribute("name", .string)
///         Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
///     }
///     Entity("Player") {
///         Attribute("lastName", .string)
///         Relationship("team", to: "Team", inverse: "players")
///     }
/// }
/// ```
///
/// Validation rejects (with a 134060 ``StoreError`` whose message starts "Invalid model:"):
/// duplicate entity or property names (a sub-entity may not redeclare an inherited property),
/// unknown parent or destination entities, inheritance cycles, an inverse that does not exist or
/// does not point back, a default value of the wrong type, min count above max count, and
/// configurations naming unknown entities.
public struct ObjectModel: Sendable {
    /// The entities in declaration order.
    public let entities: [EntityDescription]
    /// Named configurations: configuration name → entity names. The default configuration
    /// (nil name) holds every entity.
    public let configurations: [String: [String]]
    /// The model's version identifiers (informational, as in Core Data; an Xcode model's
    /// "Identifier" field). Written to store metadata as `NSStoreModelVersionIdentifiers`.
    public let versionIdentifiers: [String]
    /// Named fetch requests stored in the model, in declaration order.
    public let fetchRequestTemplates: [FetchRequestTemplate]
    private let index: ModelIndex

    /// Creates and validates a model from entities.
    public init(
        entities: [EntityDescription], configurations: [String: [String]] = [:],
        versionIdentifiers: [String] = [], fetchRequestTemplates: [FetchRequestTemplate] = []
    ) throws {
        self.entities = entities
        self.configurations = configurations
        self.versionIdentifiers = versionIdentifiers
        self.fetchRequestTemplates = fetchRequestTemplates
        let index = try ModelIndex(entities: entities, configurations: configurations)
        try Self.validateFetchParts(entities: entities, templates: fetchRequestTemplates, index: index)
        self.index = index
    }

    /// Creates and validates a model from the entities listed in the builder.
    public init(
        configurations: [String: [String]] = [:], versionIdentifiers: [String] = [],
        fetchRequestTemplates: [FetchRequestTemplate] = [],
        @ModelBuilder _ entities: () -> [EntityDescription]
    ) throws {
        try self.init(
            entities: entities(), configurations: configurations, versionIdentifiers: versionIdentifiers,
            fetchRequestTemplates: fetchRequestTemplates)
    }

    /// The store metadata that depends on the model alone: `compute()` the first time it is
    /// asked for, the same value after (its JSON and version hashes cost more than the rest of
    /// making a store, and every store of the model asks for it when it is made and saved).
    func cachedModelMetadata(_ compute: () -> StoreMetadata) -> StoreMetadata {
        index.modelMetadata.withLock { cached in
            if let cached { return cached }
            let metadata = compute()
            cached = metadata
            return metadata
        }
    }

    /// The fetch request template with that name.
    public func fetchRequestTemplate(named name: String) -> FetchRequestTemplate? {
        fetchRequestTemplates.first { $0.name == name }
    }

    /// The fetch request of a template with its `$variables` substituted (Core Data's
    /// `fetchRequestFromTemplate(withName:substitutionVariables:)`); 134060 for an unknown name
    /// or a predicate that does not parse.
    ///
    /// ```swift
    /// let request = try model.fetchRequest(fromTemplateNamed: "AdultUsers", substitutionVariables: ["MIN_AGE": 18])
    /// ```
    public func fetchRequest(
        fromTemplateNamed name: String, substitutionVariables: [String: any PredicateArgument] = [:]
    ) throws -> FetchRequest {
        guard let template = fetchRequestTemplate(named: name) else {
            throw StoreError(.coreData, "The model has no fetch request template named \(name)")
        }
        return try FetchRequest(template: template, substitutionVariables: substitutionVariables)
    }

    /// Entity names in declaration order.
    public var entityNames: [String] { entities.map(\.name) }

    /// The entity with that name.
    public func entity(named name: String) -> EntityDescription? { index.entities[name]?.description }

    /// The compiled slot layout of an entity (see ``EntityLayout``); nil for an unknown name.
    public func layout(ofEntity name: String) -> EntityLayout? { index.entities[name]?.layout }

    /// The compiled layout of an object ID's entity, found by the ID's interned entity number
    /// (numbers are unique per name in the process, so no text is compared).
    func layout(for objectID: ObjectID) -> EntityLayout? {
        let number = objectID.entityNumber
        guard number < index.layoutsByNumber.count else { return nil }
        return index.layoutsByNumber[number]
    }

    /// All attributes of an entity, inherited ones first; empty for an unknown entity.
    public func attributes(of entityName: String) -> [AttributeDescription] {
        index.entities[entityName]?.attributes ?? []
    }

    /// All relationships of an entity, inherited ones first; empty for an unknown entity.
    public func relationships(of entityName: String) -> [RelationshipDescription] {
        index.entities[entityName]?.relationships ?? []
    }

    /// The attribute of that name on the entity or one of its ancestors.
    public func attribute(_ name: String, of entityName: String) -> AttributeDescription? {
        index.entities[entityName]?.attributesByName[name]
    }

    /// The relationship of that name on the entity or one of its ancestors.
    public func relationship(_ name: String, of entityName: String) -> RelationshipDescription? {
        index.entities[entityName]?.relationshipsByName[name]
    }

    /// The inverse of a relationship, when it has one.
    public func inverse(of relationship: RelationshipDescription) -> RelationshipDescription? {
        guard let inverse = relationship.inverseName else { return nil }
        return self.relationship(inverse, of: relationship.destinationEntityName)
    }

    /// Direct sub-entities of an entity.
    public func subentityNames(of entityName: String) -> [String] {
        index.entities[entityName]?.subentities ?? []
    }

    /// The entity and all its descendants, the entity first.
    public func entityAndDescendants(_ entityName: String) -> [String] {
        index.entities[entityName]?.selfAndDescendants ?? []
    }

    /// Whether `entityName` is `ancestorName` or inherits from it.
    public func isEntity(_ entityName: String, kindOf ancestorName: String) -> Bool {
        index.entities[entityName]?.selfAndAncestors.contains(ancestorName) ?? false
    }

    /// The root of the entity's inheritance tree (the entity itself when it has no parent).
    public func rootEntityName(of entityName: String) -> String? { index.entities[entityName]?.root }

    /// The entity names in a configuration; every entity for nil (the default configuration).
    /// Sub-entities of a listed entity belong to the configuration too.
    public func entityNames(inConfiguration name: String?) -> [String] {
        guard let name, let listed = configurations[name] else { return entityNames }
        var result: [String] = []
        var seen: Set<String> = []
        for entity in listed {
            for member in entityAndDescendants(entity) where seen.insert(member).inserted {
                result.append(member)
            }
        }
        return result
    }

    /// Whether the configuration (nil: default) holds the entity.
    public func configuration(_ name: String?, contains entityName: String) -> Bool {
        guard let name, configurations[name] != nil else { return index.entities[entityName] != nil }
        return index.configurationMembers[name]?.contains(entityName) ?? false
    }
}

extension ObjectModel: Hashable {
    /// Models are equal when their entities, configurations, version identifiers and fetch
    /// request templates are.
    public static func == (lhs: ObjectModel, rhs: ObjectModel) -> Bool {
        lhs.entities == rhs.entities && lhs.configurations == rhs.configurations
            && lhs.versionIdentifiers == rhs.versionIdentifiers
            && lhs.fetchRequestTemplates == rhs.fetchRequestTemplates
    }

    /// Hashes the declared parts.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(entities)
        hasher.combine(configurations)
        hasher.combine(versionIdentifiers)
        hasher.combine(fetchRequestTemplates)
    }
}

extension ObjectModel: Codable {
    private enum CodingKeys: String, CodingKey { case entities, configurations, versionIdentifiers, fetchRequestTemplates }

    /// Encodes entities, configurations, version identifiers and fetch request templates (the
    /// last only when there are some).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(entities, forKey: .entities)
        try c.encode(configurations, forKey: .configurations)
        try c.encode(versionIdentifiers, forKey: .versionIdentifiers)
        if !fetchRequestTemplates.isEmpty { try c.encode(fetchRequestTemplates, forKey: .fetchRequestTemplates) }
    }

    /// Decodes and validates a model.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            entities: c.decode([EntityDescription].self, forKey: .entities),
            configurations: c.decodeIfPresent([String: [String]].self, forKey: .configurations) ?? [:],
            versionIdentifiers: c.decodeIfPresent([String].self, forKey: .versionIdentifiers) ?? [],
            fetchRequestTemplates: c.decodeIfPresent([FetchRequestTemplate].self, forKey: .fetchRequestTemplates) ?? [])
    }

    /// The model as JSON (sorted keys, so the same model always gives the same bytes).
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(self)
    }

    /// Decodes a model from ``jsonData()``'s output; a malformed or invalid model is a 134060
    /// ``StoreError``.
    public init(jsonData: Data) throws {
        do {
            self = try JSONDecoder().decode(ObjectModel.self, from: jsonData)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.coreData, "Invalid model JSON: \(error)")
        }
    }
}

extension ObjectModel {
    /// Checks what refers to entities and properties besides relationships: fetched properties
    /// (a known destination, a name no other property of the entity has), fetch indexes and
    /// uniqueness constraints (known properties), fetch request templates (unique names, known
    /// entities).
    private static func validateFetchParts(
        entities: [EntityDescription], templates: [FetchRequestTemplate], index: ModelIndex
    ) throws {
        for entity in entities {
            guard let resolved = index.entities[entity.name] else { continue }
            func isProperty(_ name: String) -> Bool {
                resolved.attributesByName[name] != nil || resolved.relationshipsByName[name] != nil
            }
            var fetchedNames: Set<String> = []
            for fetched in entity.fetchedProperties {
                let qualified = "\(entity.name).\(fetched.name)"
                guard !fetched.name.isEmpty, !isProperty(fetched.name), fetchedNames.insert(fetched.name).inserted else {
                    throw StoreError.invalidModel(
                        "property \(qualified) is declared twice", entity: entity.name, property: fetched.name)
                }
                guard index.entities[fetched.destinationEntityName] != nil else {
                    throw StoreError.invalidModel(
                        "fetched property \(qualified) fetches unknown entity \(fetched.destinationEntityName)",
                        entity: entity.name, property: fetched.name)
                }
            }
            for fetchIndex in entity.fetchIndexes {
                for element in fetchIndex.elements {
                    if let property = element.propertyName {
                        guard isProperty(property) else {
                            throw StoreError.invalidModel(
                                "fetch index \(entity.name).\(fetchIndex.name) names unknown property \(property)",
                                entity: entity.name, property: property)
                        }
                    } else if element.expression == nil {
                        throw StoreError.invalidModel(
                            "fetch index \(entity.name).\(fetchIndex.name) has an element with neither property nor expression",
                            entity: entity.name)
                    }
                }
            }
            for attribute in entity.attributes {
                guard let text = attribute.derivationExpression else { continue }
                _ = try AttributeDerivation(text, entity: entity.name, attribute: attribute.name)
                if attribute.isTransient {
                    throw StoreError.invalidModel(
                        "derived attribute \(entity.name).\(attribute.name) is transient; derived values are stored",
                        entity: entity.name, property: attribute.name)
                }
            }
            for constraint in entity.uniquenessConstraints {
                for property in constraint where !isProperty(property) {
                    throw StoreError.invalidModel(
                        "uniqueness constraint of \(entity.name) names unknown property \(property)",
                        entity: entity.name, property: property)
                }
            }
        }
        var templateNames: Set<String> = []
        for template in templates {
            guard templateNames.insert(template.name).inserted else {
                throw StoreError.invalidModel("fetch request template \(template.name) is declared twice")
            }
            guard index.entities[template.entityName] != nil else {
                throw StoreError.invalidModel(
                    "fetch request template \(template.name) fetches unknown entity \(template.entityName)",
                    entity: template.entityName)
            }
        }
    }
}

/// The resolved form of a model: inheritance flattened, lookups by name. Immutable after init.
private final class ModelIndex: Sendable {
    struct ResolvedEntity: Sendable {
        let description: EntityDescription
        let attributes: [AttributeDescription]
        let attributesByName: [String: AttributeDescription]
        let relationships: [RelationshipDescription]
        let relationshipsByName: [String: RelationshipDescription]
        let subentities: [String]
        let selfAndDescendants: [String]
        let selfAndAncestors: [String]
        let root: String
        let layout: EntityLayout
    }

    let entities: [String: ResolvedEntity]
    /// Compiled layouts by interned entity number (``InternedName/number``): an object ID finds
    /// its entity's layout by index, without hashing the name.
    let layoutsByNumber: [EntityLayout?]
    let configurationMembers: [String: Set<String>]
    /// ``PersistentStore/modelMetadata(for:)`` once it was computed (the model never changes).
    let modelMetadata = Locked<StoreMetadata?>(nil)

    init(entities declared: [EntityDescription], configurations: [String: [String]]) throws {
        var byName: [String: EntityDescription] = [:]
        for entity in declared {
            guard !entity.name.isEmpty else { throw StoreError.invalidModel("an entity has an empty name") }
            guard byName[entity.name] == nil else {
                throw StoreError.invalidModel("entity \(entity.name) is declared twice", entity: entity.name)
            }
            byName[entity.name] = entity
        }
        // Ancestor chains, checking parents exist and there is no cycle.
        var chains: [String: [String]] = [:]
        for entity in declared {
            var chain = [entity.name]
            var current = entity
            while let parent = current.parentEntityName {
                guard let parentEntity = byName[parent] else {
                    throw StoreError.invalidModel(
                        "entity \(current.name) has unknown parent entity \(parent)", entity: current.name)
                }
                guard !chain.contains(parent) else {
                    throw StoreError.invalidModel("entity \(entity.name) inherits from itself", entity: entity.name)
                }
                chain.append(parent)
                current = parentEntity
            }
            chains[entity.name] = chain
        }
        var children: [String: [String]] = [:]
        for entity in declared {
            if let parent = entity.parentEntityName { children[parent, default: []].append(entity.name) }
        }
        func descendants(_ name: String) -> [String] {
            [name] + (children[name] ?? []).flatMap(descendants)
        }

        // First the flattened properties of every entity, then the entities with their layouts
        // (a layout knows each relationship's inverse, found in its destination's properties).
        var flattened: [String: (attributes: [AttributeDescription], relationships: [RelationshipDescription])] = [:]
        for entity in declared {
            let chain = chains[entity.name] ?? [entity.name]
            var attributes: [AttributeDescription] = []
            var relationships: [RelationshipDescription] = []
            var names: Set<String> = []
            for ancestor in chain.reversed() {
                guard let declaredEntity = byName[ancestor] else { continue }
                for attribute in declaredEntity.attributes {
                    guard !attribute.name.isEmpty, names.insert(attribute.name).inserted else {
                        throw StoreError.invalidModel(
                            "property \(entity.name).\(attribute.name) is declared twice", entity: entity.name,
                            property: attribute.name)
                    }
                    if let value = attribute.defaultValue, attribute.type.coerce(value) == nil {
                        throw StoreError.invalidModel(
                            "default value \(value) of \(ancestor).\(attribute.name) is not a \(attribute.type.rawValue)",
                            entity: ancestor, property: attribute.name)
                    }
                    attributes.append(attribute)
                }
                for relationship in declaredEntity.relationships {
                    guard !relationship.name.isEmpty, names.insert(relationship.name).inserted else {
                        throw StoreError.invalidModel(
                            "property \(entity.name).\(relationship.name) is declared twice", entity: entity.name,
                            property: relationship.name)
                    }
                    relationships.append(relationship)
                }
            }
            flattened[entity.name] = (attributes, relationships)
        }
        var relationshipsByEntity: [String: [String: RelationshipDescription]] = [:]
        for (name, properties) in flattened {
            relationshipsByEntity[name] = Dictionary(properties.relationships.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        }
        var resolved: [String: ResolvedEntity] = [:]
        for entity in declared {
            let chain = chains[entity.name] ?? [entity.name]
            let (attributes, relationships) = flattened[entity.name] ?? ([], [])
            let relationshipsByName = relationshipsByEntity[entity.name] ?? [:]
            // What `inverse(of:)` answers; a missing or wrong inverse fails validation below.
            let inverses = relationships.map { relationship in
                relationship.inverseName.flatMap { relationshipsByEntity[relationship.destinationEntityName]?[$0] }
            }
            resolved[entity.name] = ResolvedEntity(
                description: entity, attributes: attributes,
                attributesByName: Dictionary(attributes.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a }),
                relationships: relationships,
                relationshipsByName: relationshipsByName,
                subentities: children[entity.name] ?? [], selfAndDescendants: descendants(entity.name),
                selfAndAncestors: chain, root: chain.last ?? entity.name,
                layout: EntityLayout(
                    entity: entity, attributes: attributes, relationships: relationships, inverses: inverses, byModel: true))
        }

        // Relationships: destinations and inverses.
        for entity in declared {
            for relationship in entity.relationships {
                let qualified = "\(entity.name).\(relationship.name)"
                guard let destination = resolved[relationship.destinationEntityName] else {
                    throw StoreError.invalidModel(
                        "relationship \(qualified) has unknown destination entity \(relationship.destinationEntityName)",
                        entity: entity.name, property: relationship.name)
                }
                if relationship.isToMany, relationship.maxCount > 0, relationship.minCount > relationship.maxCount {
                    throw StoreError.invalidModel(
                        "relationship \(qualified) has min count \(relationship.minCount) above max count \(relationship.maxCount)",
                        entity: entity.name, property: relationship.name)
                }
                guard let inverseName = relationship.inverseName else { continue }
                guard let inverse = destination.relationshipsByName[inverseName] else {
                    throw StoreError.invalidModel(
                        "relationship \(qualified) names inverse \(inverseName), which \(relationship.destinationEntityName) does not have",
                        entity: entity.name, property: relationship.name)
                }
                let pointsBack =
                    inverse.inverseName == relationship.name
                    && (resolved[entity.name]?.selfAndAncestors.contains(inverse.destinationEntityName) ?? false)
                guard pointsBack else {
                    throw StoreError.invalidModel(
                        "relationship \(qualified) names inverse \(relationship.destinationEntityName).\(inverseName), which does not point back to \(qualified)",
                        entity: entity.name, property: relationship.name)
                }
            }
        }

        var members: [String: Set<String>] = [:]
        for (name, listed) in configurations {
            var set: Set<String> = []
            for entity in listed {
                guard let resolvedEntity = resolved[entity] else {
                    throw StoreError.invalidModel("configuration \(name) names unknown entity \(entity)", entity: entity)
                }
                set.formUnion(resolvedEntity.selfAndDescendants)
            }
            members[name] = set
        }
        self.entities = resolved
        self.configurationMembers = members
        var layouts: [EntityLayout?] = []
        for (name, entity) in resolved {
            let number = NameTable.entities.intern(name).number
            if layouts.count <= number { layouts += Array(repeating: nil, count: number + 1 - layouts.count) }
            layouts[number] = entity.layout
        }
        self.layoutsByNumber = layouts
    }
}
