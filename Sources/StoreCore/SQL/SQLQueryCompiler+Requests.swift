import Foundation

/// The parts of fetch and batch requests every SQL store writes the same way: which rows of the
/// fetched table a request selects, what a batch update assigns to a to-one, and what a batch
/// delete must clean up.
extension SQLQueryCompiler {
    /// The `Z_ENT` restriction for `numbers` of a table whose tree has `all`; nil when every row
    /// of the table matches. Entity numbers come from the schema, never from the caller, so they
    /// are written into the SQL.
    package static func entityRestriction(_ numbers: [Int], of all: [Int], alias: String? = nil) -> String? {
        if Set(numbers) == Set(all) { return nil }
        let column = (alias.map { "\($0)." } ?? "") + "Z_ENT"
        if numbers.count == 1 { return "\(column) = \(numbers[0])" }
        return "\(column) IN (\(numbers.map(String.init).joined(separator: ", ")))"
    }

    /// The conditions on `t0` that select the rows of a request on `mapping`: the entity
    /// numbers and the compiled predicate.
    package func selection(entity mapping: SQLEntityMapping, includesSubentities: Bool, predicate: FetchPredicate?) throws -> [String] {
        let numbers = includesSubentities ? mapping.numbersWithDescendants : [mapping.number]
        let tree = schema.entities[mapping.root]?.numbersWithDescendants ?? mapping.numbersWithDescendants
        var conditions: [String] = []
        if let restriction = Self.entityRestriction(numbers, of: tree, alias: "t0") { conditions.append(restriction) }
        if let predicate, predicate != .truePredicate { conditions.append(try condition(predicate)) }
        return conditions
    }

    /// The conditions on `t0` and the entity numbers of a batch delete of `ids` (objects of
    /// `mapping`'s entity tree; `key` gives each one's primary key): an entity restriction and
    /// the keys as one bound list (SQLite: a JSON array read with `json_each`; PostgreSQL: an
    /// array parameter), so any number of IDs fits the engines' limits.
    ///
    /// - Throws: 134060 for an ID of another entity tree; `key`'s errors.
    package func selection(deleting ids: [ObjectID], of mapping: SQLEntityMapping, key: (ObjectID) throws -> Int64) throws
        -> (conditions: [String], entityNumbers: [Int])
    {
        var keys: [Int64] = []
        var numbers: Set<Int> = []
        for id in ids {
            keys.append(try key(id))
            guard let number = schema.entityNumbers[id.entityName], mapping.root == schema.entities[id.entityName]?.root else {
                throw StoreError(
                    .coreData, "A batch delete of \(mapping.root) objects cannot delete \(id)", objectIDs: [id], entityName: id.entityName)
            }
            numbers.insert(number)
        }
        let entityNumbers = numbers.sorted()
        let tree = schema.entities[mapping.root]?.numbersWithDescendants ?? mapping.numbersWithDescendants
        var conditions: [String] = []
        if let restriction = Self.entityRestriction(entityNumbers, of: tree, alias: "t0") { conditions.append(restriction) }
        let list = keys.map(String.init).joined(separator: ",")
        switch dialect.kind {
        case .sqlite: conditions.append("t0.Z_PK IN (SELECT value FROM json_each(\(parameter(.string("[" + list + "]")))))")
        case .postgreSQL: conditions.append("t0.Z_PK = ANY(\(parameter(.string("{" + list + "}")))::bigint[])")
        }
        return (conditions, entityNumbers)
    }

    /// The column assignments of a batch update that sets a to-one relationship to an object of
    /// this store or nil.
    ///
    /// - Throws: 133010 for an object of another store or entity; 134060 for anything but an
    ///   object ID or nil.
    package func toOneAssignments(_ toOne: SQLEntityMapping.ToOneColumn, _ expression: FetchExpression, entity: String) throws
        -> [(column: String, value: String, isConstant: Bool)]
    {
        switch expression {
        case .constant(.null):
            return [(toOne.column, "NULL", true)] + (toOne.entityColumn.map { [($0, "NULL", true)] } ?? [])
        case .constant(.objectID(let destination)):
            guard destination.storeIdentifier == storeIdentifier, case .int(let key)? = destination.referenceObject,
                let number = schema.entityNumbers[destination.entityName],
                model.isEntity(destination.entityName, kindOf: toOne.destination)
            else {
                throw StoreError(
                    .managedObjectExternalRelationship,
                    "Batch update of \(entity).\(toOne.name): \(destination) is not a \(toOne.destination) of this store",
                    objectIDs: [destination], entityName: entity, propertyName: toOne.name)
            }
            return [(toOne.column, parameter(.int(key)), true)]
                + (toOne.entityColumn.map { [($0, parameter(.int(Int64(number))), true)] } ?? [])
        default:
            throw StoreError(
                .coreData, "Batch update of \(entity).\(toOne.name): a to-one relationship takes an object ID or nil, not \(expression)",
                entityName: entity, propertyName: toOne.name)
        }
    }

