import Foundation
import StoreCore

extension SQLiteStore: MultiFileStore {
    /// The database file, then its `-wal`, `-shm` and `-journal` companions.
    public static func fileURLs(forStoreAt url: URL) -> [URL] {
        [url] + ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
    }
}

extension SQLiteStore: EngineCopiedStore {
    /// Copies the store at `source` into a new database at `destination` with SQLite's online
    /// backup: one committed state of the source (its write-ahead log included), read through
    /// SQLite only, written as one file with no `-wal`.
    public static func copyStore(at source: URL, to destination: URL, options: StoreOptions) throws {
        let from = try open(url: source, options: options, readOnly: true, mustExist: true)
        let to = try SQLiteConnection(url: destination, readOnly: false, create: true)
        try from.backup(into: to)
    }
}
