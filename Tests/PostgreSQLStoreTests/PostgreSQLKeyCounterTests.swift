import Dispatch
import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// The key counters (`Z_PRIMARYKEY`) under several instances: keys are reserved atomically, and
/// a save of objects whose keys were reserved leaves the counter's row alone, so it does not
/// wait for another instance's transaction that holds it (found by the multi-process load
/// benchmark: every save inserting an entity queued on its counter until the others committed).
@Suite struct PostgreSQLKeyCounterTests {
    static func coordinator(_ url: URL) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try PostgreSQLRemoteChangeTests.model(), registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url, options: [PostgreSQLOptionKey.readConnections: .int(0)])
        return coordinator
    }

    @Test func aSaveOfReservedKeysDoesNotWaitForATransactionHoldingTheCounter() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("keys")
        let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
        let coordinator = try Self.coordinator(url)
        let context = ManagedObjectContext(coordinator: coordinator)
        try context.insert(entityName: "Counter").setValue(.int(0), forKey: "index")
        try context.save()
        let counter = try context.insert(entityName: "Counter")
        try counter.setValue(.int(1), forKey: "index")
        try context.obtainPermanentIDs(for: [counter])

        // Another instance's transaction holds the counter's row (as a save inserting counters
        // does until it commits), for at most 10 s or until the save below returns.
        let table = "\(PostgreSQLConnection.quote(schema)).z_primarykey"
        let held = DispatchSemaphore(value: 0)
        let saved = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        let holder = Locked<[String]>([])
        let thread = Thread {
            do {
                let other = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url))
                try other.execute("BEGIN")
                try other.execute("UPDATE \(table) SET Z_MAX = Z_MAX WHERE Z_NAME = 'Counter'")
                held.signal()
                if saved.wait(timeout: .now() + 10) == .timedOut { holder.withLock { $0.append("the save waited for the transaction holding the key counter") } }
                try other.execute("ROLLBACK")
            } catch {
                holder.withLock { $0.append("\(error)") }
                held.signal()
            }
            released.signal()
        }
        thread.start()
        held.wait()
        try context.save()
        saved.signal()
        released.wait()
        #expect(holder.withLock { $0 } == [])
        let other = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url))
        let rows = try other.execute("SELECT Z_MAX FROM \(table) WHERE Z_NAME = 'Counter'")
        #expect(rows.int64(0, 0) == 2)
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Counter")) == 2)
    }

    @Test func twoCoordinatorsInsertingAtOnceNeverShareAKey() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("keys")
        let first = try Self.coordinator(url)
        let second = try Self.coordinator(url)
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { thread in
            let context = ManagedObjectContext(coordinator: thread == 0 ? first : second)
            do {
                for round in 0..<20 {
                    for index in 0..<5 { try context.insert(entityName: "Counter").setValue(.int(Int64(thread * 1000 + round * 5 + index)), forKey: "index") }
                    try context.save()
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        let ids = try ManagedObjectContext(coordinator: first).fetchObjectIDs(FetchRequest(entityName: "Counter"))
        #expect(ids.count == 200)
        #expect(Set(ids).count == 200)
    }
}
