import Foundation
import StoreCore

extension SQLiteStore {
    /// Applies a save in one transaction: inserts through one cached statement per entity,
    /// updates of the changed columns only with `Z_OPT` checked and incremented, deletes with
    /// their join rows, and `Z_MAX` kept at least the largest key used. Any conflict or error
    /// rolls everything back.
    func save(_ request: SaveChangesRequest) throws -> StoreResult {
        let (connection, schema) = try ready()
        if isReadOnly {
            if request.isEmpty { return .saved(versions: [:]) }
            throw StoreError(
                .persistentStoreOperation, "The SQLite store at \(url?.path ?? "(memory)") is read-only; the save was refused",
                fileURL: url)
        }
        if request.isEmpty && !metadataChanged { return .saved(versions: [:]) }
        // The updated objects' new versions; inserted rows are at version 1, which the answer
        // leaves implied (`StoreResult.saved`).
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(request.updatedObjects.count)
        try connection.transaction {
            var conflicts: [ObjectID] = []
            var largestKeys: [Int: Int64] = [:]
            // Consecutive inserts of one entity reuse its mapping, slot plan and statement (no
            // lookup per row); the entity is recognised by its interned number.
            var current: SQLiteInsertTarget?
            // The store identifier's interned number: keys are checked by comparing it, not text.
            let storeNumber = ObjectID.storeNumber(of: identifier)
            // By index: each node is read once (iterating copied every node, and so does
            // reading one from the array to pass it on or ask it a computed property).
            let inserted = request.insertedObjects
            // The largest key of the current run, entered in `largestKeys` when the run ends
            // (one dictionary update per run instead of one per row).
            var runLargest: Int64?
            // The rows with loaded to-manys, noted as each node is read: asking every node again
            // after the rows copied each one (about 230 instructions per row in W1).
            var withToManys: [Int] = []
            // The rows of the current run bound into its group statement and not yet written
            // (by index into `inserted`); empty when the run is not writing a group.
            var grouped: [Int] = []
            for index in inserted.indices {
                let node = inserted[index]
                let objectID = node.objectID
                if node.hasLoadedToManys { withToManys.append(index) }
                // A statement that ran to completion was reset by its last step, and every
                // parameter is bound again for each row: nothing to reset or clear.
                if current?.entityNumber != objectID.entityNumber {
                    if let previous = current {
                        try insertOneByOne(&grouped, of: inserted, into: previous, schema: schema, storeNumber: storeNumber, largest: &runLargest)
                        if let largest = runLargest {
                            largestKeys[previous.counter] = max(largestKeys[previous.counter] ?? 0, largest)
                        }
                    }
                    runLargest = nil
                    let mapping = try self.mapping(of: objectID.entityName)
                    current = SQLiteInsertTarget(
                        entityNumber: objectID.entityNumber, mapping: mapping,
                        statement: try connection.cached(insertStatementSQL(for: mapping)), plan: slotPlan(for: mapping),
                        counter: Self.counterNumber(of: mapping, in: schema), parameterLimit: connection.parameterLimit)
                }
                // Set just above when it was nil.
                guard let target = current else { continue }
                // Rows of the model's layout go in groups of `rowsPerGroup` through one INSERT.
                // A group starts only where the run still has that many rows ahead (its last row
                // is of the same entity); one cut short (another entity or layout in between)
                // is written one by one.
                if target.rowsPerGroup > 1, !target.mapping.isAbstract, let layout = target.plan?.layout, node.usesLayout(layout) {
                    let startsGroup =
                        grouped.isEmpty && index + target.rowsPerGroup <= inserted.count
                        && inserted[index + target.rowsPerGroup - 1].objectID.entityNumber == target.entityNumber
                    if startsGroup || !grouped.isEmpty {
                        let group = try groupStatement(of: target, connection: connection)
                        let key = try bindRow(
                            node, into: target, statement: group, base: Int32(grouped.count) * target.parametersPerRow,
                            schema: schema, storeNumber: storeNumber)
                        runLargest = max(runLargest ?? key, key)
                        grouped.append(index)
                        if grouped.count == target.rowsPerGroup {
                            try run(
                                group, writing: &grouped, of: inserted, into: target, connection: connection, schema: schema,
                                storeNumber: storeNumber, largest: &runLargest)
                        }
                        continue
                    }
                }
                try insertOneByOne(&grouped, of: inserted, into: target, schema: schema, storeNumber: storeNumber, largest: &runLargest)
                let key = try insert(node, into: target, schema: schema, storeNumber: storeNumber)
                runLargest = max(runLargest ?? key, key)
            }
            if let previous = current {
                try insertOneByOne(&grouped, of: inserted, into: previous, schema: schema, storeNumber: storeNumber, largest: &runLargest)
                if let largest = runLargest {
                    largestKeys[previous.counter] = max(largestKeys[previous.counter] ?? 0, largest)
                }
            }
            // To-manys after every row exists: some are written into the destinations' rows.
            for index in withToManys {
                let node = inserted[index]
                let mapping = try self.mapping(of: node.entityName)
                let key = try primaryKey(of: node.objectID, storeNumber: storeNumber)
                for (name, destinations) in node.toMany {
                    guard let storage = mapping.relationships[name] else { continue }
                    try writeToMany(
                        storage, of: node, key: key, name: name, destinations: destinations, isNew: true, connection: connection,
                        storeNumber: storeNumber)
                }
            }
            for (number, key) in largestKeys.sorted(by: { $0.key < $1.key }) {
                let statement = try connection.cached("UPDATE Z_PRIMARYKEY SET Z_MAX = MAX(IFNULL(Z_MAX, 0), ?) WHERE Z_ENT = ?")
                statement.bind(int64: key, at: 1)
                statement.bind(int64: Int64(number), at: 2)
                try statement.run()
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
                if try !delete(node, mapping: mapping, connection: connection, schema: schema) {
                    conflicts.append(node.objectID)
                }
            }
            if !conflicts.isEmpty {
                throw StoreError(
                    .managedObjectMerge,
                    "Optimistic locking failure: \(conflicts.count) object(s) changed or deleted in the store since they were read",
                    objectIDs: conflicts)
            }
            if recordsHistory && !request.isEmpty { try recordHistory(of: request, connection: connection, schema: schema) }
            if metadataChanged { try writeMetadata(metadata, to: connection) }
        }
        metadataChanged = false
        return .saved(versions: versions)
    }

