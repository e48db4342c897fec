import Foundation
import StoreCore

extension SQLiteStore: MultiFileStore {
    /// The database file, then its `-wal`, `-shm` and `-journal` companions.
    public static func fileURLs(forStoreAt url: URL) -> [URL] {
        [url] + ["-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
    }
}
