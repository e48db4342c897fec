import CSQLite
import Foundation
import StoreCore

extension SQLiteStore {
    /// A dictionary fetch in SQL, written by the shared compiler (`SQLDictionaryQuery`): the
    /// columns per row; or, with grouping or aggregates, one row per group in the order the
    /// groups first appear in the sorted rows. Distinct rows are dropped in order after the
    /// query, so their window applies afterwards.
    func fetchDictionaries(
        _ request: FetchRequest, compiler: SQLQueryCompiler, conditions: [String], connection: SQLiteConnection
    ) throws -> StoreResult {
        let (_, schema) = try ready()
        guard let mapping = schema.entities[request.entityName] else { return .dictionaries([]) }
        let window = request.returnsDistinctResults ? "" : windowClause(request, compiler: compiler)
        let query = try compiler.dictionaryQuery(request, mapping: mapping, conditions: conditions, window: window)
        countQuery()
        let statement = try self.query(query.sql, parameters: compiler.parameters, connection: connection)
        var rows: [[String: StoreValue]] = []
        while try statement.step() {
            rows.append(try query.row { column, positions in try decode(column, at: positions, from: statement, schema: schema) })
        }
        return .dictionaries(query.finish(rows, request: request))
    }

    private func decode(
        _ column: SQLDictionaryQuery.Column, at positions: [Int], from statement: SQLiteStatement, schema: SQLSchema
    ) throws -> StoreValue {
        switch column.decoder {
        case .constant(let constant): return constant
        case .typed(let type):
            guard let position = positions.first.map(Int32.init) else { return .null }
            return try SQLiteValueCoder.read(statement, at: position, as: type, describe: { "the dictionary column \(column.key)" }) ?? .null
        case .raw:
            guard let position = positions.first.map(Int32.init) else { return .null }
            switch statement.columnType(at: position) {
            case SQLITE_INTEGER: return .int(statement.int64(at: position))
            case SQLITE_FLOAT: return .double(statement.double(at: position))
            case SQLITE_TEXT: return .string(statement.text(at: position))
            case SQLITE_BLOB: return .data(statement.data(at: position))
            default: return .null
            }
        case .object(let entity, let entityColumn):
            guard let position = positions.first.map(Int32.init), !statement.isNull(at: position) else { return .null }
            let key = statement.int64(at: position)
            if entityColumn, positions.count > 1 {
                return .objectID(try objectID(entityNumber: Int(statement.int64(at: Int32(positions[1]))), primaryKey: key, schema: schema))
            }
            return .objectID(ObjectID(storeIdentifier: identifier, entityName: entity, reference: .int(key)))
        }
    }
}
