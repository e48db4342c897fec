import Foundation
import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Fetches from several contexts at once run on the store's read connections, outside the
/// coordinator's lock, and see what was committed.
@Suite struct PostgreSQLConcurrentReadsTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Person") {
                Attribute("name", .string, indexed: true)
                Attribute("age", .integer64)
            }
        }
    }

    static func coordinator(_ url: URL, options: StoreOptions = [:]) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url, options: options)
        return coordinator
    }

    @Test func fourThreadsFetchAtOnceOnReadConnections() throws {
        let coordinator = try Self.coordinator(try TestPostgreSQLServer.freshStoreURL("reads"))
        let writer = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<300 {
            let person = try writer.insert(entityName: "Person")
            try person.setValue(.string("p\(index)"), forKey: "name")
            try person.setValue(.int(Int64(index % 50)), forKey: "age")
        }
        try writer.save()
        let failures = Locked<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            do {
                for round in 0..<5 {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    let people = try context.fetch(FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age < %d", 25)))
                    if people.count != 150 { failures.withLock { $0.append("thread \(thread) round \(round): \(people.count) people") } }
                    if people.contains(where: { $0.value(forKey: "name") == .null }) {
                        failures.withLock { $0.append("thread \(thread): a person without a name") }
                    }
                }
            } catch {
                failures.withLock { $0.append("thread \(thread): \(error)") }
            }
        }
        #expect(failures.withLock { $0 } == [])
        #expect(coordinator.statistics.concurrentFetches > 0)
    }

    @Test func theOptionSizesThePoolAndZeroKeepsEveryFetchOnTheStore() throws {
        let refused = #expect(throws: StoreError.self) {
            try Self.coordinator(try TestPostgreSQLServer.freshStoreURL("reads"), options: [PostgreSQLOptionKey.readConnections: "many"])
        }
        #expect(refused?.message.contains(PostgreSQLOptionKey.readConnections) == true)
        let serial = try Self.coordinator(
            try TestPostgreSQLServer.freshStoreURL("reads"), options: [PostgreSQLOptionKey.readConnections: .int(0)])
        #expect(try ManagedObjectContext(coordinator: serial).fetch(FetchRequest(entityName: "Person")).isEmpty)
        #expect(serial.statistics.concurrentFetches == 0)
    }
}
