import Foundation

/// A store type whose store is more than one file (SQLite: the database, its `-wal` and `-shm`
/// files and a rollback `-journal`). ``PersistentStoreCoordinator/destroyPersistentStore(at:type:options:)``
/// and ``PersistentStoreCoordinator/replacePersistentStore(at:withPersistentStoreFrom:type:options:)``
/// remove and move all of them; a store type that does not conform is one file at its URL.
public protocol MultiFileStore: PersistentStore {
    /// Every file that belongs to the store at `url`, the main file first (whether or not each
    /// exists).
    static func fileURLs(forStoreAt url: URL) -> [URL]
}