    // MARK: Rows

    /// How many rows one INSERT of a save writes at most. SQLite's work per statement (opening
    /// the table's and indexes' cursors, halting, resetting) is about a quarter of a short row's
    /// insert; one statement per 32 rows of a run of inserts of one entity spreads it over them
    /// (docs/benchmarks.md, "Rows in groups").
    static let rowsPerInsert = 32

    /// `INSERT OR FAIL INTO <table> (…) VALUES (…), (…), …`: ``insertStatementSQL(for:)`` for
    /// `rows` rows at once (cached per entity; one row's parameters after another's).
    ///
    /// `OR FAIL`, not the default `ABORT`: a statement of several rows that may abort makes
    /// SQLite keep a statement journal inside the transaction, a copy of every page the
    /// statement changes (each index page a row lands on), spilled to a temporary file past
    /// 64 KiB; that cost more time than the statement's saved work (W1 at 100k about 1.6× slower
    /// in wall time, with fewer instructions). Under `OR FAIL` a failing row stops the statement
    /// and keeps the rows before it, and the save, which then fails, rolls its transaction back.
    func groupInsertStatementSQL(for mapping: SQLEntityMapping, rows: Int) -> String {
        if let cached = groupInsertSQL[mapping.name], cached.rows == rows { return cached.sql }
        let sql = Self.insertSQL(for: mapping, verb: "INSERT OR FAIL", rows: rows)
        groupInsertSQL[mapping.name] = (rows, sql)
        return sql
    }

