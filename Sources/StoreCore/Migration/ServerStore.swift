import Foundation

/// A store type whose stores are not files but places on a server (a PostgreSQL schema, say):
/// it says whether a store is at a URL, where a temporary store beside it goes, how to move one
/// over another and how to delete one, so migration, `migratePersistentStore`, and
/// `destroyPersistentStore` work on it as they do on files.
///
/// Migration writes the migrated store at ``temporaryURL(besides:)``, then
/// ``moveStore(at:over:options:)`` puts it in place of the original in one step; if anything
/// fails first, the temporary store is destroyed and the original is untouched.
public protocol ServerStore: PersistentStore {
    /// Whether a store is at `url`.
    static func storeExists(at url: URL, options: StoreOptions) throws -> Bool
    /// A URL for a new store on the same server as `url`, where nothing is yet.
    static func temporaryURL(besides url: URL) throws -> URL
    /// Replaces the store at `destination` (if any) with the store at `source`, in one step: no
    /// one sees neither or half of either.
    static func moveStore(at source: URL, over destination: URL, options: StoreOptions) throws
    /// Deletes the store at `url`; nothing there is not an error.
    static func destroyStore(at url: URL, options: StoreOptions) throws
}

extension PersistentStoreCoordinator {
    /// Whether a store of `storeClass` is at `url`: a non-empty file or a folder, or what a
    /// ``ServerStore`` says.
    static func storeExists(_ storeClass: any PersistentStore.Type, at url: URL, options: StoreOptions) throws -> Bool {
        if let server = storeClass as? any ServerStore.Type { return try server.storeExists(at: url, options: options) }
        return MigrationManager.storeExists(at: url)
    }
}

extension PersistentStoreCoordinator {
    /// Whether a store of a registered type is at `url`: a non-empty file or a folder, or,
    /// for a ``ServerStore``, what the server says. Throws 134000 for an unknown type.
    public static func persistentStoreExists(
        type: String, at url: URL, options: StoreOptions = [:], registry: StoreRegistry = .shared
    ) throws -> Bool {
        try storeExists(registry.requireStoreType(named: type), at: url, options: options)
    }
}
