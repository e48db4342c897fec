/// Finds the uniqueness-constraint conflicts a save would create (Core Data's constraint
/// conflicts): objects being saved that share the values of a constraint with each other, or
/// with an object already in a store. The coordinator runs it under its lock before a save
/// writes anything, so it works the same on every store type, custom ones included.
///
/// Rules (Core Data's): a constraint declared on an entity holds across it and its
/// sub-entities; it lists attributes (or to-one relationships, compared by destination); an
/// object with nil for any constrained property is not constrained by it (as in SQL, nil equals
/// nothing). Objects deleted by the same save no longer count.
struct UniquenessCheck: Sendable {
    /// One constraint as it applies to an entity: the entity that declares it and its properties.
    struct Constraint: Sendable {
        let declaringEntity: String
        let properties: [String]
    }

    /// Entity name → the constraints that apply to its objects (its own and its ancestors').
    let constraints: [String: [Constraint]]

    /// The constraints of `model`; empty when it declares none (a save then checks nothing).
    init(model: ObjectModel) {
        var declared: [String: [[String]]] = [:]
        for entity in model.entities where !entity.uniquenessConstraints.isEmpty {
            declared[entity.name] = entity.uniquenessConstraints.filter { !$0.isEmpty }
        }
        var constraints: [String: [Constraint]] = [:]
        if !declared.isEmpty {
            for entity in model.entities {
                var applying: [Constraint] = []
                var current: String? = entity.name
                var seen: Set<String> = []
                while let name = current, seen.insert(name).inserted {
                    for properties in declared[name] ?? [] { applying.append(Constraint(declaringEntity: name, properties: properties)) }
                    current = model.entity(named: name)?.parentEntityName
                }
                if !applying.isEmpty { constraints[entity.name] = applying }
            }
        }
        self.constraints = constraints
    }

    /// Whether the model declares any constraint.
    var isEmpty: Bool { constraints.isEmpty }

    /// The conflicts of `request`, with `fetch` answering fetches of object nodes from every
    /// store of the coordinator (called with the coordinator's lock held).
    func conflicts(in request: SaveChangesRequest, model: ObjectModel, fetch: (FetchRequest) throws -> [StoreNode]) throws -> [ConstraintConflict] {
        guard !isEmpty else { return [] }
        struct Key: Hashable {
            let entity: String
            let properties: [String]
            let values: [StoreValue]
        }
        // Every object this save writes, with its values per constraint.
        var saving: [Key: [ObjectID]] = [:]
        var order: [Key] = []
        var inSave: Set<ObjectID> = Set(request.deletedObjects.map(\.objectID))
        for nodes in [request.insertedObjects, request.updatedObjects] {
            for index in nodes.indices {
                let node = nodes[index]
                inSave.insert(node.objectID)
                guard let applying = constraints[node.entityName] else { continue }
                for constraint in applying {
                    guard let values = Self.values(of: node, for: constraint.properties, model: model) else { continue }
                    let key = Key(entity: constraint.declaringEntity, properties: constraint.properties, values: values)
                    if saving[key] == nil { order.append(key) }
                    saving[key, default: []].append(node.objectID)
                }
            }
        }
        guard !saving.isEmpty else { return [] }
        var conflicts: [ConstraintConflict] = []
        func conflict(_ key: Key, _ ids: [ObjectID], stored: ObjectID?) -> ConstraintConflict {
            ConstraintConflict(
                entityName: key.entity, constraint: key.properties,
                values: Dictionary(uniqueKeysWithValues: zip(key.properties, key.values)), objectIDs: ids, storedObjectID: stored)
        }
        // Between objects of this save.
        for key in order where (saving[key]?.count ?? 0) > 1 {
            conflicts.append(conflict(key, saving[key] ?? [], stored: nil))
        }
        // With stored objects: one fetch per constraint for single-property constraints (an
        // `IN` of every value, in chunks), one per value combination otherwise.
        var byConstraint: [[String]: [Key]] = [:]
        var constraintOrder: [(entity: String, properties: [String])] = []
        for key in order {
            let group = [key.entity] + key.properties
            if byConstraint[group] == nil { constraintOrder.append((key.entity, key.properties)) }
            byConstraint[group, default: []].append(key)
        }
        for (entity, properties) in constraintOrder {
            let keys = byConstraint[[entity] + properties] ?? []
            var predicates: [(FetchPredicate, [Key])] = []
            if properties.count == 1 {
                for start in stride(from: 0, to: keys.count, by: Self.chunk) {
                    let part = Array(keys[start..<min(keys.count, start + Self.chunk)])
                    let values = FetchExpression.collection(part.map { .constant($0.values[0]) })
                    predicates.append((.comparison(ComparisonPredicate(.keyPath(properties[0]), .in, values)), part))
                }
            } else {
                for key in keys {
                    let parts = zip(properties, key.values).map { property, value in
                        FetchPredicate.comparison(ComparisonPredicate(.keyPath(property), .equalTo, .constant(value)))
                    }
                    predicates.append((.and(parts), [key]))
                }
            }
            for (predicate, part) in predicates {
                var request = FetchRequest(entityName: entity, predicate: predicate)
                request.includesSubentities = true
                let wanted = Set(part)
                var found: [Key: [ObjectID]] = [:]
                for node in try fetch(request) where !inSave.contains(node.objectID) {
                    guard let values = Self.values(of: node, for: properties, model: model) else { continue }
                    let key = Key(entity: entity, properties: properties, values: values)
                    if wanted.contains(key) { found[key, default: []].append(node.objectID) }
                }
                for key in part {
                    for stored in found[key] ?? [] { conflicts.append(conflict(key, saving[key] ?? [], stored: stored)) }
                }
            }
        }
        return conflicts
    }

    /// Values per fetch of single-property constraints.
    private static let chunk = 500

    /// The values of `properties` on `node`, each as its attribute's type holds it (a to-one as
    /// its destination's ID); nil when any is nil.
    private static func values(of node: StoreNode, for properties: [String], model: ObjectModel) -> [StoreValue]? {
        var values: [StoreValue] = []
        values.reserveCapacity(properties.count)
        for property in properties {
            let value = node.value(forKey: property)
            if value.isNull { return nil }
            if let attribute = model.attribute(property, of: node.entityName) {
                values.append(attribute.type.coerce(value) ?? value)
            } else {
                values.append(value)
            }
        }
        return values
    }
}

/// The 133021 error for constraint conflicts, listing each.
extension StoreError {
    static func constraintConflicts(_ conflicts: [ConstraintConflict]) -> StoreError {
        var error = StoreError(
            .managedObjectConstraintMerge,
            "Uniqueness constraint conflict: " + conflicts.map(\.description).joined(separator: "; "),
            objectIDs: conflicts.flatMap { $0.objectIDs + ($0.storedObjectID.map { [$0] } ?? []) },
            entityName: Set(conflicts.map(\.entityName)).count == 1 ? conflicts.first?.entityName : nil)
        error.constraintConflicts = conflicts
        return error
    }
}
