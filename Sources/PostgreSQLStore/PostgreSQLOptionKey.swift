import StoreCore

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
    /// How long, in seconds, the store keeps trying to connect again after losing its
    /// connection (a number, 0 or more, at most 3600; default 10): attempts follow each other
    /// with a backoff doubling from 50 ms to 1 s. Past it the request fails with an error
    /// naming the server.
    public static let reconnectTimeout = "PersistentStoresPostgreSQLReconnectTimeoutOption"
    /// Whether the store listens for other processes' saves (`LISTEN`/`NOTIFY`) and posts them
    /// as remote changes to the coordinator (a Boolean; default true). Only a store that
    /// records persistent history (`StoreOptionKey.persistentHistoryTracking`) sends and
    /// receives notifications: the history is what a notification points to.
    public static let remoteChangeNotifications = "PersistentStoresPostgreSQLRemoteChangeNotificationsOption"
    /// Hot standbys that answer reads (read replicas): a `postgresql://` connection URI, several
    /// separated by spaces, or an array of them; each may be a libpq multi-host URI (with
    /// `target_session_attrs=prefer-standby`, say). Fetches, counts and faults go to the first
    /// replica that answers; saves, batch requests and key reservations go to the store's URL.
    /// After a save, a read waits until the replica has replayed it (at most
    /// ``replicaWaitTimeout``), else reads the primary. The store's schema, user, password and
    /// TLS options apply to the replicas too; host and port are each URI's own.
    public static let replicas = "PersistentStoresPostgreSQLReplicasOption"
    /// How long, in seconds, a read waits for a replica to replay this store's latest save
    /// before it reads the primary instead (a number, 0 or more, at most 60; default 1).
    public static let replicaWaitTimeout = "PersistentStoresPostgreSQLReplicaWaitTimeoutOption"
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

    /// The options above, as `PostgreSQLStore.supportedOptions` lists them.
    public static let options: [StoreOption] = [
        StoreOption(schema, .string, default: "public (or the URL's schema parameter)", "the schema the store's tables live in"),
        StoreOption(readConnections, .integer, default: "4", "connections (0–64) answering fetches beside saves"),
        StoreOption(reconnectTimeout, .nonNegativeNumber, default: "10", "seconds to keep reconnecting after the connection is lost"),
        StoreOption(replicas, .string, default: "none", "hot standbys answering reads: URIs separated by spaces (or an array)"),
        StoreOption(replicaWaitTimeout, .nonNegativeNumber, default: "1", "seconds a read waits for a replica to replay this store's last save"),
        StoreOption(remoteChangeNotifications, .bool, default: "true", "post other processes' saves as remote changes (with history tracking)"),
        StoreOption(host, .string, default: "the URL's", "the server's host, address or Unix-socket folder"),
        StoreOption(port, .integer, default: "the URL's, else 5432", "the server's port"),
        StoreOption(database, .string, default: "the URL's", "the database"),
        StoreOption(user, .string, default: "the URL's", "the user"),
        StoreOption(password, .string, default: "none", "the password (never shown in errors, logs or metadata)"),
        StoreOption(passfile, .string, default: "none", "a password file in .pgpass format"),
        StoreOption(sslmode, .string, default: "libpq's (prefer)", "TLS use: disable, prefer, require, verify-ca or verify-full"),
    ]

    /// The libpq connection parameter of each option above.
    static let connectionParameters: [(option: String, parameter: String)] = [
        (host, "host"), (port, "port"), (database, "dbname"), (user, "user"), (password, "password"), (passfile, "passfile"),
        (sslmode, "sslmode"),
    ]
}
