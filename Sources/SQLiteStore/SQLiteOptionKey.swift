import StoreCore

/// Store options the SQLite store understands, besides `StoreOptionKey`'s (Core Data's names
/// where Core Data has one).
///
/// ```swift
/// try coordinator.addPersistentStore(type: "SQLite", at: url, options: [
///     SQLiteOptionKey.pragmas: .dictionary(["journal_mode": "DELETE", "cache_size": "-8000"]),
///     SQLiteOptionKey.timeout: .double(5),
/// ])
/// ```
public enum SQLiteOptionKey {
    /// A dictionary of pragma name → value run on every connection after it opens
    /// (`NSSQLitePragmasOption`). Names must be identifiers and values plain words or numbers;
    /// anything else fails with 134070 rather than reaching SQL. `journal_mode` defaults to `WAL`.
    public static let pragmas = "NSSQLitePragmasOption"
    /// Seconds a statement waits for another connection's lock before failing with SQLITE_BUSY
    /// (`NSPersistentStoreTimeoutOption`; default 10).
    public static let timeout = "NSPersistentStoreTimeoutOption"
    /// The number of read connections (an integer, 0–64; default 4) that answer fetches beside
    /// each other and beside saves when the store file is in WAL mode. 0 runs every fetch on the
    /// writer connection, one at a time. Ignored for an in-memory store and other journal modes.
    public static let readConnections = "PersistentStoresSQLiteReadConnectionsOption"

    /// The options above, as ``SQLiteStore/supportedOptions`` lists them.
    public static let options: [StoreOption] = [
        StoreOption(pragmas, .dictionary, default: "journal_mode=WAL", "pragmas run on every connection; unknown pragma names are refused"),
        StoreOption(timeout, .nonNegativeNumber, default: "10", "seconds a statement waits for another connection's lock"),
        StoreOption(readConnections, .integer, default: "4", "read connections (0–64) answering fetches beside saves in WAL mode"),
    ]
}
