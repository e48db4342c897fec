import Foundation
import StoreCore
import StoreTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@testable import SQLiteStore

/// An open store keeps its POSIX lock on the database while this process opens read
/// connections, reads metadata and copies the store. On POSIX systems `close()` of any
/// descriptor of a file drops every lock the process holds on it, so one descriptor of our own
/// opened and closed beside the writer let another process delete the `-wal` under it
/// (docs/reliability.md). The lock is observed through an open-file-description lock probe,
/// which conflicts with the process's own POSIX locks; the probe's descriptor stays open until
/// the store is closed, so the probe itself drops nothing.
@Suite("SQLite POSIX locks")
struct SQLiteLockTests {
    @Test(.enabled(if: LockProbe.isAvailable, "open file description locks are Linux's"))
    func theWritersLockSurvivesReadersMetadataAndACopy() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let stack = try StoreStack<SQLiteStore>(model: Models.league(), url: url)
        let team = try stack.newIDs("Team")[0]
        try stack.save(inserted: [StoreNode(objectID: team, attributes: ["name": "Crew"], version: 0)])
        let probe = try LockProbe(url)
        #expect(probe.processHoldsSharedLock(), "the writer holds no SHARED lock after a save")

        // A fetch opens a read connection of the pool beside the writer.
        #expect(try stack.nodes("Team").count == 1)
        #expect(probe.processHoldsSharedLock(), "opening a read connection dropped the writer's lock")

        _ = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        #expect(probe.processHoldsSharedLock(), "reading the metadata dropped the writer's lock")

        let copy = directory.file("Copy.sqlite")
        let other = PersistentStoreCoordinator(model: try Models.league(), registry: StoreStack<SQLiteStore>.registry)
        try other.replacePersistentStore(at: copy, withPersistentStoreFrom: url, type: SQLiteStore.storeType)
        #expect(probe.processHoldsSharedLock(), "copying the open store dropped the writer's lock")

        // The copy holds the save that is still in the source's write-ahead log, in one file.
        let copied = try StoreStack<SQLiteStore>(model: Models.league(), url: copy)
        #expect(try copied.nodes("Team").map { $0.attributes["name"] } == ["Crew"])
        try stack.coordinator.remove(stack.store)
        #expect(!probe.processHoldsSharedLock())
    }
}

/// Asks, through an open file description lock on a descriptor of its own, whether this process
/// holds SQLite's SHARED lock on a database (a read lock over SQLite's shared byte range).
final class LockProbe {
    #if os(Linux)
    static let isAvailable = true
    /// `F_OFD_GETLK` (Linux 3.15), not imported into Swift.
    private static let getOFDLock: Int32 = 36
    #else
    static let isAvailable = false
    private static let getOFDLock: Int32 = -1
    #endif

    private let descriptor: Int32

    init(_ url: URL) throws {
        descriptor = open(url.path, O_RDWR | O_CLOEXEC)
        if descriptor < 0 { throw StoreError(.persistentStoreOpen, "Cannot open \(url.path) to probe its locks") }
    }

    deinit { close(descriptor) }

    /// Whether a write lock over SQLite's shared range would conflict with a read lock.
    func processHoldsSharedLock() -> Bool {
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0002  // SQLite's PENDING_BYTE + 2: the first shared byte
        lock.l_len = 510
        lock.l_pid = 0
        guard fcntl(descriptor, Self.getOFDLock, &lock) == 0 else { return false }
        return lock.l_type == Int16(F_RDLCK)
    }
}
