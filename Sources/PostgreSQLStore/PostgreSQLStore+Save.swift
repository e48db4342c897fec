import Foundation
import StoreCore

extension PostgreSQLStore {
    /// Applies a save in one transaction: inserts, updates of the changed columns only with
    /// `Z_OPT` checked and incremented, deletes with their join rows, and `Z_MAX` kept at least
    /// the largest key used. A row another process changed or deleted since it was read is a
    /// conflict (133020, naming the objects); any conflict or error rolls everything back.
    ///
    /// A connection lost during the save is recovered (see `PostgreSQLStore+Reconnect.swift`):
    /// the save is never applied twice and never reported saved when it was not.
    func save(_ request: SaveChangesRequest) throws -> StoreResult {
        if isReadOnly && request.isEmpty { return .saved(versions: [:]) }
        let (connection, _) = try writable("the save")
        if request.isEmpty && !metadataChanged { return .saved(versions: [:]) }
        var versions: [ObjectID: Int64] = [:]
        var transactionID: Int64?
        do {
            try apply(request, versions: &versions, transactionID: &transactionID)
        } catch let error as StoreError where connection.isBroken {
            let inDoubt = connection.commitInDoubt
            versions = try recoverSave(request, lost: error, inDoubt: inDoubt, transactionID: transactionID, versions: versions) {
                var again: [ObjectID: Int64] = [:]
                var ignored: Int64?
                try apply(request, versions: &again, transactionID: &ignored)
                return again
            }
        }
        metadataChanged = false
        return .saved(versions: versions)
    }

    /// Writes a save in one transaction on the store's connection, filling `versions` with the
    /// new row versions and `transactionID` with the transaction's ID (read before `COMMIT`,
    /// so a commit whose connection is lost can be looked up).
    private func apply(_ request: SaveChangesRequest, versions: inout [ObjectID: Int64], transactionID: inout Int64?) throws {
        let (connection, schema) = try writable("the save")
        var historyNumber: Int64?
        let fault = Self.takeCommitFault(forSchema: endpoint.schema)
        do {
            try write(
                request, connection: connection, schema: schema, fault: fault, versions: &versions, transactionID: &transactionID,
                historyNumber: &historyNumber)
        } catch {
            // The number of a transaction that was surely not committed is nobody's.
            if let historyNumber, !connection.commitInDoubt { _ = ownTransactions.withLock { $0.remove(historyNumber) } }
            throw error
        }
    }

    /// The transaction of ``apply(_:versions:transactionID:)``.
    private func write(
        _ request: SaveChangesRequest, connection: PostgreSQLConnection, schema: SQLSchema, fault: CommitFault?,
        versions: inout [ObjectID: Int64], transactionID: inout Int64?, historyNumber: inout Int64?
    ) throws {
        let beforeCommit: (() throws -> Void)? = fault == .dropBeforeCommit ? { Self.dropConnection(connection) } : nil
        try connection.transaction(beforeCommit: beforeCommit) {
            var conflicts: [ObjectID] = []
            var largestKeys: [Int: Int64] = [:]
            for (mapping, nodes) in try insertedNodesByEntity(request) {
                let largest = try insert(nodes, mapping: mapping, connection: connection, schema: schema)
                let counter = Self.counterNumber(of: mapping, in: schema)
                // Inserted rows are at version 1, left implied in the answer (`StoreResult.saved`).
                largestKeys[counter] = max(largestKeys[counter] ?? 0, largest)
            }
            // To-manys after every row exists: some are written into the destinations' rows.
            for node in request.insertedObjects where node.hasLoadedToManys {
                let mapping = try self.mapping(of: node.entityName)
                let key = try primaryKey(of: node.objectID)
                for (name, destinations) in node.toMany {
                    guard let storage = mapping.relationships[name] else { continue }
                    try writeToMany(storage, of: node, key: key, name: name, destinations: destinations, isNew: true, connection: connection)
                }
            }
            // Only a counter below the keys is raised: keys reserved beforehand are already
            // under it, and a row left as it is is not locked, so saves inserting the same
            // entity from several instances do not queue on its counter until they commit.
            for (number, key) in largestKeys.sorted(by: { $0.key < $1.key }) {
                try connection.execute(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = $1 WHERE Z_ENT = $2 AND COALESCE(Z_MAX, 0) < $1",
                    [.text(String(key)), .text(String(number))], "updating the key counters")
            }
            for node in request.updatedObjects {
                let mapping = try self.mapping(of: node.entityName)
                if try update(node, changedKeys: request.changedKeys[node.objectID], mapping: mapping, connection: connection, schema: schema) {
                    versions[node.objectID] = node.version + 1
                } else {
                    conflicts.append(node.objectID)
                }
            }
            for node in request.deletedObjects {
                let mapping = try self.mapping(of: node.entityName)
                if try !delete(node, mapping: mapping, connection: connection, schema: schema) { conflicts.append(node.objectID) }
            }
            if !conflicts.isEmpty {
                throw StoreError(
                    .managedObjectMerge,
                    "Optimistic locking failure: \(conflicts.count) object(s) changed or deleted in the store since they were read",
                    objectIDs: conflicts)
            }
            if recordsHistory && !request.isEmpty {
                historyNumber = try recordHistory(of: request, connection: connection, schema: schema)
            }
            if metadataChanged { try writeMetadata(metadata, to: connection) }
            transactionID = try connection.execute("SELECT txid_current()", [], "reading the save's transaction ID").int64(0, 0)
        }
        if fault == .dropAfterCommit {
            Self.dropConnection(connection)
            connection.markCommitInDoubt()
            throw StoreError(.persistentStoreOperation, "The connection to PostgreSQL at \(endpoint.redactedDescription) was lost (injected after COMMIT)")
        }
    }

