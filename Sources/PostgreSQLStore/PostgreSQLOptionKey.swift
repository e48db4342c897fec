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
    /// The number of connections that answer fetches beside each other (an integer, 0–64;
    /// default 4); 0 runs every request on the one writing connection.
    public static let readConnections = "PersistentStoresPostgreSQLReadConnectionsOption"
}
