import Foundation

/// A dictionary fetch compiled to SQL (``SQLQueryCompiler/dictionaryQuery(_:mapping:conditions:window:)``),
/// shared by the SQL stores: the statement, and for each key of the result how to read its value
/// from the selected columns. Each store runs the statement and reads the columns with its own
/// library (``Decoder``), then ``row(_:)`` and ``finish(_:request:)`` shape the result the same way.
///
/// Without grouping or aggregates, a row per object, in the request's order. With them, one row
/// per group in the order the groups first appear in the sorted rows (window functions keep that
/// order and the first row's value of ungrouped columns, as in memory). Distinct rows are dropped
/// in order after the query, so their window applies afterwards.
package struct SQLDictionaryQuery {
    /// How a selected column turns back into a value.
    package enum Decoder {
        /// An attribute of this type.
        case typed(AttributeType)
        /// A computed value: whatever the engine returns (integer, real, text, bytes).
        case raw
        /// An object: its key, and its entity number when `entityColumn` (else `entity`).
        case object(entity: String, entityColumn: Bool)
        /// A constant known without the row (a transient attribute is nil).
        case constant(StoreValue)
    }

    /// One key of the result: its SQL parts, how to read it, and its aggregate function and
    /// result type when it is an expression.
    package struct Column {
        package let key: String
        package let parts: [String]
        package let decoder: Decoder
        package let function: ExpressionDescription.AggregateFunction?
        package let resultType: AttributeType?
    }

    /// The statement (its parameters are the compiler's).
    package let sql: String
    /// Each key of the result and the positions (0-based) of its parts in the select list.
    package let outputs: [(column: Column, positions: [Int])]
    /// Whether distinct rows are kept only (after the query).
    package let distinct: Bool

    /// One result row from the values `read` gives for each output (nil values left out, each
    /// coerced to its expression's result type).
    package func row(_ read: (Column, [Int]) throws -> StoreValue) rethrows -> [String: StoreValue] {
        var row: [String: StoreValue] = [:]
        for (column, positions) in outputs {
            var value = try read(column, positions)
            if let type = column.resultType { value = QueryEngine.coerce(value, to: type) }
            if !value.isNull { row[column.key] = value }
        }
        return row
    }

    /// The rows of the result: distinct ones only, windowed, when the request asks for them.
    package func finish(_ rows: [[String: StoreValue]], request: FetchRequest) -> [[String: StoreValue]] {
        guard distinct else { return rows }
        var seen: Set<[String: StoreValue]> = []
        let unique = rows.filter { seen.insert($0).inserted }
        return Array(QueryEngine.window(unique, offset: request.fetchOffset, limit: request.fetchLimit))
    }
}

extension SQLQueryCompiler {
    /// The dictionary fetch of `request` on `mapping`'s table: `conditions` select the rows,
    /// `window` is the statement's `LIMIT … OFFSET …` (left out by the caller for distinct
    /// results, which are windowed after the query).
    package func dictionaryQuery(_ request: FetchRequest, mapping: SQLEntityMapping, conditions: [String], window: String) throws
        -> SQLDictionaryQuery
    {
        var properties = request.propertiesToFetch
        if properties.isEmpty { properties = model.attributes(of: request.entityName).map { .property($0.name) } }
        let columns = try properties.map { property -> SQLDictionaryQuery.Column in
            switch property {
            case .property(let keyPath):
                return try dictionaryColumn(key: keyPath, value(.keyPath(keyPath)), function: nil, resultType: nil)
            case .expression(let description):
                return try dictionaryColumn(
                    key: description.name, value(description.expression), function: description.function, resultType: description.resultType)
            }
        }
        let groups = try request.propertiesToGroupBy.map { keyPath in
            try dictionaryColumn(key: keyPath, value(.keyPath(keyPath)), function: nil, resultType: nil)
        }
        var order: [String] = []
        for key in request.sortKeys { order += try orderTerms(for: key) }
        order.append("t0.Z_PK")
        let from = ([SQLSchema.sql(mapping.table) + " t0"] + rootJoins.clauses).joined(separator: " ")
        let whereClause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let orderList = order.joined(separator: ", ")

        var outputs: [(column: SQLDictionaryQuery.Column, positions: [Int])] = []
        let sql: String
        if request.hasAggregates {
            var inner: [String] = []
            var outer: [String] = []
            var groupNames: [String] = []
            for group in groups {
                var positions: [Int] = []
                for part in group.parts {
                    let name = "g\(inner.count)"
                    inner.append("\(part) AS \(name)")
                    groupNames.append(name)
                    positions.append(outer.count)
                    outer.append(name)
                }
                outputs.append((group, positions))
            }
            let partition = groupNames.isEmpty ? "" : "PARTITION BY " + groups.flatMap(\.parts).joined(separator: ", ") + " "
            for column in columns {
                var positions: [Int] = []
                if let position = request.propertiesToGroupBy.firstIndex(of: column.key), column.function == nil {
                    outputs.append((column, outputs[position].positions))
                    continue
                }
                for part in column.parts {
                    let name = "c\(inner.count)"
                    positions.append(outer.count)
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
                        outer.append(dialect.kind == .sqlite ? "MIN(\(name))" : "(ARRAY_AGG(\(name)))[1]")
                    }
                }
                outputs.append((column, positions))
            }
            inner.append("ROW_NUMBER() OVER (ORDER BY \(orderList)) AS ps_rn")
            let grouping = groupNames.isEmpty ? "" : " GROUP BY " + groupNames.joined(separator: ", ")
            sql =
                "SELECT \(outer.isEmpty ? "1" : outer.joined(separator: ", ")) FROM (SELECT \(inner.joined(separator: ", ")) FROM \(from)\(whereClause)) AS ps_rows\(grouping) ORDER BY MIN(ps_rn)\(window)"
        } else {
            var select: [String] = []
            for column in columns {
                var positions: [Int] = []
                for part in column.parts {
                    positions.append(select.count)
                    select.append(part)
                }
                outputs.append((column, positions))
            }
            sql = "SELECT \(select.isEmpty ? "1" : select.joined(separator: ", ")) FROM \(from)\(whereClause) ORDER BY \(orderList)\(window)"
        }
        return SQLDictionaryQuery(sql: sql, outputs: outputs, distinct: request.returnsDistinctResults)
    }

    /// The SQL parts and decoder of a dictionary column.
    private func dictionaryColumn(
        key: String, _ value: Value, function: ExpressionDescription.AggregateFunction?, resultType: AttributeType?
    ) throws -> SQLDictionaryQuery.Column {
        var decoder: SQLDictionaryQuery.Decoder
        let parts: [String]
        switch value {
        case .column(let sql, let type):
            // An aggregate of a boolean column counts, sums and compares it as a number.
            parts = [function == nil ? sql : dialect.number(sql, type: type)]
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
            case .min, .max:
                if case .typed(.boolean) = decoder, dialect.kind == .postgreSQL { decoder = .raw }
            }
            if case .constant(let constant) = decoder, parts.isEmpty {
                // An aggregate of a value known without the rows.
                return SQLDictionaryQuery.Column(
                    key: key, parts: [constant.isNull ? "NULL" : "1"], decoder: .raw, function: function, resultType: resultType)
            }
        }
        return SQLDictionaryQuery.Column(key: key, parts: parts, decoder: decoder, function: function, resultType: resultType)
    }
}