    // MARK: Rows

    /// The inserted nodes of a save by entity, in the order each entity first appears (each
    /// entity's nodes in the request's order).
    private func insertedNodesByEntity(_ request: SaveChangesRequest) throws -> [(SQLEntityMapping, [StoreNode])] {
        var groups: [(SQLEntityMapping, [StoreNode])] = []
        var positions: [String: Int] = [:]
        for node in request.insertedObjects {
            if let position = positions[node.entityName] {
                groups[position].1.append(node)
            } else {
                let mapping = try self.mapping(of: node.entityName)
                positions[node.entityName] = groups.count
                groups.append((mapping, [node]))
            }
        }
        return groups
    }

    /// The most rows one INSERT writes: PostgreSQL binds at most 65,535 parameters per
    /// statement, and a statement of more rows gains little (its round trip is already shared).
    static let maximumInsertRows = 1024

    /// Inserts the rows of `nodes`, all of `mapping`'s entity, with multi-row INSERTs; returns
    /// the largest primary key written.
    ///
    /// The rows go in batches whose sizes are powers of two (the largest that fits
    /// ``maximumInsertRows`` and the parameter limit, then the binary digits of the rest: 10,000
    /// rows of 8 columns are 9 statements of 1,024 rows, then 512, 256 and 16), so an entity
    /// has at most 11 INSERT shapes, each prepared once per connection, whatever the saves'
    /// sizes.
    private func insert(_ nodes: [StoreNode], mapping: SQLEntityMapping, connection: PostgreSQLConnection, schema: SQLSchema) throws -> Int64 {
        let columns = 2 + mapping.rowColumns.count
        var batch = 1
        while batch * 2 <= Self.maximumInsertRows && batch * 2 * columns <= 65_535 { batch *= 2 }
        var parameters: [PostgreSQLParameter] = []
        parameters.reserveCapacity(min(batch, nodes.count) * columns)
        var largest: Int64 = 0
        var start = nodes.startIndex
        while start < nodes.endIndex {
            while batch > nodes.endIndex - start { batch /= 2 }
            parameters.removeAll(keepingCapacity: true)
            for node in nodes[start..<start + batch] {
                largest = max(largest, try appendRow(of: node, mapping: mapping, schema: schema, to: &parameters))
            }
            let first = nodes[start].objectID
            try connection.execute(
                insertSQL(for: mapping, rows: batch), parameters, prepared: true,
                batch == 1 ? "inserting \(first)" : "inserting \(batch) \(mapping.name) objects from \(first)")
            start += batch
        }
        return largest
    }

