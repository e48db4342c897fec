extension ObjectModel {
    /// The model of `@Model` classes (and of the classes their relationships reach): one
    /// entity per class, named after it, with the properties the macro derived.
    ///
    /// ```swift
    /// let model = try ObjectModel(for: Trip.self, Accommodation.self)
    /// ```
    ///
    /// Inverses: a relationship's `inverse:` names the property on the destination; a
    /// relationship without one is paired with the destination's only relationship back to
    /// its class that names no other inverse, and has no inverse when there is none. Errors
    /// (134060, naming the class and the property): an inverse the destination does not have,
    /// that is not a relationship back to the class or that names another inverse; several
    /// candidates for an inverse; two classes with the same entity name.
    public init(for types: any PersistentModel.Type...) throws {
        try self.init(for: types)
    }

    /// The model of `@Model` classes; see `init(for:)`.
    public init(for types: [any PersistentModel.Type]) throws {
        let classes = try ModelClassSet(types)
        try self.init(entities: classes.types.map { try classes.entity(of: $0) })
    }
}

/// The `@Model` classes of a model: the given ones and those their relationships reach,
/// without duplicates, with their entity names checked.
struct ModelClassSet {
    /// The classes, the given ones first, in order.
    private(set) var types: [any PersistentModel.Type] = []

    init(_ given: [any PersistentModel.Type]) throws {
        var seen: Set<ObjectIdentifier> = []
        var byEntity: [String: any PersistentModel.Type] = [:]
        var pending = given
        var next = 0
        while next < pending.count {
            let type = pending[next]
            next += 1
            guard seen.insert(ObjectIdentifier(type)).inserted else { continue }
            let schema = type.persistentEntitySchema
            if let other = byEntity[schema.entityName] {
                throw StoreError(
                    .coreData,
                    "Invalid model: the classes \(String(reflecting: other)) and \(String(reflecting: type)) both "
                        + "declare the entity \(schema.entityName); entity names must be unique in a model",
                    entityName: schema.entityName)
            }
            byEntity[schema.entityName] = type
            types.append(type)
            for property in schema.properties {
                if case .relationship(let relationship) = property.kind { pending.append(relationship.destination) }
            }
        }
    }

    /// The entity description of a class, with its relationships' inverses resolved.
    func entity(of type: any PersistentModel.Type) throws -> EntityDescription {
        let schema = type.persistentEntitySchema
        var entity = EntityDescription(schema.entityName, className: String(reflecting: type))
        for property in schema.properties {
            if let reason = property.invalidReason {
                throw StoreError(
                    .coreData, "Invalid model: \(schema.className).\(property.name): \(reason)", entityName: schema.entityName,
                    propertyName: property.name)
            }
            switch property.kind {
            case .attribute(let attribute):
                entity.attributes.append(attribute)
                if property.isUnique { entity.uniquenessConstraints.append([property.name]) }
            case .relationship(let relationship):
                entity.relationships.append(
                    RelationshipDescription(
                        property.name, to: relationship.destination.persistentEntitySchema.entityName,
                        inverse: try inverse(of: property.name, relationship, in: type),
                        toMany: relationship.isToMany,
                        minCount: relationship.isToMany ? relationship.minimumCount : 0,
                        maxCount: relationship.isToMany ? relationship.maximumCount : 0,
                        deleteRule: relationship.deleteRule, renamingIdentifier: relationship.renamingIdentifier,
                        versionHashModifier: relationship.versionHashModifier))
            }
        }
        entity.uniquenessConstraints += schema.uniquenessConstraints
        entity.fetchIndexes += schema.fetchIndexes.map { properties in
            FetchIndexDescription(
                ModelEntitySchema.fetchIndexName(of: properties), elements: properties.map { .init(property: $0) })
        }
        return entity
    }

    /// The inverse of `type.name`: the declared one (checked), else the only candidate on
    /// the destination, else none.
    private func inverse(of name: String, _ relationship: ModelRelationshipSchema, in type: any PersistentModel.Type) throws -> String? {
        let source = type.persistentEntitySchema
        let destination = relationship.destination.persistentEntitySchema
        let qualified = "\(source.className).\(name)"
        func fail(_ message: String) -> StoreError {
            StoreError(.coreData, "Invalid model: \(qualified): \(message)", entityName: source.entityName, propertyName: name)
        }
        /// The destination's relationships back to this class (not this very relationship).
        let back = destination.properties.compactMap { property -> (name: String, relationship: ModelRelationshipSchema)? in
            guard case .relationship(let candidate) = property.kind, candidate.destination == type,
                !(relationship.destination == type && property.name == name)
            else { return nil }
            return (property.name, candidate)
        }
        if let declared = relationship.inverseName {
            if let root = relationship.inverseRoot, root != relationship.destination {
                throw fail(
                    "its inverse \\\(String(describing: root)).\(declared) is not a property of its destination "
                        + "\(destination.className)")
            }
            guard let property = destination.properties.first(where: { $0.name == declared }) else {
                throw fail("its inverse \(destination.className).\(declared) is not a persisted property of \(destination.className)")
            }
            guard case .relationship(let inverse) = property.kind, inverse.destination == type else {
                throw fail("its inverse \(destination.className).\(declared) is not a relationship to \(source.className)")
            }
            if let other = inverse.inverseName, other != name {
                throw fail(
                    "its inverse \(destination.className).\(declared) names another inverse, \(source.className).\(other)")
            }
            return declared
        }
        // The other side may name this relationship.
        if let naming = back.first(where: { $0.relationship.inverseName == name }) { return naming.name }
        let candidates = back.filter { $0.relationship.inverseName == nil }
            .filter { candidate in
                // A candidate that another relationship of this class names as its inverse is taken.
                !source.properties.contains { property in
                    guard property.name != name, case .relationship(let mine) = property.kind else { return false }
                    return mine.destination == relationship.destination && mine.inverseName == candidate.name
                }
            }
        if candidates.count > 1 {
            throw fail(
                "its inverse is ambiguous: \(candidates.map { "\(destination.className).\($0.name)" }.joined(separator: ", ")) "
                    + "all point back to \(source.className); name one with @Relationship(inverse: \\\(destination.className).<property>)")
        }
        return candidates.first?.name
    }
}
