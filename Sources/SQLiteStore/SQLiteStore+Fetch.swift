import Foundation
import StoreCore

extension SQLiteStore {
    /// The row reader for a set of entities of one table (cached).
    func rowReader(for mappings: [SQLEntityMapping]) -> SQLiteRowReader {
        let key = mappings.map(\.number)
        if let reader = rowReaders[key], reader.storeIdentifier == identifier { return reader }
        let reader = SQLiteRowReader(entities: mappings, storeIdentifier: identifier, schema: schema, model: model)
        rowReaders[key] = reader
        return reader
    }

    /// Answers a fetch in SQL: the predicate, sort keys, window and result shape are all
    /// compiled (``SQLQueryCompiler``); only the rows asked for are read.
    ///
    /// A compiled fetch (its SQL text, its parameters and its row reader) is kept per request
    /// (``compiledFetches``), so running the same request again binds and steps its prepared
    /// statement without compiling anything.
    func fetch(_ request: FetchRequest) throws -> StoreResult {
        let (connection, schema) = try ready()
        let cacheable = request.resultType != .dictionaries && FetchRequestShape.isCompact(request)
        if cacheable, let compiled = compiledFetches.value(for: CompiledFetchKey(request: request)),
            compiled.storeIdentifier == identifier
        {
            return try run(compiled, request, connection: connection, schema: schema)
        }
        guard let mapping = schema.entities[request.entityName] else {
            switch request.resultType {
            case .managedObjects: return .nodes([])
            case .objectIDs: return .objectIDs([])
            case .count: return .count(0)
            case .dictionaries: return .dictionaries([])
            }
        }
        let numbers = request.includesSubentities ? mapping.numbersWithDescendants : [mapping.number]
        let treeNumbers = schema.entities[mapping.root]?.numbersWithDescendants ?? mapping.numbersWithDescendants
        let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: identifier, entity: mapping)
        var conditions: [String] = []
        if let restriction = SQLQueryCompiler.entityRestriction(numbers, of: treeNumbers, alias: "t0") { conditions.append(restriction) }
        if let predicate = request.predicate, predicate != .truePredicate {
            conditions.append(try compiler.condition(predicate))
        }
        if request.resultType == .dictionaries {
            return try fetchDictionaries(request, compiler: compiler, conditions: conditions, connection: connection)
        }
        var order: [String] = []
        if request.resultType != .count || request.fetchLimit > 0 || request.fetchOffset > 0 {
            for key in request.sortKeys { order += try compiler.orderTerms(for: key) }
            order.append("t0.Z_PK")
        }
        let window = windowClause(request, compiler: compiler)
        let reader = request.resultType == .managedObjects
            ? rowReader(for: numbers.compactMap { schema.entityNames[$0].flatMap { schema.entities[$0] } }) : nil
        // Joins are known only once everything that may add one has been compiled.
        let from = ([SQLSchema.sql(mapping.table) + " t0"] + compiler.rootJoins.clauses).joined(separator: " ")
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let orderClause = order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", ")
        let sql: String
        switch request.resultType {
        case .count:
            sql = window.isEmpty
                ? "SELECT COUNT(*) FROM \(from)\(whereClause)"
                : "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM \(from)\(whereClause)\(orderClause)\(window))"
        case .objectIDs:
            sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(from)\(whereClause)\(orderClause)\(window)"
        case .managedObjects, .dictionaries:
            guard let reader else { return .nodes([]) }
            sql = "SELECT \(reader.selectList(alias: "t0")) FROM \(from)\(whereClause)\(orderClause)\(window)"
        }
        // `now()` is bound as the instant of compiling: such a request is compiled every time.
        let kept = cacheable && !(request.predicate?.mentionsNow ?? false)
        // A kept compilation finds its prepared statement by number, not by hashing its text.
        let compiled = SQLCompiledFetch(
            sql: sql, parameters: compiler.parameters, reader: reader, mapping: mapping, storeIdentifier: identifier,
            statementNumber: kept ? newStatementNumber() : nil)
        if kept { compiledFetches.insert(compiled, for: CompiledFetchKey(request: request)) }
        return try run(compiled, request, connection: connection, schema: schema)
    }

    /// A number for a statement the store keeps by number on its connection.
    func newStatementNumber() -> Int {
        defer { nextStatementNumber += 1 }
        return nextStatementNumber
    }

    /// Runs a compiled fetch: binds its parameters to its cached statement and reads the rows.
    private func run(
        _ compiled: SQLCompiledFetch<SQLiteRowReader>, _ request: FetchRequest, connection: SQLiteConnection, schema: SQLSchema
    ) throws -> StoreResult {
        countQuery()
        let statement: SQLiteStatement
        if let number = compiled.statementNumber {
            lastQuery = compiled.sql
            statement = try connection.cached(number: number) { compiled.sql }
            for (index, value) in compiled.parameters.enumerated() {
                SQLiteValueCoder.bind(value, to: statement, at: Int32(index + 1))
            }
        } else {
            statement = try query(compiled.sql, parameters: compiled.parameters, connection: connection)
        }
        switch request.resultType {
        case .count:
            // One row: reset at once, or the statement would keep a read transaction open.
            defer { statement.reset() }
            guard try statement.step() else { return .count(0) }
            return .count(Int(statement.int64(at: 0)))
        case .objectIDs:
            var ids: [ObjectID] = []
            let store = identifier
            // Rows of one entity come in runs: its ID prefix is looked up once per run.
            var lastEntity = -1
            var prefix: ObjectIDPrefix?
            while try statement.step() {
                let entity = Int(statement.int64(at: 1))
                let key = statement.int64(at: 0)
                if entity != lastEntity || prefix == nil {
                    guard let name = schema.entityNames[entity] else {
                        // Reports the unknown entity number as every row read does.
                        ids.append(try objectID(entityNumber: entity, primaryKey: key, schema: schema, store: store))
                        continue
                    }
                    prefix = objectIDPrefix(entityNumber: entity, entityName: name, store: store)
                    lastEntity = entity
                }
                if let prefix { ids.append(prefix.objectID(.int(key))) }
            }
            return .objectIDs(ids)
        case .managedObjects, .dictionaries:
            guard let reader = compiled.reader else { return .nodes([]) }
            var nodes: [StoreNode] = []
            try reader.appendNodes(from: statement, url: url, to: &nodes)
            if !request.relationshipKeyPathsForPrefetching.isEmpty, !nodes.isEmpty {
                try prefetch(
                    request.relationshipKeyPathsForPrefetching, into: &nodes, entity: compiled.mapping, connection: connection,
                    schema: schema)
            }
            return .nodes(nodes)
        }
    }

    /// ` LIMIT ?n OFFSET ?m` for a request with a window, bound through the compiler.
    func windowClause(_ request: FetchRequest, compiler: SQLQueryCompiler) -> String {
        guard request.fetchLimit > 0 || request.fetchOffset > 0 else { return "" }
        let limit = compiler.parameter(.int(request.fetchLimit > 0 ? Int64(request.fetchLimit) : -1))
        let offset = compiler.parameter(.int(Int64(max(0, request.fetchOffset))))
        return " LIMIT \(limit) OFFSET \(offset)"
    }

    /// A cached statement for `sql` with `parameters` bound to `?1`, `?2`, ….
    func query(_ sql: String, parameters: [StoreValue], connection: SQLiteConnection) throws -> SQLiteStatement {
        lastQuery = sql
        let statement = try connection.cached(sql)
        for (index, value) in parameters.enumerated() {
            SQLiteValueCoder.bind(value, to: statement, at: Int32(index + 1))
        }
        return statement
    }

    /// Fills the to-many relationships named by the first component of each key path, one
    /// query per key path for all the nodes at once.
    func prefetch(
        _ keyPaths: [String], into nodes: inout [StoreNode], entity: SQLEntityMapping, connection: SQLiteConnection,
        schema: SQLSchema
    ) throws {
        var names: [String] = []
        for keyPath in keyPaths {
            let name = String(keyPath.split(separator: ".", maxSplits: 1).first ?? "")
            if !names.contains(name) { names.append(name) }
        }
        var positions: [Int64: [Int]] = [:]
        for (position, node) in nodes.enumerated() {
            if case .int(let key)? = node.objectID.referenceObject { positions[key, default: []].append(position) }
        }
        let keys = Self.jsonKeys(positions.keys.sorted())
        for name in names {
            guard let relationship = model.relationship(name, of: entity.name) else {
                throw StoreError(
                    .coreData, "Cannot prefetch \(name): entity \(entity.name) has no such relationship", entityName: entity.name,
                    propertyName: name)
            }
            guard relationship.isToMany, let storage = entity.relationships[name],
                let destination = schema.entities[relationship.destinationEntityName]
            else { continue }
            let sql: String
            switch storage {
            case .toOne: continue
            case .toManyThroughInverse(let table, let column, let orderColumn), .toManyWithoutInverse(let table, let column, let orderColumn):
                let c = SQLSchema.sql(column)
                let order = orderColumn.map { "d.\(SQLSchema.sql($0)), " } ?? ""
                sql = "SELECT d.\(c), d.Z_PK, d.Z_ENT FROM \(SQLSchema.sql(table)) d WHERE d.\(c) IN (SELECT value FROM json_each(?1)) ORDER BY d.\(c), \(order)d.Z_PK"
            case .manyToMany(let table, let sourceColumn, let destinationColumn, let orderColumn):
                let s = SQLSchema.sql(sourceColumn)
                let t = SQLSchema.sql(destinationColumn)
                let order = orderColumn.map { "j.\(SQLSchema.sql($0)), " } ?? ""
                sql = "SELECT j.\(s), j.\(t), d.Z_ENT FROM \(SQLSchema.sql(table)) j JOIN \(SQLSchema.sql(destination.table)) d ON d.Z_PK = j.\(t) WHERE j.\(s) IN (SELECT value FROM json_each(?1)) ORDER BY j.\(s), \(order)j.\(t)"
            }
            countQuery()
            let statement = try query(sql, parameters: [.string(keys)], connection: connection)
            var found: [Int64: [ObjectID]] = [:]
            while try statement.step() {
                let id = try objectID(entityNumber: Int(statement.int64(at: 2)), primaryKey: statement.int64(at: 1), schema: schema)
                found[statement.int64(at: 0), default: []].append(id)
            }
            for (key, indexes) in positions {
                for index in indexes where model.relationship(name, of: nodes[index].entityName) != nil {
                    nodes[index].setDestinations(found[key] ?? [], forToMany: name)
                }
            }
        }
    }

    /// The values of one object, read by primary key; 133000 when the row does not exist.
    ///
    /// The query of each entity is made once (`SQLiteFaultQuery`): a fault binds its key to a
    /// statement already prepared, found by number, with no SQL text built or hashed.
    public func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode {
        let (connection, _) = try ready()
        let query = try faultQuery(for: objectID)
        let key = try primaryKey(of: objectID)
        let statement = try connection.cached(number: query.statementNumber) { query.sql }
        statement.bind(int64: key, at: 1)
        countQuery()
        // One row: reset at once, or the statement would keep a read transaction open (the
        // connection would not see other processes' commits, and the WAL could not checkpoint).
        defer { statement.reset() }
        guard try statement.step(), Int(statement.int64(at: 1)) == query.entityNumber else {
            throw Self.missing(objectID)
        }
        return try query.reader.node(from: statement, url: url)
    }

    /// The single-object query of the ID's entity, made on first use (134070 for an entity the
    /// store does not hold).
    func faultQuery(for objectID: ObjectID) throws -> SQLiteFaultQuery {
        let existing = faultQueries[objectID.entityNumber]
        if let existing, existing.reader.storeIdentifier == identifier { return existing }
        let mapping = try self.mapping(of: objectID.entityName)
        // A query remade for a new store identifier has the same text: it keeps its number.
        let number = existing?.statementNumber ?? newStatementNumber()
        let query = SQLiteFaultQuery(mapping: mapping, reader: rowReader(for: [mapping]), statementNumber: number)
        faultQueries[objectID.entityNumber] = query
        return query
    }

    /// The values of several objects: one query per entity reading the rows by primary key,
    /// with no predicate built or compiled. Dense keys (a range at most twice as wide as the
    /// number of keys) are read as one range, `Z_PK BETWEEN` the smallest and the largest,
    /// skipping the rows not asked for; other keys with `Z_PK IN` a JSON array of them (so any
    /// number fits SQLite's limits). IDs of other stores and rows that do not exist are left out.
    public func newValues(forObjectsWith objectIDs: [ObjectID]) throws -> [IncrementalStoreNode] {
        try newValues(forObjectsWith: objectIDs, readingSpans: true)
    }

    /// ``newValues(forObjectsWith:)``, reading every entity's keys as a JSON array when
    /// `readingSpans` is false (tests compare both reads).
    func newValues(forObjectsWith objectIDs: [ObjectID], readingSpans: Bool) throws -> [IncrementalStoreNode] {
        let (connection, _) = try ready()
        var nodes: [IncrementalStoreNode] = []
        nodes.reserveCapacity(objectIDs.count)
        for group in SQLKeysByEntity(objectIDs, storeIdentifier: identifier).groups {
            let mapping = try self.mapping(of: group.entityName)
            let reader = rowReader(for: [mapping])
            let span = readingSpans ? SQLiteKeySpan(group.keys) : nil
            let statement: SQLiteStatement
            if let span {
                statement = try connection.cached(
                    "SELECT \(reader.selectList()) FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK BETWEEN ?1 AND ?2")
                statement.bind(int64: span.low, at: 1)
                statement.bind(int64: span.high, at: 2)
            } else {
                statement = try connection.cached(
                    "SELECT \(reader.selectList()) FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK IN (SELECT value FROM json_each(?1))")
                statement.bind(text: Self.jsonKeys(group.keys), at: 1)
            }
            lastQuery = statement.sql
            countQuery()
            while try statement.step() {
                // A row of another entity of the same table is not one of the IDs asked for, nor
                // is a row of the range whose key was not asked for.
                guard Int(statement.int64(at: 1)) == mapping.number else { continue }
                if let span, !span.contains(statement.int64(at: 0)) { continue }
                nodes.append(try reader.node(from: statement, url: url))
            }
        }
        return nodes
    }

    /// Primary keys as a JSON array, the one parameter of `… IN (SELECT value FROM json_each(?))`.
    static func jsonKeys(_ keys: [Int64]) -> String {
        "[" + keys.map(String.init).joined(separator: ",") + "]"
    }

    static func missing(_ objectID: ObjectID) -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "Object \(objectID) (\(objectID.entityName)) does not exist in the SQLite store",
            objectIDs: [objectID], entityName: objectID.entityName)
    }

    /// The destinations of one relationship of one object, by primary key, in order for ordered
    /// relationships.
    public func newValue(forRelationship relationshipName: String, forObjectWith objectID: ObjectID) throws -> [ObjectID] {
        let (connection, schema) = try ready()
        let mapping = try self.mapping(of: objectID.entityName)
        let key = try primaryKey(of: objectID)
        guard let storage = mapping.relationships[relationshipName],
            let relationship = model.relationship(relationshipName, of: objectID.entityName),
            let destination = schema.entities[relationship.destinationEntityName]
        else {
            throw StoreError(
                .persistentStoreOperation, "Entity \(objectID.entityName) has no stored relationship \(relationshipName)",
                entityName: objectID.entityName, propertyName: relationshipName)
        }
        countQuery()
        let store = identifier
        let destinationHasSubentities = destination.numbersWithDescendants.count > 1
        switch storage {
        case .toOne(let column, let entityColumn):
            let statement = try connection.cached(
                "SELECT Z_ENT, \(SQLSchema.sql(column)), \(entityColumn.map(SQLSchema.sql) ?? "NULL") FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = ?"
            )
            statement.bind(int64: key, at: 1)
            // One row: reset at once (see newValues(forObjectWith:)).
            defer { statement.reset() }
            guard try statement.step(), Int(statement.int64(at: 0)) == mapping.number else { throw Self.missing(objectID) }
            if statement.isNull(at: 1) { return [] }
            if statement.isNull(at: 2) {
                return [ObjectID(storeIdentifier: store, entityName: destination.name, reference: .int(statement.int64(at: 1)))]
            }
            return [try self.objectID(entityNumber: Int(statement.int64(at: 2)), primaryKey: statement.int64(at: 1), schema: schema)]
        case .toManyThroughInverse(let table, let column, let orderColumn),
            .toManyWithoutInverse(let table, let column, let orderColumn):
            let order = orderColumn.map { "\(SQLSchema.sql($0)), Z_PK" } ?? "Z_PK"
            let statement = try connection.cached(
                "SELECT Z_PK, Z_ENT FROM \(SQLSchema.sql(table)) WHERE \(SQLSchema.sql(column)) = ? ORDER BY \(order)")
            statement.bind(int64: key, at: 1)
            var ids: [ObjectID] = []
            while try statement.step() {
                ids.append(try self.objectID(entityNumber: Int(statement.int64(at: 1)), primaryKey: statement.int64(at: 0), schema: schema))
            }
            return ids
        case .manyToMany(let table, let sourceColumn, let destinationColumn, let orderColumn):
            let join = SQLSchema.sql(table)
            let source = SQLSchema.sql(sourceColumn)
            let target = SQLSchema.sql(destinationColumn)
            let order = orderColumn.map { "j.\(SQLSchema.sql($0)), j.\(target)" } ?? "j.\(target)"
            let sql =
                destinationHasSubentities
                ? "SELECT j.\(target), d.Z_ENT FROM \(join) j JOIN \(SQLSchema.sql(destination.table)) d ON d.Z_PK = j.\(target) WHERE j.\(source) = ? ORDER BY \(order)"
                : "SELECT j.\(target) FROM \(join) j WHERE j.\(source) = ? ORDER BY \(order)"
            let statement = try connection.cached(sql)
            statement.bind(int64: key, at: 1)
            var ids: [ObjectID] = []
            while try statement.step() {
                if destinationHasSubentities {
                    ids.append(try self.objectID(entityNumber: Int(statement.int64(at: 1)), primaryKey: statement.int64(at: 0), schema: schema))
                } else {
                    ids.append(ObjectID(storeIdentifier: store, entityName: destination.name, reference: .int(statement.int64(at: 0))))
                }
            }
            return ids
        }
    }

    /// Permanent IDs from `Z_MAX` of each entity tree's root, committed at once so that no
    /// other connection hands out the same keys.
    public func obtainPermanentIDs(for objectIDs: [ObjectID]) throws -> [ObjectID] {
        let (connection, schema) = try ready()
        if isReadOnly {
            throw StoreError(.persistentStoreOperation, "The SQLite store at \(url?.path ?? "(memory)") is read-only", fileURL: url)
        }
        // Mapping and ID prefix per entity, found once per entity rather than once per ID (and
        // not looked up again while the IDs stay of one entity).
        var entities: [Int: (counter: Int, prefix: ObjectIDPrefix)] = [:]
        var prefixes: [ObjectIDPrefix] = []
        prefixes.reserveCapacity(objectIDs.count)
        var counterOfPosition: [Int] = []
        counterOfPosition.reserveCapacity(objectIDs.count)
        var counts: [Int: Int] = [:]  // counter entity number → IDs to mint
        var last: (number: Int, counter: Int, prefix: ObjectIDPrefix)?
        // The IDs counted for `last` and not yet entered in `counts` (one dictionary update per
        // run of one entity instead of one per ID).
        var runCount = 0
        for id in objectIDs {
            let entity: (counter: Int, prefix: ObjectIDPrefix)
            if let last, last.number == id.entityNumber {
                entity = (last.counter, last.prefix)
            } else if let known = entities[id.entityNumber] {
                entity = known
            } else {
                let mapping = try self.mapping(of: id.entityName)
                if mapping.isAbstract {
                    throw StoreError(
                        .persistentStoreOperation, "Entity \(id.entityName) is abstract; its objects cannot be saved",
                        objectIDs: [id], entityName: id.entityName)
                }
                entity = (Self.counterNumber(of: mapping, in: schema), ObjectIDPrefix(storeIdentifier: identifier, entityOf: id))
                entities[id.entityNumber] = entity
            }
            if last?.number != id.entityNumber {
                if let last, runCount > 0 { counts[last.counter, default: 0] += runCount }
                runCount = 0
                last = (id.entityNumber, entity.counter, entity.prefix)
            }
            prefixes.append(entity.prefix)
            counterOfPosition.append(entity.counter)
            runCount += 1
        }
        if let last, runCount > 0 { counts[last.counter, default: 0] += runCount }
        var result = objectIDs
        try connection.transaction {
            for (number, count) in counts.sorted(by: { $0.key < $1.key }) {
                let read = try connection.cached("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = ?")
                read.bind(int64: Int64(number), at: 1)
                let current = try read.step() ? read.int64(at: 0) : 0
                let write = try connection.cached("UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_ENT = ?")
                write.bind(int64: current + Int64(count), at: 1)
                write.bind(int64: Int64(number), at: 2)
                try write.run()
                // The keys of one counter in the order of the IDs.
                var next = current + 1
                for position in counterOfPosition.indices where counterOfPosition[position] == number {
                    result[position] = prefixes[position].objectID(.int(next))
                    next += 1
                }
            }
        }
        return result
    }

    /// The `Z_PRIMARYKEY` row whose `Z_MAX` hands out keys for an entity: its tree's root (the
    /// rows of a tree share one table and so one key space).
    static func counterNumber(of mapping: SQLEntityMapping, in schema: SQLSchema) -> Int {
        schema.entityNumbers[mapping.root] ?? mapping.number
    }
}
