import Foundation
import SQLiteStore
import StoreTestSupport
import Testing

@testable import StoreCore

/// Files a migration writes beside a store (its new store, `.<name>.migrating-<pid>-<UUID>`, and a
/// folder store moved aside, `.<name>.replaced-<pid>-<UUID>`) are dealt with when the store is
/// next added, once the migration that wrote them is gone: nothing of a running one is touched,
/// and an old store moved aside with nothing in its place is put back.
@Suite struct AbandonedMigrationFileTests {
    init() { StoreRegistry.shared.register(SQLiteStore.self) }

    /// The ID of a process that has ended.
    func endedProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "exit 0"]
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    func plant(_ name: String, in directory: URL, age: TimeInterval, folder: Bool = false) throws {
        let url = directory.appendingPathComponent(name)
        if folder {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            try Data("old store".utf8).write(to: url.appendingPathComponent("contents"))
        } else {
            try Data("partial".utf8).write(to: url)
        }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
    }

    @Test func abandonedFilesGoAndRunningOnesStay() throws {
        try withTemporaryDirectory { directory in
            let store = directory.appendingPathComponent("App.sqlite")
            let ended = try endedProcessID()
            let running = getpid()
            let abandoned = ".App.sqlite.migrating-\(ended)-\(UUID().uuidString)"
            let fresh = ".App.sqlite.migrating-\(ended)-\(UUID().uuidString)"           // its process is gone, but written just now
            let live = ".App.sqlite.migrating-\(running)-\(UUID().uuidString)"
            let oldUnnamed = ".App.sqlite.migrating-\(UUID().uuidString)"               // earlier releases' names
            let newUnnamed = ".App.sqlite.migrating-\(UUID().uuidString)"
            let other = ".Other.sqlite.migrating-\(ended)-\(UUID().uuidString)"
            try plant(abandoned, in: directory, age: 120)
            try plant(abandoned + "-wal", in: directory, age: 120)
            try plant(abandoned + "-shm", in: directory, age: 120)
            try plant(fresh, in: directory, age: 0)
            try plant(live, in: directory, age: 7_200)
            try plant(oldUnnamed, in: directory, age: 7_200)
            try plant(newUnnamed, in: directory, age: 600)
            try plant(other, in: directory, age: 7_200)

            let coordinator = PersistentStoreCoordinator(model: try ObjectModel { Entity("Item") { Attribute("name", .string) } })
            try coordinator.addPersistentStore(type: "SQLite", at: store)

            let left = Set(try FileManager.default.contentsOfDirectory(atPath: directory.path))
            #expect(!left.contains(abandoned) && !left.contains(abandoned + "-wal") && !left.contains(abandoned + "-shm"))
            #expect(!left.contains(oldUnnamed))
            #expect(left.isSuperset(of: [fresh, live, newUnnamed, other, "App.sqlite"]), "\(left.sorted())")
        }
    }

    @Test func aStoreMovedAsideWithNothingInItsPlaceIsPutBack() throws {
        try withTemporaryDirectory { directory in
            let store = directory.appendingPathComponent("Shelf")
            let aside = ".Shelf.replaced-\(try endedProcessID())-\(UUID().uuidString)"
            try plant(aside, in: directory, age: 0, folder: true)
            MigrationManager.settleAbandonedFiles(besides: store)
            #expect(try String(contentsOf: store.appendingPathComponent("contents"), encoding: .utf8) == "old store")
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(aside).path))

            // With the new store in place, an old one moved aside is removed once abandoned.
            let done = ".Shelf.replaced-\(try endedProcessID())-\(UUID().uuidString)"
            try plant(done, in: directory, age: 120, folder: true)
            MigrationManager.settleAbandonedFiles(besides: store)
            #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(done).path))
            #expect(FileManager.default.fileExists(atPath: store.appendingPathComponent("contents").path))
        }
    }

    @Test func theProcessIDOfABesideName() {
        let uuid = UUID().uuidString
        #expect(MigrationManager.processID(inBesideName: "123-\(uuid)"[...]) == 123)
        #expect(MigrationManager.processID(inBesideName: "123-\(uuid)-wal"[...]) == 123)
        #expect(MigrationManager.processID(inBesideName: "12345678-ABCD-1234-ABCD-1234567890AB"[...]) == nil)
        #expect(MigrationManager.processID(inBesideName: "\(uuid)"[...]) == nil)
    }
}