    /// `<verb> INTO <table> (Z_PK, Z_ENT, Z_OPT, <row columns>) VALUES (?, ?, 1, ?, …)`, the
    /// values' parentheses repeated for `rows` rows.
    private static func insertSQL(for mapping: SQLEntityMapping, verb: String, rows: Int) -> String {
        let columns = ["Z_PK", "Z_ENT", "Z_OPT"] + mapping.rowColumns
        let values = ["?", "?", "1"] + Array(repeating: "?", count: mapping.rowColumns.count)
        let tuple = "(\(values.joined(separator: ", ")))"
        return "\(verb) INTO \(SQLSchema.sql(mapping.table)) (\(columns.map(SQLSchema.sql).joined(separator: ", "))) VALUES "
            + Array(repeating: tuple, count: rows).joined(separator: ", ")
    }

    /// The target's INSERT of a group, asked of the connection the first time a run of the
    /// target's entity starts one.
    private func groupStatement(of target: SQLiteInsertTarget, connection: SQLiteConnection) throws -> SQLiteStatement {
        if let group = target.groupStatement { return group }
        let group = try connection.cached(groupInsertStatementSQL(for: target.mapping, rows: target.rowsPerGroup))
        target.groupStatement = group
        // A full cache starts over when it takes the group's statement, finalizing the
        // single-row one the target holds: asked for again (the cache holds one statement now,
        // so this cannot start it over).
        if target.statement.handle == nil { target.statement = try connection.cached(insertStatementSQL(for: target.mapping)) }
        return group
    }

    /// Runs a group whose rows are all bound and forgets them. When it fails, `OR FAIL` kept
    /// the rows before the failing one (counted from the connection's total of changes, so a
    /// statement that never ran counts none: a count too low fails the save on a taken key and
    /// never skips a row); the rest go one by one, so the failing row throws what it throws in
    /// a save without groups, and that error rolls the save's transaction back.
    private func run(
        _ group: SQLiteStatement, writing rows: inout [Int], of nodes: [StoreNode], into target: SQLiteInsertTarget,
        connection: SQLiteConnection, schema: SQLSchema, storeNumber: Int, largest: inout Int64?
    ) throws {
        let changesBefore = connection.totalChanges
        do {
            try group.run()
            rows.removeAll(keepingCapacity: true)
        } catch {
            rows.removeFirst(min(max(connection.totalChanges - changesBefore, 0), rows.count - 1))
            try insertOneByOne(&rows, of: nodes, into: target, schema: schema, storeNumber: storeNumber, largest: &largest)
        }
    }

    /// Writes the rows bound into a group that was not run (cut short, or backed out by an
    /// error) one by one through the target's single-row INSERT, and forgets them.
    private func insertOneByOne(
        _ rows: inout [Int], of nodes: [StoreNode], into target: SQLiteInsertTarget, schema: SQLSchema, storeNumber: Int,
        largest: inout Int64?
    ) throws {
        guard !rows.isEmpty else { return }
        for index in rows {
            let key = try insert(nodes[index], into: target, schema: schema, storeNumber: storeNumber)
            largest = max(largest ?? key, key)
        }
        rows.removeAll(keepingCapacity: true)
    }

    /// Inserts one row through the target's statement (``insertStatementSQL(for:)``), reset and
    /// ready. A node in the model's own layout of the entity is bound slot by slot from its value
    /// buffer (``bindRow(_:into:statement:base:schema:storeNumber:)``), any other by name.
    private func insert(_ node: StoreNode, into target: SQLiteInsertTarget, schema: SQLSchema, storeNumber: Int) throws -> Int64 {
        let mapping = target.mapping
        if mapping.isAbstract {
            throw StoreError(
                .persistentStoreSave, "Entity \(mapping.name) is abstract; object \(node.objectID) cannot be saved",
                objectIDs: [node.objectID], entityName: mapping.name)
        }
        let statement = target.statement
        guard let plan = target.plan, node.layout === plan.layout else {
            let key = try primaryKey(of: node.objectID, storeNumber: storeNumber)
            try mapping.checkAttributeKeys(of: node, modelLayout: target.plan?.layout, model: model)
            try bindByName(node, key: key, mapping: mapping, to: statement, schema: schema)
            try statement.run()
            return key
        }
        let key = try bindRow(node, into: target, statement: statement, base: 0, schema: schema, storeNumber: storeNumber)
        try statement.run()
        return key
    }

