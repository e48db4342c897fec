import Foundation

/// A store type whose stores are copied by their engine, never by copying their files:
/// ``PersistentStoreCoordinator/replacePersistentStore(at:withPersistentStoreFrom:type:options:)``
/// asks it for the copy.
///
/// SQLite is one: its database may be open in this process (a backup taken from the live
/// store), and on POSIX systems closing any descriptor of a file drops all of the process's
/// locks on it, so copying the files would let another process delete the `-wal` under the open
/// connection; a copy of the files is also not a consistent snapshot while another connection
/// writes. SQLite's online backup copies one committed state through the engine.
public protocol EngineCopiedStore: PersistentStore {
    /// Writes a copy of the store at `source` as a new store at `destination` (a path where
    /// nothing exists yet): one committed state of the source, in as few files as the engine
    /// needs. The source is only read.
    static func copyStore(at source: URL, to destination: URL, options: StoreOptions) throws
}