    /// Appends the parameters of one inserted row (its key, entity number, then attributes and
    /// to-ones in mapping order); returns its primary key.
    private func appendRow(of node: StoreNode, mapping: SQLEntityMapping, schema: SQLSchema, to parameters: inout [PostgreSQLParameter]) throws
        -> Int64
    {
        if mapping.isAbstract {
            throw StoreError(
                .persistentStoreSave, "Entity \(mapping.name) is abstract; object \(node.objectID) cannot be saved",
                objectIDs: [node.objectID], entityName: mapping.name)
        }
        try mapping.checkAttributeKeys(of: node, modelLayout: model.layout(ofEntity: mapping.name), model: model)
        let key = try primaryKey(of: node.objectID)
        parameters.append(.text(String(key)))
        parameters.append(.text(String(mapping.number)))
        for attribute in mapping.attributes {
            parameters.append(try attributeParameter(attribute, value: node.attributeValue(forKey: attribute.name), of: node))
        }
        for toOne in mapping.toOnes {
            let (key, number) = try toOneParameters(toOne, destination: node.destination(forToOne: toOne.name), of: node, schema: schema)
            parameters.append(key)
            if toOne.entityColumn != nil { parameters.append(number) }
        }
        return key
    }

    /// The INSERT of `rows` rows of `mapping`, every column bound (per row: the key, the entity
    /// number, then attributes and to-ones in mapping order; `Z_OPT` is 1): one text per entity
    /// and batch size, kept, so its prepared statement is reused by every save.
    private func insertSQL(for mapping: SQLEntityMapping, rows: Int) -> String {
        if let sql = insertStatements[mapping.number]?[rows] { return sql }
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + mapping.rowColumns.map(SQLSchema.sql)
        let width = 2 + mapping.rowColumns.count
        var sql = "INSERT INTO \(SQLSchema.sql(mapping.table)) (\(columns.joined(separator: ", "))) VALUES "
        for row in 0..<rows {
            let first = row * width
            let values = ["$\(first + 1)", "$\(first + 2)", "1"] + (2..<width).map { "$\(first + $0 + 1)" }
            sql += (row == 0 ? "(" : ", (") + values.joined(separator: ", ") + ")"
        }
        insertStatements[mapping.number, default: [:]][rows] = sql
        return sql
    }

    /// Writes the changed columns; false when the row is gone or its `Z_OPT` is not the
    /// version the context saw (a conflict).
    private func update(
        _ node: StoreNode, changedKeys: Set<String>?, mapping: SQLEntityMapping, connection: PostgreSQLConnection, schema: SQLSchema
    ) throws -> Bool {
        let key = try primaryKey(of: node.objectID)
        try mapping.checkAttributeKeys(of: node, modelLayout: model.layout(ofEntity: mapping.name), model: model)
        var assignments = ["Z_OPT = Z_OPT + 1"]
        var parameters: [PostgreSQLParameter] = []
        func assign(_ column: String, _ parameter: PostgreSQLParameter) {
            parameters.append(parameter)
            assignments.append("\(SQLSchema.sql(column)) = $\(parameters.count)")
        }
        for attribute in mapping.attributes where changedKeys?.contains(attribute.name) ?? true {
            assign(attribute.column, try attributeParameter(attribute, value: node.attributeValue(forKey: attribute.name), of: node))
        }
        for toOne in mapping.toOnes where changedKeys?.contains(toOne.name) ?? true {
            let (key, number) = try toOneParameters(toOne, destination: node.destination(forToOne: toOne.name), of: node, schema: schema)
            assign(toOne.column, key)
            if let entityColumn = toOne.entityColumn { assign(entityColumn, number) }
        }
        parameters += [.text(String(key)), .text(String(node.version))]
        let result = try connection.execute(
            "UPDATE \(SQLSchema.sql(mapping.table)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = $\(parameters.count - 1) AND Z_OPT = $\(parameters.count)",
            parameters, "updating \(node.objectID)")
        guard result.affectedRows == 1 else { return false }
        for (name, destinations) in node.toMany where changedKeys?.contains(name) ?? true {
            guard let storage = mapping.relationships[name] else { continue }
            try writeToMany(storage, of: node, key: key, name: name, destinations: destinations, isNew: false, connection: connection)
        }
        return true
    }

