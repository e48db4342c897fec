import CSQLite
import Foundation
import StoreCore

extension SQLiteStore {
    /// How a selected column turns back into a value.
    enum ColumnDecoder {
        /// An attribute of this type.
        case typed(AttributeType)
        /// Whatever SQLite holds: INTEGER → int, REAL → double, TEXT → string, BLOB → data.
        case raw
        /// An object: its key, and its entity number when `entityColumn` (else `entity`).
        case object(entity: String, entityColumn: Bool)
        /// A constant known without the row (a transient attribute is nil).
        case constant(StoreValue)
    }

    /// One column of a dictionary fetch: its key, its SQL parts, how to read it, and its
    /// aggregate function and result type when it is an expression.
    struct DictionaryColumn {
        let key: String
        let parts: [String]
        let decoder: ColumnDecoder
        let function: ExpressionDescription.AggregateFunction?
        let resultType: AttributeType?
    }

    /// A dictionary fetch in SQL: the columns per row; or, with grouping or aggregates, one row
    /// per group in the order the groups first appear in the sorted rows (window functions
    /// keep that order and the first row's value of ungrouped columns, as in memory). Distinct
    /// rows are dropped in order after the query, so their window applies afterwards.
    func fetchDictionaries(
        _ request: FetchRequest, compiler: SQLQueryCompiler, conditions: [String], connection: SQLiteConnection
    ) throws -> StoreResult {
        let (_, schema) = try ready()
        guard let mapping = schema.entities[request.entityName] else { return .dictionaries([]) }
        var properties = request.propertiesToFetch
        if properties.isEmpty { properties = model.attributes(of: request.entityName).map { .property($0.name) } }
        let columns = try properties.map { property -> DictionaryColumn in
            switch property {
            case .property(let keyPath):
                return try column(key: keyPath, compiler.value(.keyPath(keyPath)), function: nil, resultType: nil)
            case .expression(let description):
                return try column(
                    key: description.name, compiler.value(description.expression), function: description.function,
                    resultType: description.resultType)
            }
        }
        let groups = try request.propertiesToGroupBy.map { keyPath in
            try column(key: keyPath, compiler.value(.keyPath(keyPath)), function: nil, resultType: nil)
        }
        var order: [String] = []
        for key in request.sortKeys { order += try compiler.orderTerms(for: key) }
        order.append("t0.Z_PK")
        let distinct = request.returnsDistinctResults
        let window = distinct ? "" : windowClause(request, compiler: compiler)
        let from = ([SQLSchema.sql(mapping.table) + " t0"] + compiler.rootJoins.clauses).joined(separator: " ")
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let orderList = order.joined(separator: ", ")

        // Each output: the decoder, and the select positions of its parts.
        var outputs: [(column: DictionaryColumn, positions: [Int32])] = []
        let sql: String
        if request.hasAggregates {
            var inner: [String] = []
            var outer: [String] = []
            var groupNames: [String] = []
            for group in groups {
                var positions: [Int32] = []
                for part in group.parts {
                    let name = "g\(inner.count)"
                    inner.append("\(part) AS \(name)")
                    groupNames.append(name)
                    positions.append(Int32(outer.count))
                    outer.append(name)
                }
                outputs.append((group, positions))
            }
            let partition = groupNames.isEmpty ? "" : "PARTITION BY " + groups.flatMap(\.parts).joined(separator: ", ") + " "
            for column in columns {
                var positions: [Int32] = []
                if let position = request.propertiesToGroupBy.firstIndex(of: column.key), column.function == nil {
                    outputs.append((column, outputs[position].positions))
                    continue
                }
                for part in column.parts {
                    let name = "c\(inner.count)"
                    positions.append(Int32(outer.count))
                    if let function = column.function {
                        inner.append("\(part) AS \(name)")
                        switch function {
                        case .count: outer.append("COUNT(\(name))")
                        case .sum: outer.append("COALESCE(SUM(\(name)), 0)")
                        case .min: outer.append("MIN(\(name))")
                        case .max: outer.append("MAX(\(name))")
                        case .average: outer.append("AVG(\(name))")
                        }
                    } else {
                        inner.append("FIRST_VALUE(\(part)) OVER (\(partition)ORDER BY \(orderList)) AS \(name)")
                        outer.append("MIN(\(name))")
                    }
                }
                outputs.append((column, positions))
            }
            inner.append("ROW_NUMBER() OVER (ORDER BY \(orderList)) AS ps_rn")
            let grouping = groupNames.isEmpty ? "" : " GROUP BY " + groupNames.joined(separator: ", ")
            sql = "SELECT \(outer.isEmpty ? "1" : outer.joined(separator: ", ")) FROM (SELECT \(inner.joined(separator: ", ")) FROM \(from)\(whereClause))\(grouping) ORDER BY MIN(ps_rn)\(window)"
        } else {
            var select: [String] = []
            for column in columns {
                var positions: [Int32] = []
                for part in column.parts {
                    positions.append(Int32(select.count))
                    select.append(part)
                }
                outputs.append((column, positions))
            }
            sql = "SELECT \(select.isEmpty ? "1" : select.joined(separator: ", ")) FROM \(from)\(whereClause) ORDER BY \(orderList)\(window)"
        }
        countQuery()
        let statement = try query(sql, parameters: compiler.parameters, connection: connection)
        var rows: [[String: StoreValue]] = []
        while try statement.step() {
            var row: [String: StoreValue] = [:]
            for (column, positions) in outputs {
                var value = try decode(column, at: positions, from: statement, schema: schema)
                if let type = column.resultType { value = QueryEngine.coerce(value, to: type) }
                if !value.isNull { row[column.key] = value }
            }
            rows.append(row)
        }
        if distinct {
            var seen: Set<[String: StoreValue]> = []
            rows = rows.filter { seen.insert($0).inserted }
            rows = Array(QueryEngine.window(rows, offset: request.fetchOffset, limit: request.fetchLimit))
        }
        return .dictionaries(rows)
    }

