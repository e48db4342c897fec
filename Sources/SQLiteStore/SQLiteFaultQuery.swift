import StoreCore

/// What reading one object of an entity by primary key needs (a fault fired on its own): the
/// row reader, the SELECT's text and the number the connection keeps its prepared statement
/// under. Made once per entity and store identifier, so a fault binds its key and steps a
/// statement that is already prepared, with no SQL text built or hashed.
final class SQLiteFaultQuery {
    /// The entity's `Z_ENT` (a row of another entity of the same table is not the object).
    let entityNumber: Int
    /// Reads the row into a node.
    let reader: SQLiteRowReader
    /// `SELECT <the reader's columns> FROM <table> WHERE Z_PK = ?`.
    let sql: String
    /// The statement's number on the store's connection (``SQLiteConnection/cached(number:sql:)``).
    let statementNumber: Int

    init(mapping: SQLEntityMapping, reader: SQLiteRowReader, statementNumber: Int) {
        self.entityNumber = mapping.number
        self.reader = reader
        self.sql = "SELECT \(reader.selectList()) FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = ?"
        self.statementNumber = statementNumber
    }
}