    /// Binds a node of the target's plan layout as the row whose parameters start after `base`
    /// (0 for the single-row INSERT, the row's position times the parameters per row in a
    /// group) and returns its key. The node's value buffer is read in place (no column
    /// description or value is copied per column).
    private func bindRow(
        _ node: StoreNode, into target: SQLiteInsertTarget, statement: SQLiteStatement, base: Int32, schema: SQLSchema,
        storeNumber: Int
    ) throws -> Int64 {
        // The mapping is read through the target where needed (a copy of it retained each of
        // its arrays for every row).
        let key = try primaryKey(of: node.objectID, storeNumber: storeNumber)
        // Callers bind only nodes of the plan's layout; the plan is there then.
        guard let layout = target.plan?.layout else { return key }
        statement.bind(int64: key, at: base + 1)
        statement.bind(int64: Int64(target.mapping.number), at: base + 2)
        // The node's own buffer, read in place through a buffer pointer (the node is borrowed
        // for the call, so the buffer lives while the pointer is used); every slot the plan
        // holds is a slot of this layout (the plan was made from it), so the bounds check below
        // only guards a plan made for another layout's size.
        try node.withValueSlots(in: layout) { values in
            var index: Int32 = base + 3
            for position in target.attributeSlots.indices {
                let slot = target.attributeSlots[position]
                if slot < 0 || slot >= values.count || values[slot].isNull {
                    statement.bindNull(at: index)
                } else if target.attributeTypes[position].holdsAsIs(values[slot]) {
                    SQLiteValueCoder.bind(values[slot], to: statement, at: index)
                } else {
                    let coerced = try SQLRowValues.coerced(values[slot], for: target.mapping.attributes[position], of: node)
                    SQLiteValueCoder.bind(coerced, to: statement, at: index)
                }
                index += 1
            }
            for position in target.toOneSlots.indices {
                let slot = target.toOneSlots[position]
                let hasEntityColumn = target.toOneHasEntityColumn[position]
                if slot >= 0, slot < values.count, case .objectID(let destination) = values[slot] {
                    // The interned store compared as a number; any other destination gets the
                    // checked path's error (133010).
                    let foreignKey =
                        try destination.integerKey(inStoreNumber: storeNumber)
                        ?? self.foreignKey(of: destination, from: node, property: target.mapping.toOnes[position].name)
                    statement.bind(int64: foreignKey, at: index)
                    if hasEntityColumn {
                        let number = try SQLRowValues.entityNumber(
                            of: destination, for: target.mapping.toOnes[position], of: node, schema: schema)
                        statement.bind(int64: Int64(number), at: index + 1)
                    }
                } else {
                    statement.bindNull(at: index)
                    if hasEntityColumn { statement.bindNull(at: index + 1) }
                }
                index += hasEntityColumn ? 2 : 1
            }
        }
        return key
    }

    /// Binds a node that is not in the model's layout of its entity, property by property by name.
    private func bindByName(
        _ node: StoreNode, key: Int64, mapping: SQLEntityMapping, to statement: SQLiteStatement, schema: SQLSchema
    ) throws {
        statement.bind(int64: key, at: 1)
        statement.bind(int64: Int64(mapping.number), at: 2)
        var index: Int32 = 3
        for attribute in mapping.attributes {
            try bindAttribute(attribute, value: node.attributeValue(forKey: attribute.name), of: node, to: statement, at: index)
            index += 1
        }
        for toOne in mapping.toOnes {
            try bindToOne(toOne, destination: node.destination(forToOne: toOne.name), of: node, to: statement, at: index, schema: schema)
            index += toOne.entityColumn == nil ? 1 : 2
        }
    }