    /// The column assignments of a batch update of `mapping` (compiled before the condition:
    /// both may add joins to `t0`).
    ///
    /// - Throws: 134060 for a property that is not a stored attribute or to-one; the errors of
    ///   ``assignment(_:to:entity:property:)`` and ``toOneAssignments(_:_:entity:)``.
    package func assignments(_ properties: [String: FetchExpression], of mapping: SQLEntityMapping) throws
        -> [(column: String, value: String, isConstant: Bool)]
    {
        var assignments: [(column: String, value: String, isConstant: Bool)] = []
        for name in properties.keys.sorted() {
            guard let expression = properties[name] else { continue }
            if let attribute = mapping.attributes.first(where: { $0.name == name }) {
                let value = try assignment(expression, to: attribute.type, entity: mapping.name, property: name)
                let isConstant: Bool
                if case .constant = expression { isConstant = true } else { isConstant = false }
                assignments.append((attribute.column, value, isConstant))
            } else if let toOne = mapping.toOnes.first(where: { $0.name == name }) {
                assignments += try toOneAssignments(toOne, expression, entity: mapping.name)
            } else {
                throw StoreError(
                    .coreData, "Batch update of \(mapping.name): \(name) is not a stored attribute or to-one relationship of the entity",
                    entityName: mapping.name, propertyName: name)
            }
        }
        return assignments
    }

    /// The `UPDATE` of a batch update of `mapping` that sets `assignments` (and adds one to
    /// `Z_OPT`) on the rows `conditions` select. Key paths through to-ones (joins of `t0`)
    /// select the rows, and compute each value that is not a constant, in subqueries.
    package func batchUpdateStatement(
        of mapping: SQLEntityMapping, assignments: [(column: String, value: String, isConstant: Bool)], conditions: [String]
    ) -> String {
        let table = SQLSchema.sql(mapping.table)
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        if rootJoins.clauses.isEmpty {
            let sets = ["Z_OPT = Z_OPT + 1"] + assignments.map { "\(SQLSchema.sql($0.column)) = \($0.value)" }
            return "UPDATE \(table) AS t0 SET \(sets.joined(separator: ", "))\(whereClause)"
        }
        let from = ([table + " t0"] + rootJoins.clauses).joined(separator: " ")
        let sets = ["Z_OPT = Z_OPT + 1"] + assignments.map { assignment in
            assignment.isConstant
                ? "\(SQLSchema.sql(assignment.column)) = \(assignment.value)"
                : "\(SQLSchema.sql(assignment.column)) = (SELECT \(assignment.value) FROM \(from) WHERE t0.Z_PK = \(table).Z_PK)"
        }
        return "UPDATE \(table) SET \(sets.joined(separator: ", ")) WHERE Z_PK IN (SELECT t0.Z_PK FROM \(from)\(whereClause))"
    }
}

extension SQLSchema {
    /// The statements that remove what refers to deleted rows of `entityNumbers` (whose keys
    /// the subquery `keys` selects): join-table rows on either side of a many-to-many, and
    /// inverse-less to-many keys (with their ordering keys) on the destinations' rows.
    package func cleanupStatements(forRowsOf entityNumbers: [Int], in table: String, model: ObjectModel, keys: String) -> [String] {
        var statements: [String] = []
        func add(_ statement: String) { if !statements.contains(statement) { statements.append(statement) } }
        for number in entityNumbers {
            guard let name = entityNames[number], let mapping = entities[name] else { continue }
            for relationship in mapping.relationships.keys.sorted() {
                guard let storage = mapping.relationships[relationship] else { continue }
                switch storage {
                case .manyToMany(let join, let sourceColumn, let destinationColumn, _):
                    add("DELETE FROM \(Self.sql(join)) WHERE \(Self.sql(sourceColumn)) IN (\(keys))")
                    // A destination in the same table may be among the deleted rows too.
                    let destination = model.relationship(relationship, of: name).flatMap { entities[$0.destinationEntityName] }
                    if destination?.table == table {
                        add("DELETE FROM \(Self.sql(join)) WHERE \(Self.sql(destinationColumn)) IN (\(keys))")
                    }
                case .toManyWithoutInverse(let destinationTable, let column, let orderColumn):
                    let order = orderColumn.map { ", \(Self.sql($0)) = NULL" } ?? ""
                    add("UPDATE \(Self.sql(destinationTable)) SET \(Self.sql(column)) = NULL\(order) WHERE \(Self.sql(column)) IN (\(keys))")
                case .toOne, .toManyThroughInverse:
                    continue
                }
            }
        }
        return statements
    }
}
