import Foundation
import StoreCore

extension PostgreSQLStore {
    /// Answers a fetch in SQL compiled by the shared compiler in PostgreSQL's dialect: the
    /// predicate, sort keys, window, count and dictionary columns with their grouping and
    /// aggregates.
    ///
    /// A compiled fetch (its SQL, parameters and row reader) is kept per request
    /// (``compiledFetches``, as the SQLite store does), and its statement is prepared on the
    /// connection, so a request run again is neither compiled nor parsed again; only its
    /// parameters travel.
    func fetch(_ request: FetchRequest) throws -> StoreResult {
        let (connection, schema) = try readable()
        let cacheable = request.resultType != .dictionaries && FetchRequestShape.isCompact(request)
        if cacheable, let compiled = compiledFetches.value(for: CompiledFetchKey(request: request)), compiled.storeIdentifier == identifier {
            return try run(compiled, request, connection: connection)
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
        let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: identifier, entity: mapping, dialect: .postgreSQL)
        let conditions = try compiler.selection(entity: mapping, includesSubentities: request.includesSubentities, predicate: request.predicate)
        var order: [String] = []
        if request.resultType != .count || request.fetchLimit > 0 || request.fetchOffset > 0 {
            for key in request.sortKeys { order += try compiler.orderTerms(for: key) }
            order.append("t0.Z_PK")
        }
        if request.resultType == .dictionaries {
            return try fetchDictionaries(request, mapping: mapping, compiler: compiler, conditions: conditions, connection: connection, schema: schema)
        }
        let window = Self.window(request, compiler: compiler)
        let reader = rowReader(for: numbers.compactMap { schema.entityNames[$0].flatMap { schema.entities[$0] } }, schema: schema)
        // Joins are known only once everything that may add one has been compiled.
        let from = ([SQLSchema.sql(mapping.table) + " t0"] + compiler.rootJoins.clauses).joined(separator: " ")
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let orderClause = order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", ")
        let sql: String
        switch request.resultType {
        case .count:
            sql =
                window.isEmpty
                ? "SELECT COUNT(*) FROM \(from)\(whereClause)"
                : "SELECT COUNT(*) FROM (SELECT t0.Z_PK FROM \(from)\(whereClause)\(orderClause)\(window)) AS counted"
        case .objectIDs:
            sql = "SELECT t0.Z_PK, t0.Z_ENT FROM \(from)\(whereClause)\(orderClause)\(window)"
        case .managedObjects, .dictionaries:
            sql = "SELECT \(reader.selectList(alias: "t0")) FROM \(from)\(whereClause)\(orderClause)\(window)"
        }
        let compiled = SQLCompiledFetch(sql: sql, parameters: compiler.parameters, reader: reader, mapping: mapping, storeIdentifier: identifier)
        // `now()` is bound as the instant of compiling: such a request is compiled every time.
        if cacheable && !(request.predicate?.mentionsNow ?? false) {
            compiledFetches.insert(compiled, for: CompiledFetchKey(request: request))
        }
        return try run(compiled, request, connection: connection)
    }

    /// Runs a compiled fetch (its prepared statement) and reads the rows in binary form.
    private func run(_ compiled: SQLCompiledFetch<PostgreSQLRowReader>, _ request: FetchRequest, connection: PostgreSQLConnection)
        throws -> StoreResult
    {
        let parameters = Self.parameters(compiled.parameters)
        let rows = try connection.execute(compiled.sql, parameters, binary: true, prepared: true, "fetching \(request.entityName)")
        switch request.resultType {
        case .count:
            return .count(Int(rows.binaryInteger(0, 0) ?? 0))
        case .objectIDs:
            guard let reader = compiled.reader else { return .objectIDs([]) }
            try reader.check(rows, keysOnly: true, place: place)
            return .objectIDs(try (0..<rows.rowCount).map { try reader.objectID(from: rows, row: $0, place: place) })
        case .managedObjects, .dictionaries:
            guard let reader = compiled.reader else { return .nodes([]) }
            try reader.check(rows, place: place)
            var nodes = try (0..<rows.rowCount).map { try reader.node(from: rows, row: $0, place: place) }
            for keyPath in request.relationshipKeyPathsForPrefetching {
                let name = String(keyPath.split(separator: ".", maxSplits: 1).first ?? "")
                guard model.relationship(name, of: compiled.mapping.name)?.isToMany == true else { continue }
                for index in nodes.indices {
                    nodes[index].setDestinations(try newValue(forRelationship: name, forObjectWith: nodes[index].objectID), forToMany: name)
                }
            }
            return .nodes(nodes)
        }
    }

    /// ` LIMIT $n OFFSET $m` for a request with a window, bound through the compiler.
    static func window(_ request: FetchRequest, compiler: SQLQueryCompiler) -> String {
        guard request.fetchLimit > 0 || request.fetchOffset > 0 else { return "" }
        let limit = request.fetchLimit > 0 ? compiler.parameter(.int(Int64(request.fetchLimit))) : "ALL"
        return " LIMIT \(limit) OFFSET \(compiler.parameter(.int(Int64(max(0, request.fetchOffset)))))"
    }

    /// A dictionary fetch in SQL, written by the compiler the SQLite store uses
    /// (`SQLDictionaryQuery`): columns, grouping, aggregates and order run on the server.
    private func fetchDictionaries(
        _ request: FetchRequest, mapping: SQLEntityMapping, compiler: SQLQueryCompiler, conditions: [String],
        connection: PostgreSQLConnection, schema: SQLSchema
    ) throws -> StoreResult {
        let window = request.returnsDistinctResults ? "" : Self.window(request, compiler: compiler)
        let query = try compiler.dictionaryQuery(request, mapping: mapping, conditions: conditions, window: window)
        let result = try connection.execute(query.sql, Self.parameters(compiler.parameters), "fetching dictionaries of \(request.entityName)")
        var rows: [[String: StoreValue]] = []
        rows.reserveCapacity(result.rowCount)
        for row in 0..<result.rowCount {
            rows.append(try query.row { column, positions in try decode(column, at: positions, row: row, of: result, schema: schema) })
        }
        return .dictionaries(query.finish(rows, request: request))
    }

    /// One value of a dictionary row.
    private func decode(
        _ column: SQLDictionaryQuery.Column, at positions: [Int], row: Int, of result: PostgreSQLResult, schema: SQLSchema
    ) throws -> StoreValue {
        switch column.decoder {
        case .constant(let constant): return constant
        case .typed(let type):
            guard let position = positions.first else { return .null }
            return try PostgreSQLValueCoder.read(result, row, position, as: type, place: "the dictionary column \(column.key)") ?? .null
        case .raw:
            guard let position = positions.first, let text = result.text(row, position) else { return .null }
            switch result.typeOID(position) {
            case 16: return .bool(text == "t")
            case 20, 21, 23: return Int64(text).map(StoreValue.int) ?? .null
            case 700, 701: return Double(text).map(StoreValue.double) ?? .null
            case 1700:
                // numeric: SUM of integers is integral, AVG is not.
                if let integer = Int64(text) { return .int(integer) }
                return Double(text).map(StoreValue.double) ?? .null
            case 17: return result.bytes(row, position).map(StoreValue.data) ?? .null
            default: return .string(PostgreSQLValueCoder.original(text))
            }
        case .object(let entity, let entityColumn):
            guard let position = positions.first, let key = result.int64(row, position) else { return .null }
            if entityColumn, positions.count > 1, let number = result.int64(row, positions[1]) {
                return .objectID(try objectID(entityNumber: Int(number), primaryKey: key, schema: schema))
            }
            return .objectID(ObjectID(storeIdentifier: identifier, entityName: entity, reference: .int(key)))
        }
    }

    /// The values of one object, read by primary key; 133000 when the row does not exist.
    public func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode {
        try retryingRead {
            let (connection, schema) = try readable()
            let query = try faultQuery(for: objectID, schema: schema)
            let key = try primaryKey(of: objectID)
            let rows = try connection.execute(
                query.sql, [.text(String(key)), .text(query.entityNumber)], binary: true, prepared: true, "reading \(objectID)")
            guard rows.rowCount == 1 else { throw Self.missing(objectID) }
            try query.reader.check(rows, place: place)
            return try query.reader.node(from: rows, row: 0, place: place)
        }
    }

    /// The single-object query of the ID's entity, made once per entity (its SQL text is not
    /// rebuilt per fault); 134070 for an entity the store does not hold.
    func faultQuery(for objectID: ObjectID, schema: SQLSchema) throws -> PostgreSQLFaultQuery {
        if let query = faultQueries[objectID.entityNumber], query.reader.storeIdentifier == identifier { return query }
        let mapping = try self.mapping(of: objectID.entityName)
        let query = PostgreSQLFaultQuery(mapping: mapping, reader: rowReader(for: [mapping], schema: schema))
        faultQueries[objectID.entityNumber] = query
        return query
    }

    /// The values of several objects (faults filled together: batched fetches, prefetching):
    /// one prepared query per entity reading the rows by primary key (`Z_PK = ANY($1)`, the keys
    /// as one array parameter, so any number fits and the statement's text does not depend on
    /// how many), with no predicate compiled. IDs of other stores and rows that do not exist
    /// are left out.
    public func newValues(forObjectsWith objectIDs: [ObjectID]) throws -> [IncrementalStoreNode] {
        try retryingRead {
            let (connection, schema) = try readable()
            var nodes: [IncrementalStoreNode] = []
            nodes.reserveCapacity(objectIDs.count)
            for group in SQLKeysByEntity(objectIDs, storeIdentifier: identifier).groups {
                let mapping = try self.mapping(of: group.entityName)
                let reader = rowReader(for: [mapping], schema: schema)
                let keys = "{" + group.keys.map(String.init).joined(separator: ",") + "}"
                let rows = try connection.execute(
                    "SELECT \(reader.selectList()) FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = ANY($1::bigint[]) AND Z_ENT = $2",
                    [.text(keys), .text(String(mapping.number))], binary: true, prepared: true, "reading \(group.keys.count) \(mapping.name) objects")
                try reader.check(rows, place: place)
                for row in 0..<rows.rowCount { nodes.append(try reader.node(from: rows, row: row, place: place)) }
            }
            return nodes
        }
    }

    /// The destinations of one relationship of one object, in order for ordered relationships.
    public func newValue(forRelationship relationshipName: String, forObjectWith objectID: ObjectID) throws -> [ObjectID] {
        try retryingRead {
            let (connection, schema) = try readable()
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
            let keyParameter = PostgreSQLParameter.text(String(key))
            let context = "reading \(objectID.entityName).\(relationshipName) of \(objectID)"
            switch storage {
            case .toOne(let column, let entityColumn):
                let rows = try connection.execute(
                    "SELECT Z_ENT, \(SQLSchema.sql(column)), \(entityColumn.map(SQLSchema.sql) ?? "NULL::bigint") FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = $1",
                    [keyParameter], context)
                guard rows.rowCount == 1, rows.int64(0, 0) == Int64(mapping.number) else { throw Self.missing(objectID) }
                guard let target = rows.int64(0, 1) else { return [] }
                guard let number = rows.int64(0, 2) else {
                    return [ObjectID(storeIdentifier: identifier, entityName: destination.name, reference: .int(target))]
                }
                return [try self.objectID(entityNumber: Int(number), primaryKey: target, schema: schema)]
            case .toManyThroughInverse(let table, let column, let orderColumn), .toManyWithoutInverse(let table, let column, let orderColumn):
                let order = orderColumn.map { "\(SQLSchema.sql($0)), Z_PK" } ?? "Z_PK"
                let rows = try connection.execute(
                    "SELECT Z_PK, Z_ENT FROM \(SQLSchema.sql(table)) WHERE \(SQLSchema.sql(column)) = $1 ORDER BY \(order)", [keyParameter], context)
                return try (0..<rows.rowCount).map {
                    try self.objectID(entityNumber: Int(rows.int64($0, 1) ?? 0), primaryKey: rows.int64($0, 0) ?? 0, schema: schema)
                }
            case .manyToMany(let table, let sourceColumn, let destinationColumn, let orderColumn):
                let target = SQLSchema.sql(destinationColumn)
                let order = orderColumn.map { "j.\(SQLSchema.sql($0)), j.\(target)" } ?? "j.\(target)"
                let rows = try connection.execute(
                    "SELECT j.\(target), d.Z_ENT FROM \(SQLSchema.sql(table)) j JOIN \(SQLSchema.sql(destination.table)) d ON d.Z_PK = j.\(target) WHERE j.\(SQLSchema.sql(sourceColumn)) = $1 ORDER BY \(order)",
                    [keyParameter], context)
                return try (0..<rows.rowCount).map {
                    try self.objectID(entityNumber: Int(rows.int64($0, 1) ?? 0), primaryKey: rows.int64($0, 0) ?? 0, schema: schema)
                }
            }
        }
    }

    /// Permanent IDs from `Z_MAX` of each entity tree's root, taken with one `UPDATE …
    /// RETURNING` per tree (atomic, so no other process is handed the same keys).
    public func obtainPermanentIDs(for objectIDs: [ObjectID]) throws -> [ObjectID] {
        try retryingRead {
            let (connection, schema) = try writable("reserving keys for new objects")
            var counts: [Int: Int] = [:]
            var counters: [Int] = []
            for id in objectIDs {
                let mapping = try self.mapping(of: id.entityName)
                if mapping.isAbstract {
                    throw StoreError(
                        .persistentStoreOperation, "Entity \(id.entityName) is abstract; its objects cannot be saved", objectIDs: [id],
                        entityName: id.entityName)
                }
                let counter = Self.counterNumber(of: mapping, in: schema)
                counters.append(counter)
                counts[counter, default: 0] += 1
            }
            var next: [Int: Int64] = [:]
            for (number, count) in counts.sorted(by: { $0.key < $1.key }) {
                let rows = try connection.execute(
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = COALESCE(Z_MAX, 0) + $1 WHERE Z_ENT = $2 RETURNING Z_MAX",
                    [.text(String(count)), .text(String(number))], "reserving primary keys")
                guard let last = rows.int64(0, 0) else {
                    throw StoreError(.persistentStoreOperation, "\(capitalizedPlace) has no key counter for entity number \(number)")
                }
                next[number] = last - Int64(count) + 1
            }
            var result: [ObjectID] = []
            result.reserveCapacity(objectIDs.count)
            for (id, counter) in zip(objectIDs, counters) {
                let key = next[counter] ?? 1
                next[counter] = key + 1
                result.append(ObjectID(storeIdentifier: identifier, entityName: id.entityName, reference: .int(key)))
            }
            return result
        }
    }
}
