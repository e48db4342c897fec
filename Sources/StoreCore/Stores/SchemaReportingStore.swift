/// A store that can say which entities and properties its file holds.
///
/// Stores written by Core Data carry version hashes this framework does not reproduce, so
/// adding one compares structure instead (``ModelCompatibility``). Entity names come from the
/// metadata; a store type that adopts this protocol (SQLite: tables and columns) also lets the
/// check compare each entity's persistent properties.
public protocol SchemaReportingStore: PersistentStore {
    /// Entity name → the names of the persistent (non-transient) attributes and relationships,
    /// inherited ones included, that the store's file holds for it; nil when the store cannot
    /// tell (a new store, for instance). Called after the store is loaded, before it is added.
    func storedSchema() throws -> [String: Set<String>]?
}
