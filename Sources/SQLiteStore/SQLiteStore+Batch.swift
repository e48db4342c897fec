import Foundation
import StoreCore

extension SQLiteStore {
    /// Runs a batch update in SQL, in one transaction: one `UPDATE` of the entity's table that
    /// sets the new values, adds one to `Z_OPT`, and keeps the rows that match the compiled
    /// predicate (and the entity numbers asked for). IDs come back through `RETURNING`.
    func batchUpdate(_ request: BatchUpdateRequest) throws -> StoreResult {
        let (connection, schema) = try writable()
        guard let mapping = schema.entities[request.entityName] else { return .batch(Self.empty(request.resultType)) }
        let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: identifier, entity: mapping)
        // Compile the values first, then the condition; both may add joins to `t0`.
        let assignments = try compiler.assignments(request.propertiesToUpdate, of: mapping)
        let conditions = try compiler.selection(
            entity: mapping, includesSubentities: request.includesSubentities, predicate: request.predicate)
        let sql = compiler.batchUpdateStatement(of: mapping, assignments: assignments, conditions: conditions)
        return .batch(try connection.transaction {
            try runChanging(sql, parameters: compiler.parameters, resultType: request.resultType, connection: connection, schema: schema)
        })
    }

    /// Runs a batch delete in SQL, in one transaction. Delete rules are not applied (as in
    /// Core Data); what belongs to the deleted rows goes with them: their rows in many-to-many
    /// join tables and the inverse-less to-many keys that point at them. When there is such
    /// cleanup to do, the keys are collected once in a temporary table, so every statement
    /// sees the same rows.
    func batchDelete(_ request: BatchDeleteRequest) throws -> StoreResult {
        let (connection, schema) = try writable()
        guard let mapping = schema.entities[request.entityName] else { return .batch(Self.empty(request.resultType)) }
        let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: identifier, entity: mapping)
        let conditions: [String]
        let deletedNumbers: [Int]
        if let ids = request.objectIDs {
            (conditions, deletedNumbers) = try compiler.selection(deleting: ids, of: mapping, key: primaryKey(of:))
        } else {
            deletedNumbers = request.includesSubentities ? mapping.numbersWithDescendants : [mapping.number]
            conditions = try compiler.selection(
                entity: mapping, includesSubentities: request.includesSubentities, predicate: request.predicate)
        }
        let table = SQLSchema.sql(mapping.table)
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let from = ([table + " t0"] + compiler.rootJoins.clauses).joined(separator: " ")
        let cleanup = schema.cleanupStatements(
            forRowsOf: deletedNumbers, in: mapping.table, model: model, keys: "SELECT key FROM temp.ps_batch_keys")
        return .batch(try connection.transaction {
            if cleanup.isEmpty {
                let sql = compiler.rootJoins.clauses.isEmpty
                    ? "DELETE FROM \(table) AS t0\(whereClause)"
                    : "DELETE FROM \(table) WHERE Z_PK IN (SELECT t0.Z_PK FROM \(from)\(whereClause))"
                return try runChanging(sql, parameters: compiler.parameters, resultType: request.resultType, connection: connection, schema: schema)
            }
            try connection.execute("CREATE TEMP TABLE IF NOT EXISTS ps_batch_keys (key INTEGER PRIMARY KEY)")
            try connection.execute("DELETE FROM temp.ps_batch_keys")
            let collect = try query(
                "INSERT INTO temp.ps_batch_keys (key) SELECT t0.Z_PK FROM \(from)\(whereClause)", parameters: compiler.parameters,
                connection: connection)
            try collect.run()
            for statement in cleanup { try connection.execute(statement) }
            let result = try runChanging(
                "DELETE FROM \(table) WHERE Z_PK IN (SELECT key FROM temp.ps_batch_keys)", parameters: [],
                resultType: request.resultType, connection: connection, schema: schema)
            try connection.execute("DELETE FROM temp.ps_batch_keys")
            return result
        })
    }

    /// Runs a batch insert in one transaction: keys continue after `Z_MAX` of the entity's
    /// tree (and the table's largest key), every row goes through the entity's cached INSERT
    /// statement with `Z_OPT` 1, and `Z_MAX` ends at the last key used. Attributes an object
    /// leaves out take the model's default value; values are coerced to the attribute types
    /// (1550 naming the object's position otherwise) and not validated further.
    func batchInsert(_ request: BatchInsertRequest) throws -> StoreResult {
        let (connection, schema) = try writable()
        let mapping = try self.mapping(of: request.entityName)
        if mapping.isAbstract {
            throw StoreError(
                .coreData, "Entity \(mapping.name) is abstract; a batch insert cannot create its objects", entityName: mapping.name)
        }
        let defaults = mapping.attributes.map { attribute -> StoreValue? in
            guard let value = model.attribute(attribute.name, of: mapping.name)?.defaultValue, !value.isNull else { return nil }
            return attribute.type.coerce(value)
        }
        let counter = Self.counterNumber(of: mapping, in: schema)
        let sql = insertStatementSQL(for: mapping)
        let toOneColumns = mapping.rowColumns.count - mapping.attributes.count
        let first: Int64 = try connection.transaction {
            let read = try connection.cached("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
            read.bind(int64: Int64(counter), at: 1)
            var largest = try read.step() ? read.int64(at: 0) : 0
            let used = try connection.cached("SELECT MAX(Z_PK) FROM \(SQLSchema.sql(mapping.table))")
            if try used.step(), !used.isNull(at: 0) { largest = max(largest, used.int64(at: 0)) }
            let statement = try connection.cached(sql)
            let entityNumber = Int64(mapping.number)
            for (position, object) in request.objects.enumerated() {
                statement.reset()
                statement.bind(int64: largest + 1 + Int64(position), at: 1)
                statement.bind(int64: entityNumber, at: 2)
                var index: Int32 = 3
                var matched = 0
                for (column, attribute) in mapping.attributes.enumerated() {
                    let given = object[attribute.name]
                    if given != nil { matched += 1 }
                    guard let value = given ?? defaults[column], !value.isNull else {
                        statement.bindNull(at: index)
                        index += 1
                        continue
                    }
                    guard let coerced = attribute.type.coerce(value), !coerced.isNull else {
                        throw StoreError(
                            .managedObjectValidation,
                            "Batch insert of \(mapping.name), object \(position): \(attribute.name) = \(value) is not a \(attribute.type.rawValue) value",
                            entityName: mapping.name, propertyName: attribute.name, position: position)
                    }
                    SQLiteValueCoder.bind(coerced, to: statement, at: index)
                    index += 1
                }
                if matched != object.count {
                    let known = Set(mapping.attributes.map(\.name))
                    let stranger = object.keys.sorted().first { !known.contains($0) } ?? ""
                    throw StoreError(
                        .managedObjectValidation,
                        "Batch insert of \(mapping.name), object \(position): the entity has no stored attribute \(stranger)",
                        entityName: mapping.name, propertyName: stranger, position: position)
                }
                for offset in 0..<Int32(toOneColumns) { statement.bindNull(at: index + offset) }
                try statement.run()
            }
            let write = try connection.cached("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
            write.bind(int64: largest + Int64(request.objects.count), at: 1)
            write.bind(int64: Int64(counter), at: 2)
            try write.run()
            return largest + 1
        }
        switch request.resultType {
        case .status: return .batch(.status(true))
        case .count: return .batch(.count(request.objects.count))
        case .objectIDs:
            let store = identifier
            return .batch(.objectIDs((0..<Int64(request.objects.count)).map {
                ObjectID(storeIdentifier: store, entityName: mapping.name, reference: .int(first + $0))
            }))
        }
    }

    // MARK: Helpers

    /// The connection and schema of a store that may be written; 134070 when it is read-only.
    private func writable() throws -> (SQLiteConnection, SQLSchema) {
        let ready = try self.ready()
        if isReadOnly {
            throw StoreError(
                .persistentStoreOperation, "The SQLite store at \(url?.path ?? "(memory)") is read-only; the batch request was refused",
                fileURL: url)
        }
        return ready
    }

    /// Runs an UPDATE or DELETE and answers in `resultType`: IDs through `RETURNING`, the count
    /// from SQLite's change counter.
    private func runChanging(
        _ sql: String, parameters: [StoreValue], resultType: BatchResultType, connection: SQLiteConnection, schema: SQLSchema
    ) throws -> BatchResult {
        countQuery()
        switch resultType {
        case .objectIDs:
            let statement = try query(sql + " RETURNING Z_PK, Z_ENT", parameters: parameters, connection: connection)
            var ids: [ObjectID] = []
            let store = identifier
            while try statement.step() {
                ids.append(
                    try objectID(entityNumber: Int(statement.int64(at: 1)), primaryKey: statement.int64(at: 0), schema: schema, store: store))
            }
            return .objectIDs(ids)
        case .count:
            try query(sql, parameters: parameters, connection: connection).run()
            return .count(connection.changes)
        case .status:
            try query(sql, parameters: parameters, connection: connection).run()
            return .status(true)
        }
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
