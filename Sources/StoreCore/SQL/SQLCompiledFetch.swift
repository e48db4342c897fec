/// A fetch request compiled to SQL by a SQL store: the statement's text, the values bound to its
/// numbered parameters and the reader of its rows (the store's own `Reader` type). The stores
/// keep the recent ones by request (``CompiledFetchKey``), so a request run again is bound and
/// run without compiling (the SQLite store's connection keeps the prepared statement by its
/// text, the PostgreSQL store's connection a server-side prepared statement).
///
/// The key is the whole request, constants included: the SQL the compiler writes depends on
/// some constants' values (an `IN` of more than 256 values reads a JSON array, a comparison of
/// two constants is decided at compile time, a nil compares with `IS NULL`), so requests that
/// differ in a constant are compiled apart.
package struct SQLCompiledFetch<Reader> {
    /// The statement's text.
    package let sql: String
    /// The values of its numbered parameters, in order.
    package let parameters: [StoreValue]
    /// The reader of a fetch of objects; nil for IDs and counts.
    package let reader: Reader?
    /// The fetched entity (prefetching starts from it).
    package let mapping: SQLEntityMapping
    /// The store identifier the compiled form was made with (object IDs and readers use it).
    package let storeIdentifier: String
    /// A number the store gave the statement, under which its connection finds the prepared
    /// statement without hashing the text; nil when the store finds it by its text.
    package let statementNumber: Int?

    /// A compiled fetch.
    package init(
        sql: String, parameters: [StoreValue], reader: Reader?, mapping: SQLEntityMapping, storeIdentifier: String,
        statementNumber: Int? = nil
    ) {
        self.sql = sql
        self.parameters = parameters
        self.reader = reader
        self.mapping = mapping
        self.storeIdentifier = storeIdentifier
        self.statementNumber = statementNumber
    }
}
