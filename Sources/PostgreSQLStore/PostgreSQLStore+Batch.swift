import Foundation
import StoreCore

extension PostgreSQLStore {
    /// Runs a batch update in SQL, in one transaction: one `UPDATE` (written by the shared
    /// compiler) that sets the new values, adds one to `Z_OPT` — so contexts holding the rows
    /// see a conflict at their next save, in any process — and keeps the rows the compiled
    /// predicate selects. IDs come back through `RETURNING`.
    func batchUpdate(_ request: BatchUpdateRequest) throws -> StoreResult {
        let (connection, schema) = try writable("the batch request")
        guard let mapping = schema.entities[request.entityName] else { return .batch(Self.empty(request.resultType)) }
        let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: identifier, entity: mapping, dialect: .postgreSQL)
        let assignments = try compiler.assignments(request.propertiesToUpdate, of: mapping)
        let conditions = try compiler.selection(entity: mapping, includesSubentities: request.includesSubentities, predicate: request.predicate)
        let sql = compiler.batchUpdateStatement(of: mapping, assignments: assignments, conditions: conditions)
        return .batch(
            try connection.transaction {
                try runChanging(sql, parameters: compiler.parameters, resultType: request.resultType, connection: connection, schema: schema)
            })
    }

    /// Runs a batch delete in SQL, in one transaction. Delete rules are not applied (as in Core
    /// Data); the deleted rows' join-table rows and the inverse-less to-many keys that point at
    /// them go with them (the keys are collected once in a temporary table, so every statement
    /// sees the same rows).
    func batchDelete(_ request: BatchDeleteRequest) throws -> StoreResult {
        let (connection, schema) = try writable("the batch request")
        guard let mapping = schema.entities[request.entityName] else { return .batch(Self.empty(request.resultType)) }
        let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: identifier, entity: mapping, dialect: .postgreSQL)
        let conditions: [String]
        let deletedNumbers: [Int]
        if let ids = request.objectIDs {
            (conditions, deletedNumbers) = try compiler.selection(deleting: ids, of: mapping, key: primaryKey(of:))
        } else {
            deletedNumbers = request.includesSubentities ? mapping.numbersWithDescendants : [mapping.number]
            conditions = try compiler.selection(entity: mapping, includesSubentities: request.includesSubentities, predicate: request.predicate)
        }
        let table = SQLSchema.sql(mapping.table)
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let from = ([table + " t0"] + compiler.rootJoins.clauses).joined(separator: " ")
        let cleanup = schema.cleanupStatements(
            forRowsOf: deletedNumbers, in: mapping.table, model: model, keys: "SELECT key FROM pg_temp.ps_batch_keys")
        let parameters = compiler.parameters
        return .batch(
            try connection.transaction {
                if cleanup.isEmpty {
                    let sql =
                        compiler.rootJoins.clauses.isEmpty
                        ? "DELETE FROM \(table) AS t0\(whereClause)"
                        : "DELETE FROM \(table) WHERE Z_PK IN (SELECT t0.Z_PK FROM \(from)\(whereClause))"
                    return try runChanging(sql, parameters: parameters, resultType: request.resultType, connection: connection, schema: schema)
                }
                try connection.execute(
                    "CREATE TEMP TABLE IF NOT EXISTS ps_batch_keys (key bigint PRIMARY KEY) ON COMMIT DELETE ROWS", [], "preparing a batch delete")
                try connection.execute(
                    "INSERT INTO pg_temp.ps_batch_keys (key) SELECT t0.Z_PK FROM \(from)\(whereClause)", Self.parameters(parameters),
                    "selecting the rows of a batch delete")
                for statement in cleanup { try connection.execute(statement, [], "removing links to the rows of a batch delete") }
                return try runChanging(
                    "DELETE FROM \(table) WHERE Z_PK IN (SELECT key FROM pg_temp.ps_batch_keys)", parameters: [],
                    resultType: request.resultType, connection: connection, schema: schema)
            })
    }

    /// Runs a batch insert in one transaction: keys are reserved after `Z_MAX` of the entity's
    /// tree (and the table's largest key) with one `UPDATE … RETURNING`, every row is inserted
    /// with `Z_OPT` 1, attributes an object leaves out take the model's default value, values are
    /// coerced to the attribute types (1550 naming the object's position otherwise).
    func batchInsert(_ request: BatchInsertRequest) throws -> StoreResult {
        let (connection, schema) = try writable("the batch request")
        let mapping = try self.mapping(of: request.entityName)
        if mapping.isAbstract {
            throw StoreError(
                .coreData, "Entity \(mapping.name) is abstract; a batch insert cannot create its objects", entityName: mapping.name)
        }
        let defaults = mapping.attributes.map { attribute -> StoreValue? in
            guard let value = model.attribute(attribute.name, of: mapping.name)?.defaultValue, !value.isNull else { return nil }
            return attribute.type.coerce(value)
        }
        let known = Set(mapping.attributes.map(\.name))
        var rows: [[PostgreSQLParameter]] = []
        for (position, object) in request.objects.enumerated() {
            if let stranger = object.keys.sorted().first(where: { !known.contains($0) }) {
                throw StoreError(
                    .managedObjectValidation,
                    "Batch insert of \(mapping.name), object \(position): the entity has no stored attribute \(stranger)",
                    entityName: mapping.name, propertyName: stranger, position: position)
            }
            rows.append(
                try mapping.attributes.enumerated().map { column, attribute in
                    guard let value = object[attribute.name] ?? defaults[column], !value.isNull else { return .null }
                    guard let coerced = attribute.type.coerce(value), !coerced.isNull, !Self.holdsNULStandIn(coerced) else {
                        throw StoreError(
                            .managedObjectValidation,
                            "Batch insert of \(mapping.name), object \(position): \(attribute.name) = \(value) is not a \(attribute.type.rawValue) value",
                            entityName: mapping.name, propertyName: attribute.name, position: position)
                    }
                    return PostgreSQLValueCoder.parameter(coerced)
                })
        }
        let counter = Self.counterNumber(of: mapping, in: schema)
        let columns = (["Z_PK", "Z_ENT", "Z_OPT"] + mapping.attributes.map(\.column)).map(SQLSchema.sql).joined(separator: ", ")
        let values = (["$1", "$2", "1"] + mapping.attributes.indices.map { "$\($0 + 3)" }).joined(separator: ", ")
        let sql = "INSERT INTO \(SQLSchema.sql(mapping.table)) (\(columns)) VALUES (\(values))"
        let count = Int64(request.objects.count)
        let first: Int64 = try connection.transaction {
            let used = try connection.execute(
                "SELECT COALESCE(MAX(Z_PK), 0) FROM \(SQLSchema.sql(mapping.table))", [], "reading the largest key").int64(0, 0) ?? 0
            let reserved = try connection.execute(
                "UPDATE Z_PRIMARYKEY SET Z_MAX = GREATEST(COALESCE(Z_MAX, 0), $1) + $2 WHERE Z_ENT = $3 RETURNING Z_MAX",
                [.text(String(used)), .text(String(count)), .text(String(counter))], "reserving primary keys")
            guard let last = reserved.int64(0, 0) else {
                throw StoreError(.persistentStoreOperation, "\(capitalizedPlace) has no key counter for entity number \(counter)")
            }
            let first = last - count + 1
            for (offset, row) in rows.enumerated() {
                try connection.execute(
                    sql, [.text(String(first + Int64(offset))), .text(String(mapping.number))] + row,
                    "inserting object \(offset) of a batch insert of \(mapping.name)")
            }
            return first
        }
        switch request.resultType {
        case .status: return .batch(.status(true))
        case .count: return .batch(.count(request.objects.count))
        case .objectIDs:
            let store = identifier
            return .batch(.objectIDs((0..<count).map { ObjectID(storeIdentifier: store, entityName: mapping.name, reference: .int(first + $0)) }))
        }
    }

    /// Runs an UPDATE or DELETE and answers in `resultType`: IDs through `RETURNING`, the count
    /// of rows changed.
    private func runChanging(
        _ sql: String, parameters: [StoreValue], resultType: BatchResultType, connection: PostgreSQLConnection, schema: SQLSchema
    ) throws -> BatchResult {
        switch resultType {
        case .objectIDs:
            let rows = try connection.execute(sql + " RETURNING Z_PK, Z_ENT", Self.parameters(parameters), "running a batch request")
            return .objectIDs(
                try (0..<rows.rowCount).map {
                    try objectID(entityNumber: Int(rows.int64($0, 1) ?? 0), primaryKey: rows.int64($0, 0) ?? 0, schema: schema)
                })
        case .count:
            return .count(try connection.execute(sql, Self.parameters(parameters), "running a batch request").affectedRows)
        case .status:
            try connection.execute(sql, Self.parameters(parameters), "running a batch request")
            return .status(true)
        }
    }

    /// Whether a value is text holding the stand-in of U+0000 (see `PostgreSQLValueCoder`).
    static func holdsNULStandIn(_ value: StoreValue) -> Bool {
        if case .string(let text) = value { return PostgreSQLValueCoder.holdsNULStandIn(text) }
        return false
    }

    /// The answer of a request that touched nothing.
    private static func empty(_ resultType: BatchResultType) -> BatchResult {
        switch resultType {
        case .status: return .status(true)
        case .objectIDs: return .objectIDs([])
        case .count: return .count(0)
        }
    }
}
