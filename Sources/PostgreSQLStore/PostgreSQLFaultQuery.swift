import StoreCore

/// What reading one object of an entity by primary key needs (a fault fired on its own): the
/// row reader and the SELECT's text, made once per entity and store identifier so that a fault
/// builds no SQL (the connection runs the text as a statement prepared on the server).
struct PostgreSQLFaultQuery {
    /// Reads the row into a node.
    let reader: PostgreSQLRowReader
    /// `SELECT <the reader's columns> FROM <table> WHERE Z_PK = $1 AND Z_ENT = $2`.
    let sql: String
    /// The entity's `Z_ENT`, as the second parameter's text.
    let entityNumber: String

    init(mapping: SQLEntityMapping, reader: PostgreSQLRowReader) {
        self.reader = reader
        self.sql = "SELECT \(reader.selectList()) FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = $1 AND Z_ENT = $2"
        self.entityNumber = String(mapping.number)
    }
}
