import Foundation

/// What differs between the SQL engines ``SQLQueryCompiler`` writes for: SQLite, whose values
/// carry their own types and whose conditions are integers, and PostgreSQL, whose columns and
/// parameters are typed and whose conditions are booleans.
///
/// Both keep rows in Core Data's layout (``SQLSchema``) with the same value representations
/// where it matters to the compiler: dates are seconds since 2001-01-01 (`double precision` in
/// PostgreSQL: a `timestamptz` keeps only microseconds, and a date must read back bit for bit),
/// numbers are numbers, strings text. What remains is written here: literals for true and
/// false, null-safe equality, parameters (PostgreSQL's carry a cast, so a number compares as a
/// number whatever the column), booleans (PostgreSQL's are not numbers), casts, and how a long
/// list of values is bound.
package struct SQLDialect: Sendable, Hashable {
    /// The engines.
    package enum Kind: Sendable, Hashable {
        /// SQLite.
        case sqlite
        /// PostgreSQL.
        case postgreSQL
    }

    /// The engine.
    package let kind: Kind

    /// SQLite's.
    package static let sqlite = SQLDialect(kind: .sqlite)
    /// PostgreSQL's.
    package static let postgreSQL = SQLDialect(kind: .postgreSQL)

    /// The store type's name, for errors ("The SQLite store cannot compile …").
    package var storeName: String { kind == .sqlite ? "SQLite" : "PostgreSQL" }

    /// A condition that always holds.
    package var alwaysTrue: String { kind == .sqlite ? "1" : "TRUE" }
    /// A condition that never holds.
    package var alwaysFalse: String { kind == .sqlite ? "0" : "FALSE" }

    /// `condition`, with SQL's unknown (NULL) as false.
    package func orFalse(_ condition: String) -> String {
        "COALESCE(\(condition), \(alwaysFalse))"
    }

    /// A floating-point expression whose NaN is NULL, as predicates take it (the evaluator's
    /// arithmetic gives nil for NaN). SQLite already makes a NaN result NULL; PostgreSQL keeps
    /// NaN as a value (`0 * 'Infinity'`), so its result is compared with it.
    package func notANumberAsNull(_ expression: String) -> String {
        kind == .sqlite ? expression : "NULLIF(\(expression), 'NaN'::double precision)"
    }

    /// Null-safe equality: nil equals nil.
    package func isNotDistinct(_ lhs: String, _ rhs: String) -> String {
        kind == .sqlite ? "\(lhs) IS \(rhs)" : "\(lhs) IS NOT DISTINCT FROM \(rhs)"
    }

    /// Null-safe inequality.
    package func isDistinct(_ lhs: String, _ rhs: String) -> String {
        kind == .sqlite ? "\(lhs) IS NOT \(rhs)" : "\(lhs) IS DISTINCT FROM \(rhs)"
    }

    /// The `index`th parameter (1-based) holding `value`: `?n` in SQLite; `$n` with a cast to
    /// the value's type in PostgreSQL.
    package func placeholder(_ index: Int, for value: StoreValue) -> String {
        guard kind == .postgreSQL else { return "?\(index)" }
        return "$\(index)" + (Self.postgreSQLCast(of: value).map { "::" + $0 } ?? "")
    }

    /// The PostgreSQL type a bound value is cast to; nil for NULL.
    package static func postgreSQLCast(of value: StoreValue) -> String? {
        switch value {
        case .null: return nil
        case .int: return "bigint"
        case .double, .date: return "double precision"
        case .decimal: return "numeric"
        case .bool: return "boolean"
        case .string, .uri, .objectID: return "text"
        case .data: return "bytea"
        case .uuid: return "uuid"
        }
    }

    /// The direction of an `ORDER BY` term, nil first ascending and last descending, as in
    /// memory (SQLite's own order; PostgreSQL puts nulls last ascending).
    package func direction(ascending: Bool) -> String {
        switch kind {
        case .sqlite: return ascending ? "ASC" : "DESC"
        case .postgreSQL: return ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST"
        }
    }

    /// The floating-point type's name in a cast.
    package var doubleType: String { kind == .sqlite ? "REAL" : "double precision" }

    /// A column value of attribute `type` where a number is needed (comparisons with numbers,
    /// arithmetic, aggregates): PostgreSQL's booleans become 0 or 1.
    package func number(_ sql: String, type: AttributeType?) -> String {
        kind == .postgreSQL && type == .boolean ? "CAST(\(sql) AS integer)" : sql
    }

    /// Whether a value of unknown type is text (SQLite columns can hold any type; PostgreSQL's
    /// text columns hold text).
    package func isText(_ sql: String) -> String {
        kind == .sqlite ? "typeof(\(sql)) = 'text'" : "\(sql) IS NOT NULL"
    }

    /// A number as text, for concatenation (`'Entity/p' || key`).
    package func text(_ sql: String) -> String {
        kind == .sqlite ? sql : "CAST(\(sql) AS text)"
    }

    /// A computed number stored into a column of an integer or boolean `type`.
    package func integer(_ sql: String, for type: AttributeType) -> String {
        switch kind {
        case .sqlite: return "CAST(\(sql) AS INTEGER)"
        case .postgreSQL:
            if type == .boolean { return "(CAST(\(sql) AS bigint) <> 0)" }
            return "CAST(\(sql) AS \(type == .integer16 ? "smallint" : type == .integer32 ? "integer" : "bigint"))"
        }
    }
}