    /// `INSERT INTO <table> (Z_PK, Z_ENT, Z_OPT, <row columns>) VALUES (?, ?, 1, ?, …)` for an
    /// entity (cached per entity): key and entity number first, then ``SQLEntityMapping/rowColumns``.
    func insertStatementSQL(for mapping: SQLEntityMapping) -> String {
        if let cached = insertSQL[mapping.name] { return cached }
        let sql = Self.insertSQL(for: mapping, verb: "INSERT", rows: 1)
        insertSQL[mapping.name] = sql
        return sql
    }

    /// Writes the changed columns; false when the row is gone or its `Z_OPT` is not the
    /// version the context saw (a conflict).
    private func update(
        _ node: StoreNode, changedKeys: Set<String>?, mapping: SQLEntityMapping, connection: SQLiteConnection,
        schema: SQLSchema
    ) throws -> Bool {
        let key = try primaryKey(of: node.objectID)
        try mapping.checkAttributeKeys(of: node, modelLayout: slotPlan(for: mapping)?.layout, model: model)
        let attributes = mapping.attributes.filter { changedKeys?.contains($0.name) ?? true }
        let toOnes = mapping.toOnes.filter { changedKeys?.contains($0.name) ?? true }
        var assignments = ["Z_OPT = Z_OPT + 1"]
        assignments += attributes.map { "\(SQLSchema.sql($0.column)) = ?" }
        for toOne in toOnes {
            assignments.append("\(SQLSchema.sql(toOne.column)) = ?")
            if let entityColumn = toOne.entityColumn { assignments.append("\(SQLSchema.sql(entityColumn)) = ?") }
        }
        let statement = try connection.cached(
            "UPDATE \(SQLSchema.sql(mapping.table)) SET \(assignments.joined(separator: ", ")) WHERE Z_PK = ? AND Z_OPT = ?")
        var index: Int32 = 1
        for attribute in attributes {
            try bindAttribute(attribute, value: node.attributeValue(forKey: attribute.name), of: node, to: statement, at: index)
            index += 1
        }
        for toOne in toOnes {
            try bindToOne(toOne, destination: node.destination(forToOne: toOne.name), of: node, to: statement, at: index, schema: schema)
            index += toOne.entityColumn == nil ? 1 : 2
        }
        statement.bind(int64: key, at: index)
        statement.bind(int64: node.version, at: index + 1)
        try statement.run()
        guard connection.changes == 1 else { return false }
        for (name, destinations) in node.toMany where changedKeys?.contains(name) ?? true {
            guard let storage = mapping.relationships[name] else { continue }
            try writeToMany(storage, of: node, key: key, name: name, destinations: destinations, isNew: false, connection: connection)
        }
        return true
    }

    /// Deletes the row (checking `Z_OPT`) and what refers to it from join tables and
    /// inverse-less to-many columns; false on a conflict.
    private func delete(_ node: StoreNode, mapping: SQLEntityMapping, connection: SQLiteConnection, schema: SQLSchema) throws -> Bool {
        let key = try primaryKey(of: node.objectID)
        let statement = try connection.cached("DELETE FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = ? AND Z_OPT = ?")
        statement.bind(int64: key, at: 1)
        statement.bind(int64: node.version, at: 2)
        try statement.run()
        guard connection.changes == 1 else { return false }
        for name in mapping.relationships.keys.sorted() {
            guard let storage = mapping.relationships[name] else { continue }
            switch storage {
            case .manyToMany(let table, let sourceColumn, let destinationColumn, _):
                let sameTree = model.relationship(name, of: mapping.name).flatMap { schema.entities[$0.destinationEntityName] }?.table == mapping.table
                let condition =
                    sameTree
                    ? "\(SQLSchema.sql(sourceColumn)) = ? OR \(SQLSchema.sql(destinationColumn)) = ?"
                    : "\(SQLSchema.sql(sourceColumn)) = ?"
                let cleanup = try connection.cached("DELETE FROM \(SQLSchema.sql(table)) WHERE \(condition)")
                cleanup.bind(int64: key, at: 1)
                if sameTree { cleanup.bind(int64: key, at: 2) }
                try cleanup.run()
            case .toManyWithoutInverse(let table, let column, let orderColumn):
                let order = orderColumn.map { ", \(SQLSchema.sql($0)) = NULL" } ?? ""
                let cleanup = try connection.cached(
                    "UPDATE \(SQLSchema.sql(table)) SET \(SQLSchema.sql(column)) = NULL\(order) WHERE \(SQLSchema.sql(column)) = ?")
                cleanup.bind(int64: key, at: 1)
                try cleanup.run()
            case .toOne, .toManyThroughInverse:
                break
            }
        }
        return true
    }

