/// Store options the PostgreSQL store understands, besides `StoreOptionKey`'s.
///
/// ```swift
/// try coordinator.addPersistentStore(
///     type: "PostgreSQL", at: URL(string: "postgresql://app@db.example.com/inventory")!,
///     options: [PostgreSQLOptionKey.schema: .string("tenant_7")])
/// ```
public enum PostgreSQLOptionKey {
    /// The PostgreSQL schema the store's tables live in (a string: letters, digits and
    /// underscores); overrides the URL's `schema` parameter. Default `public`. Stores in
    /// different schemas of one database are independent stores.
    public static let schema = "PersistentStoresPostgreSQLSchemaOption"
    /// The number of connections that answer fetches beside each other and beside saves (an
    /// integer, 0–64; default 4); 0 runs every request on the store's one connection, under the
    /// coordinator's lock.
    public static let readConnections = "PersistentStoresPostgreSQLReadConnectionsOption"
    /// The server's host name, address or Unix-socket folder (libpq's `host`); overrides the
    /// URL's.
    public static let host = "PersistentStoresPostgreSQLHostOption"
    /// The server's port (an integer or a string; libpq's `port`).
    public static let port = "PersistentStoresPostgreSQLPortOption"
    /// The database (libpq's `dbname`).
    public static let database = "PersistentStoresPostgreSQLDatabaseOption"
    /// The user (libpq's `user`).
    public static let user = "PersistentStoresPostgreSQLUserOption"
    /// The password (libpq's `password`). It is passed to libpq only: errors, logs and the
    /// store's metadata never show it. A password file (``passfile``) keeps it out of the
    /// application's configuration altogether.
    public static let password = "PersistentStoresPostgreSQLPasswordOption"
    /// A password file in PostgreSQL's `.pgpass` format (libpq's `passfile`).
    public static let passfile = "PersistentStoresPostgreSQLPassfileOption"
    /// TLS use: `disable`, `prefer`, `require`, `verify-ca` or `verify-full` (libpq's `sslmode`).
    public static let sslmode = "PersistentStoresPostgreSQLSSLModeOption"

    /// The libpq connection parameter of each option above.
    static let connectionParameters: [(option: String, parameter: String)] = [
        (host, "host"), (port, "port"), (database, "dbname"), (user, "user"), (password, "password"), (passfile, "passfile"),
        (sslmode, "sslmode"),
    ]
}