    /// The SQL parts and decoder of a dictionary column.
    private func column(
        key: String, _ value: SQLQueryCompiler.Value, function: ExpressionDescription.AggregateFunction?, resultType: AttributeType?
    ) throws -> DictionaryColumn {
        var decoder: ColumnDecoder
        let parts: [String]
        switch value {
        case .column(let sql, let type):
            parts = [sql]
            decoder = .typed(type)
        case .computed(let sql, let type):
            parts = [sql]
            decoder = type.map { $0 == .date ? .typed(.date) : .raw } ?? .raw
        case .object(let ref):
            parts = [ref.key] + (ref.entityNumber.map { [$0] } ?? [])
            decoder = .object(entity: ref.entity, entityColumn: ref.entityNumber != nil)
        case .constant(let constant):
            parts = []
            decoder = .constant(constant)
        case .list, .collection:
            throw StoreError(.coreData, "The dictionary column \(key) is a collection; give it an aggregate function")
        }
        if let function {
            switch function {
            case .count, .sum, .average: if case .constant = decoder {} else { decoder = .raw }
            case .min, .max: break
            }
            if case .constant(let constant) = decoder, parts.isEmpty {
                // An aggregate of a value known without the rows.
                return DictionaryColumn(key: key, parts: [constant.isNull ? "NULL" : "1"], decoder: .raw, function: function, resultType: resultType)
            }
        }
        return DictionaryColumn(key: key, parts: parts, decoder: decoder, function: function, resultType: resultType)
    }

    private func decode(_ column: DictionaryColumn, at positions: [Int32], from statement: SQLiteStatement, schema: SQLSchema) throws -> StoreValue {
        switch column.decoder {
        case .constant(let constant): return constant
        case .typed(let type):
            guard let position = positions.first else { return .null }
            return try SQLiteValueCoder.read(statement, at: position, as: type, describe: { "the dictionary column \(column.key)" }) ?? .null
        case .raw:
            guard let position = positions.first else { return .null }
            switch statement.columnType(at: position) {
            case SQLITE_INTEGER: return .int(statement.int64(at: position))
            case SQLITE_FLOAT: return .double(statement.double(at: position))
            case SQLITE_TEXT: return .string(statement.text(at: position))
            case SQLITE_BLOB: return .data(statement.data(at: position))
            default: return .null
            }
        case .object(let entity, let entityColumn):
            guard let position = positions.first, !statement.isNull(at: position) else { return .null }
            let key = statement.int64(at: position)
            if entityColumn, positions.count > 1 {
                return .objectID(try objectID(entityNumber: Int(statement.int64(at: positions[1])), primaryKey: key, schema: schema))
            }
            return .objectID(ObjectID(storeIdentifier: identifier, entityName: entity, reference: .int(key)))
        }
    }
}