    /// Deletes the row (checking `Z_OPT`) and what refers to it from join tables and
    /// inverse-less to-many columns; false on a conflict.
    private func delete(_ node: StoreNode, mapping: SQLEntityMapping, connection: PostgreSQLConnection, schema: SQLSchema) throws -> Bool {
        let key = PostgreSQLParameter.text(String(try primaryKey(of: node.objectID)))
        let result = try connection.execute(
            "DELETE FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = $1 AND Z_OPT = $2", [key, .text(String(node.version))],
            "deleting \(node.objectID)")
        guard result.affectedRows == 1 else { return false }
        for name in mapping.relationships.keys.sorted() {
            guard let storage = mapping.relationships[name] else { continue }
            switch storage {
            case .manyToMany(let table, let sourceColumn, let destinationColumn, _):
                let sameTree = model.relationship(name, of: mapping.name).flatMap { schema.entities[$0.destinationEntityName] }?.table == mapping.table
                let condition =
                    sameTree
                    ? "\(SQLSchema.sql(sourceColumn)) = $1 OR \(SQLSchema.sql(destinationColumn)) = $1" : "\(SQLSchema.sql(sourceColumn)) = $1"
                try connection.execute("DELETE FROM \(SQLSchema.sql(table)) WHERE \(condition)", [key], "deleting the links of \(node.objectID)")
            case .toManyWithoutInverse(let table, let column, let orderColumn):
                let order = orderColumn.map { ", \(SQLSchema.sql($0)) = NULL" } ?? ""
                try connection.execute(
                    "UPDATE \(SQLSchema.sql(table)) SET \(SQLSchema.sql(column)) = NULL\(order) WHERE \(SQLSchema.sql(column)) = $1", [key],
                    "deleting the links of \(node.objectID)")
            case .toOne, .toManyThroughInverse:
                break
            }
        }
        return true
    }

    // MARK: Values

    /// The parameter of an attribute value, coerced to the attribute's type.
    private func attributeParameter(_ attribute: SQLEntityMapping.AttributeColumn, value: StoreValue?, of node: StoreNode) throws
        -> PostgreSQLParameter
    {
        guard let value else { return .null }
        let coerced = try SQLRowValues.coerced(value, for: attribute, of: node)
        if case .string(let text) = coerced, PostgreSQLValueCoder.holdsNULStandIn(text) {
            throw StoreError(
                .managedObjectValidation,
                "\(node.entityName).\(attribute.name) of \(node.objectID) holds U+10FFFF, which the PostgreSQL store uses for U+0000 in text (PostgreSQL text cannot hold U+0000)",
                objectIDs: [node.objectID], entityName: node.entityName, propertyName: attribute.name)
        }
        return PostgreSQLValueCoder.parameter(coerced)
    }

    /// The parameters of a to-one: the destination's key and entity number (NULL for none).
    private func toOneParameters(_ toOne: SQLEntityMapping.ToOneColumn, destination: ObjectID?, of node: StoreNode, schema: SQLSchema) throws
        -> (PostgreSQLParameter, PostgreSQLParameter)
    {
        guard let destination else { return (.null, .null) }
        let key = try foreignKey(of: destination, from: node, property: toOne.name)
        guard toOne.entityColumn != nil else { return (.text(String(key)), .null) }
        let number = try SQLRowValues.entityNumber(of: destination, for: toOne, of: node, schema: schema)
        return (.text(String(key)), .text(String(number)))
    }

    /// The primary key of a relationship destination; 133010 for an object of another store.
    private func foreignKey(of destination: ObjectID, from node: StoreNode, property: String) throws -> Int64 {
        try SQLRowValues.foreignKey(of: destination, from: node, property: property, storeIdentifier: identifier)
    }

    // MARK: To-many

    /// Brings the stored destinations of one to-many in line with `destinations` (and their
    /// order for ordered relationships): the statements of ``SQLToManyWrite`` (shared with the
    /// SQLite store), each prepared on the connection.
    private func writeToMany(
        _ storage: SQLRelationshipStorage, of node: StoreNode, key: Int64, name: String, destinations: [ObjectID], isNew: Bool,
        connection: PostgreSQLConnection
    ) throws {
        let keys = try destinations.map { try foreignKey(of: $0, from: node, property: name) }
        let context = "writing \(node.entityName).\(name) of \(node.objectID)"
        try SQLToManyWrite(storage: storage, dialect: .postgreSQL).write(
            owner: key, destinations: keys, isNew: isNew,
            run: { sql, parameters in
                try connection.execute(sql, parameters.map { .text(String($0)) }, prepared: true, context)
            },
            read: { sql, parameters in
                let rows = try connection.execute(sql, parameters.map { .text(String($0)) }, prepared: true, context)
                return (0..<rows.rowCount).compactMap { rows.int64($0, 0) }
            })
    }
}
