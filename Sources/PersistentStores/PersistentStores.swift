@_exported import AtomicBinaryStore
@_exported import InMemoryStore
@_exported import PipeCSVStore
@_exported import PostgreSQLStore
@_exported import SQLiteStore
@_exported import StoreConfiguration
@_exported import StoreCore
@_exported import XMLStore

/// The umbrella module: re-exports StoreCore and the built-in stores, and registers the
/// built-in store types.
public enum PersistentStores {
    /// The embedded store types (files and memory) that ``registerBuiltInStoreTypes(in:)``
    /// registers.
    public static let builtInStoreTypes: [any PersistentStore.Type] = [
        SQLiteStore.self, InMemoryStore.self, AtomicBinaryStore.self, XMLStore.self, PipeCSVStore.self,
    ]

    /// The store types on a server that ``registerBuiltInStoreTypes(in:)`` registers besides:
    /// "PostgreSQL" (see `PostgreSQLStore`).
    public static let serverStoreTypes: [any PersistentStore.Type] = [PostgreSQLStore.self]

    /// Registers every built-in store type under its name ("InMemory", "PostgreSQL", …) in
    /// `registry`. Calling it again is harmless (it re-registers the same types).
    public static func registerBuiltInStoreTypes(in registry: StoreRegistry = .shared) {
        for type in builtInStoreTypes + serverStoreTypes { registry.register(type) }
    }
}
