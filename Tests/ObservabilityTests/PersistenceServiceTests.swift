import Foundation
import PersistenceService
import ServiceLifecycle
import ServiceLifecycleTestKit
import StoreCore
import Synchronization
import Testing

/// The container as a `Service`: it loads its stores on run, and on graceful shutdown refuses
/// new saves, waits for the one in progress and closes every store.
@Suite("Persistence service", .serialized)
struct PersistenceServiceTests {
    /// A fresh temporary folder for an asynchronous test, removed afterwards.
    static func withTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("PersistentStoresTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    /// Inserts a team in a new context and saves it.
    static func saveTeam(_ name: String, in coordinator: PersistentStoreCoordinator) throws {
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try team.setValue(.string(name), forKey: "name")
        try context.save()
    }

    @Test("Graceful shutdown refuses new saves, waits for the save in progress, then closes the stores")
    func gracefulShutdownDrainsSaves() async throws {
        try await Self.withTemporaryDirectory { directory in
            let registry = StoreRegistry()
            registry.register(BlockingStore.self)
            let container = PersistentContainer(name: "Blocking", model: try ObservabilityFixture.model(), registry: registry)
            container.persistentStoreDescriptions = [
                StoreDescription(type: "Blocking", url: directory.appendingPathComponent("teams.blocking"))
            ]
            let coordinator = container.persistentStoreCoordinator
            let service = try PersistenceService(container: container, shutdownTimeout: .seconds(60)) {
                // Saves are refused from here on; then the save in progress may finish. (The
                // save is the coordinator's own: a context would first ask the coordinator for
                // permanent IDs, which waits for the save in progress, which waits for this.)
                do {
                    _ = try coordinator.save(SaveChangesRequest())
                    BlockingStore.log.withLock { $0.append("accepted a late save") }
                } catch let error as StoreError {
                    BlockingStore.log.withLock { $0.append(error.message.contains("shutting down") ? "refused" : error.message) }
                } catch {
                    BlockingStore.log.withLock { $0.append("\(error)") }
                }
                BlockingStore.release.signal()
            }
            var events = BlockingStore.events.stream.makeAsyncIterator()
            try await testGracefulShutdown { trigger in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await service.run() }
                    #expect(await events.next() == "loaded")
                    // The save runs on a thread of its own: it blocks inside the store.
                    let (saved, savedContinuation) = AsyncStream.makeStream(of: String.self)
                    Thread {
                        do {
                            try Self.saveTeam("Early", in: coordinator)
                            savedContinuation.yield("saved")
                        } catch {
                            savedContinuation.yield("failed: \(error)")
                        }
                        savedContinuation.finish()
                    }.start()
                    #expect(await events.next() == "saving")
                    trigger.triggerGracefulShutdown()
                    try await group.next()
                    BlockingStore.log.withLock { $0.append("stopped") }
                    var savedResult = saved.makeAsyncIterator()
                    #expect(await savedResult.next() == "saved", "the save in progress finished")
                }
            }
            #expect(BlockingStore.log.withLock { $0 } == ["refused", "written", "stopped"])
            #expect(coordinator.persistentStores.isEmpty, "every store was closed")
            #expect(!coordinator.isAcceptingSaves)
        }
    }

    @Test("An SQLite store loads on run and is closed with its WAL checkpointed on shutdown")
    func sqliteClosesCleanly() async throws {
        try await Self.withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            let container = PersistentContainer(
                name: "League", model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry)
            container.persistentStoreDescriptions = [StoreDescription(type: "SQLite", url: url)]
            let coordinator = container.persistentStoreCoordinator
            let service = try PersistenceService(container: container)
            try await testGracefulShutdown { trigger in
                trigger.triggerGracefulShutdown()
                try await service.run()
            }
            #expect(coordinator.persistentStores.isEmpty)
            #expect(FileManager.default.fileExists(atPath: url.path), "the store was created by run()")
            let wal = URL(fileURLWithPath: url.path + "-wal")
            let walSize = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
            #expect(walSize == 0, "the WAL was checkpointed into the database when the store closed")
            #expect(throws: StoreError.self) { try Self.saveTeam("After", in: coordinator) }
        }
    }
}
