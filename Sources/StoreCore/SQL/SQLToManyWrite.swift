/// The statements that bring the stored destinations of one to-many in line with a saved
/// object's destinations (and their order, for ordered relationships), for both SQL stores:
/// each store runs them its own way (SQLite's cached statements, PostgreSQL's prepared ones).
/// Every parameter is a key or an ordering number, so each statement is its SQL and the
/// integers bound to its numbered parameters.
///
/// A to-many stored through its inverse's foreign key is written by the destinations' own
/// to-one; only its order column is written here. A to-many without an inverse is the
/// destinations' foreign-key column, cleared first for an object that was saved before. A
/// many-to-many is its join rows: the stale ones deleted, the missing ones inserted.
package struct SQLToManyWrite {
    /// The relationship's storage.
    package let storage: SQLRelationshipStorage
    /// The engine the SQL is written for.
    package let dialect: SQLDialect

    /// The writer for one relationship's storage.
    package init(storage: SQLRelationshipStorage, dialect: SQLDialect) {
        self.storage = storage
        self.dialect = dialect
    }

    /// The `Z_FOK_` value of a position: spaced out as Core Data's are, so reading sorts by it.
    package static func orderingKey(_ position: Int) -> Int64 { Int64(position + 1) * 1024 }

    /// Writes the destinations (`destinations`, their `Z_PK`s in order) of the object whose
    /// `Z_PK` is `owner`: `run` executes a statement with its parameters, `read` runs a query
    /// and returns the integers of its first column. With `isNew`, nothing was stored for the
    /// object before (nothing to clear or compare with).
    package func write(
        owner: Int64, destinations: [Int64], isNew: Bool, run: (_ sql: String, _ parameters: [Int64]) throws -> Void,
        read: (_ sql: String, _ parameters: [Int64]) throws -> [Int64]
    ) throws {
        switch storage {
        case .toOne:
            return
        case .toManyThroughInverse(let table, _, let orderColumn):
            guard let orderColumn else { return }
            let sql = "UPDATE \(SQLSchema.sql(table)) SET \(SQLSchema.sql(orderColumn)) = \(p(1)) WHERE Z_PK = \(p(2))"
            for (position, destination) in destinations.enumerated() {
                try run(sql, [Self.orderingKey(position), destination])
            }
        case .toManyWithoutInverse(let table, let column, let orderColumn):
            let tableSQL = SQLSchema.sql(table)
            let columnSQL = SQLSchema.sql(column)
            if !isNew {
                let clearOrder = orderColumn.map { ", \(SQLSchema.sql($0)) = NULL" } ?? ""
                try run("UPDATE \(tableSQL) SET \(columnSQL) = NULL\(clearOrder) WHERE \(columnSQL) = \(p(1))", [owner])
            }
            if let orderColumn {
                let sql = "UPDATE \(tableSQL) SET \(columnSQL) = \(p(1)), \(SQLSchema.sql(orderColumn)) = \(p(2)) WHERE Z_PK = \(p(3))"
                for (position, destination) in destinations.enumerated() {
                    try run(sql, [owner, Self.orderingKey(position), destination])
                }
            } else {
                let sql = "UPDATE \(tableSQL) SET \(columnSQL) = \(p(1)) WHERE Z_PK = \(p(2))"
                for destination in destinations { try run(sql, [owner, destination]) }
            }
        case .manyToMany(let table, let sourceColumn, let destinationColumn, let orderColumn):
            let tableSQL = SQLSchema.sql(table)
            let source = SQLSchema.sql(sourceColumn)
            let target = SQLSchema.sql(destinationColumn)
            let existing: Set<Int64> = isNew ? [] : Set(try read("SELECT \(target) FROM \(tableSQL) WHERE \(source) = \(p(1))", [owner]))
            let remove = "DELETE FROM \(tableSQL) WHERE \(source) = \(p(1)) AND \(target) = \(p(2))"
            for old in existing.subtracting(destinations).sorted() { try run(remove, [owner, old]) }
            let add =
                dialect.kind == .sqlite
                ? "INSERT OR IGNORE INTO \(tableSQL) (\(source), \(target)) VALUES (\(p(1)), \(p(2)))"
                : "INSERT INTO \(tableSQL) (\(source), \(target)) VALUES (\(p(1)), \(p(2))) ON CONFLICT DO NOTHING"
            for new in destinations where !existing.contains(new) { try run(add, [owner, new]) }
            if let orderColumn {
                let order = "UPDATE \(tableSQL) SET \(SQLSchema.sql(orderColumn)) = \(p(1)) WHERE \(source) = \(p(2)) AND \(target) = \(p(3))"
                for (position, destination) in destinations.enumerated() {
                    try run(order, [Self.orderingKey(position), owner, destination])
                }
            }
        }
    }

    /// The `index`th integer parameter.
    private func p(_ index: Int) -> String { dialect.placeholder(index, for: .int(0)) }
}
