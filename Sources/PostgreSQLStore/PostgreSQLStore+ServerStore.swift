import Foundation
import StoreCore

/// Where PostgreSQL stores are: a schema each. Migration writes the migrated store into a new
/// schema beside the store's and renames it over the old one in one transaction
/// (PostgreSQL's DDL is transactional), so other processes see the old store or the new one.
extension PostgreSQLStore: ServerStore {
    /// Whether the URL's schema holds a store (a `Z_METADATA` table).
    public static func storeExists(at url: URL, options: StoreOptions) throws -> Bool {
        let endpoint = try PostgreSQLEndpoint(url: url, options: options)
        return try holdsStore(endpoint.schema, on: PostgreSQLConnection(endpoint: endpoint))
    }

    /// The same server and database, in a new schema named after the store's.
    public static func temporaryURL(besides url: URL) throws -> URL {
        let endpoint = try PostgreSQLEndpoint(url: url)
        let token = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(10).lowercased()
        return try PostgreSQLEndpoint.url(url, schema: "\(endpoint.schema.prefix(48))_m\(token)")
    }

    /// Drops the destination's schema (when it holds a store) and renames the source's to it, in
    /// one transaction.
    ///
    /// - Throws: 134010 when the destination's schema holds tables but no store (it is left
    ///   alone); 134080 when the source holds no store.
    public static func moveStore(at source: URL, over destination: URL, options: StoreOptions) throws {
        let from = try PostgreSQLEndpoint(url: source, options: options)
        let to = try PostgreSQLEndpoint(url: destination, options: options)
        let connection = try PostgreSQLConnection(endpoint: to)
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock(\(PostgreSQLSchema.creationLockKey))", [], "waiting for other processes creating stores")
            guard try holdsStore(from.schema, on: connection) else {
                throw StoreError(.persistentStoreOpen, "There is no PostgreSQL store at \(from.redactedDescription) to move")
            }
            try dropStoreSchema(to, on: connection)
            try connection.execute(
                "ALTER SCHEMA \(PostgreSQLConnection.quote(from.schema)) RENAME TO \(PostgreSQLConnection.quote(to.schema))", [],
                "moving the store at \(from.redactedDescription) to \(to.redactedDescription)")
        }
    }

    /// Drops the URL's schema with everything in it, when it holds a store; nothing when the
    /// schema does not exist.
    ///
    /// - Throws: 134010 when the schema holds tables but no store: a wrong URL never drops an
    ///   unrelated schema.
    public static func destroyStore(at url: URL, options: StoreOptions) throws {
        let endpoint = try PostgreSQLEndpoint(url: url, options: options)
        let connection = try PostgreSQLConnection(endpoint: endpoint)
        try connection.transaction { try dropStoreSchema(endpoint, on: connection) }
    }

    /// Whether `schema` has the store's `Z_METADATA` table.
    private static func holdsStore(_ schema: String, on connection: PostgreSQLConnection) throws -> Bool {
        try connection.execute(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'z_metadata'", [.text(schema)],
            "looking for a store").rowCount > 0
    }

    /// `DROP SCHEMA … CASCADE` of a schema that holds a store or is empty.
    private static func dropStoreSchema(_ endpoint: PostgreSQLEndpoint, on connection: PostgreSQLConnection) throws {
        guard try holdsStore(endpoint.schema, on: connection) else {
            let tables = try connection.execute(
                "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = $1", [.text(endpoint.schema)], "looking for tables")
            if (tables.int64(0, 0) ?? 0) > 0 {
                throw StoreError(
                    .persistentStoreTypeMismatch,
                    "The schema \(endpoint.schema) at \(endpoint.redactedDescription) holds tables but no PostgreSQL store; it was left alone")
            }
            try connection.execute(
                "DROP SCHEMA IF EXISTS \(PostgreSQLConnection.quote(endpoint.schema))", [], "dropping the empty schema \(endpoint.schema)")
            return
        }
        try connection.execute(
            "DROP SCHEMA \(PostgreSQLConnection.quote(endpoint.schema)) CASCADE", [], "dropping the store at \(endpoint.redactedDescription)")
    }
}