    // MARK: Values

    /// The slots of the model's layout for a mapping's columns (cached per entity); nil when the
    /// model has no layout for the entity.
    func slotPlan(for mapping: SQLEntityMapping) -> SQLiteSlotPlan? {
        if let plan = slotPlans[mapping.number], plan.layout.entityName == mapping.name { return plan }
        guard let layout = model.layout(ofEntity: mapping.name) else { return nil }
        let plan = SQLiteSlotPlan(mapping: mapping, layout: layout)
        slotPlans[mapping.number] = plan
        return plan
    }

    private func bindAttribute(
        _ attribute: SQLEntityMapping.AttributeColumn, value: StoreValue?, of node: StoreNode, to statement: SQLiteStatement,
        at index: Int32
    ) throws {
        guard let value else {
            statement.bindNull(at: index)
            return
        }
        let coerced = try SQLRowValues.coerced(value, for: attribute, of: node)
        SQLiteValueCoder.bind(coerced, to: statement, at: index)
    }

    private func bindToOne(
        _ toOne: SQLEntityMapping.ToOneColumn, destination: ObjectID?, of node: StoreNode, to statement: SQLiteStatement,
        at index: Int32, schema: SQLSchema
    ) throws {
        guard let destination else {
            statement.bindNull(at: index)
            if toOne.entityColumn != nil { statement.bindNull(at: index + 1) }
            return
        }
        statement.bind(int64: try foreignKey(of: destination, from: node, property: toOne.name), at: index)
        if toOne.entityColumn != nil {
            let number = try SQLRowValues.entityNumber(of: destination, for: toOne, of: node, schema: schema)
            statement.bind(int64: Int64(number), at: index + 1)
        }
    }

    /// The primary key of a relationship destination; 133010 for an object of another store.
    private func foreignKey(of destination: ObjectID, from node: StoreNode, property: String) throws -> Int64 {
        try SQLRowValues.foreignKey(of: destination, from: node, property: property, storeIdentifier: identifier)
    }

    // MARK: To-many

    /// Brings the stored destinations of one to-many in line with `destinations` (and their
    /// order for ordered relationships): the statements of ``SQLToManyWrite`` (shared with the
    /// PostgreSQL store), each a cached statement.
    /// `storeNumber`, when given, is the store identifier's interned number: destinations' keys
    /// are then checked by it instead of by the identifier's text (others get the same error).
    private func writeToMany(
        _ storage: SQLRelationshipStorage, of node: StoreNode, key: Int64, name: String, destinations: [ObjectID], isNew: Bool,
        connection: SQLiteConnection, storeNumber: Int? = nil
    ) throws {
        let keys = try destinations.map { destination in
            if let storeNumber, let key = destination.integerKey(inStoreNumber: storeNumber) { return key }
            return try foreignKey(of: destination, from: node, property: name)
        }
        try SQLToManyWrite(storage: storage, dialect: .sqlite).write(
            owner: key, destinations: keys, isNew: isNew,
            run: { sql, parameters in
                let statement = try connection.cached(sql)
                statement.reset()
                for (index, value) in parameters.enumerated() { statement.bind(int64: value, at: Int32(index + 1)) }
                try statement.run()
            },
            read: { sql, parameters in
                let statement = try connection.cached(sql)
                statement.reset()
                for (index, value) in parameters.enumerated() { statement.bind(int64: value, at: Int32(index + 1)) }
                var values: [Int64] = []
                while try statement.step() { values.append(statement.int64(at: 0)) }
                return values
            })
    }
}
