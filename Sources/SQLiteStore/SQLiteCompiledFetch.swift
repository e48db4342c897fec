import StoreCore

/// A fetch request compiled to SQL: the statement's text, the values bound to its `?1`, `?2`,
/// … and the reader of its rows. ``SQLiteStore`` keeps the recent ones by request, so a request
/// run again is bound and stepped without compiling (the connection keeps the prepared
/// statement by its text).
///
/// The key is the whole request, constants included: the SQL the compiler writes depends on
/// some constants' values (an `IN` of more than 256 values reads a JSON array, a comparison of
/// two constants is decided at compile time, a nil compares with `IS NULL`), so requests that
/// differ in a constant are compiled apart.
struct SQLiteCompiledFetch {
    /// The statement's text.
    let sql: String
    /// The values of its numbered parameters, in order.
    let parameters: [StoreValue]
    /// The reader of a fetch of objects; nil for IDs and counts.
    let reader: SQLiteRowReader?
    /// The fetched entity (prefetching starts from it).
    let mapping: SQLiteEntityMapping
    /// The store identifier the compiled form was made with (object IDs and readers use it).
    let storeIdentifier: String
}
