import Dispatch
import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Fetches from different contexts run beside each other and beside saves on an SQLite store in
/// WAL mode (a pool of read connections); saves stay serialised. CI runs this suite under Thread
/// Sanitizer too (`scripts/ci-checks.sh`).
@Suite("ConcurrentReaders")
struct ConcurrentReadersTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer64)
                Attribute("score", .double)
            }
        }
    }

    static func coordinator(at url: URL?, options: StoreOptions = [:]) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: "SQLite", at: url, options: options)
        return coordinator
    }

    /// Inserts people whose values all follow from their age (name `p<age>`, score age / 2), so
    /// a reader can tell a complete, consistent row from a torn or mixed one.
    static func insertPeople(_ ages: some Sequence<Int>, into context: ManagedObjectContext) throws {
        for age in ages {
            let person = try context.insert(entityName: "Person")
            try setAge(age, of: person)
        }
        try context.save()
    }

    static func setAge(_ age: Int, of person: ManagedObject) throws {
        try person.setValue(.string("p\(age)"), forKey: "name")
        try person.setValue(.int(Int64(age)), forKey: "age")
        try person.setValue(.double(Double(age) / 2), forKey: "score")
    }

    /// What is wrong with a fetched person (every attribute read), or nil.
    static func problem(with person: ManagedObject) -> String? {
        guard case .int(let age) = person.value(forKey: "age") else {
            return "\(person.objectID) has age \(person.value(forKey: "age"))"
        }
        guard person.value(forKey: "name") == .string("p\(age)") else {
            return "\(person.objectID) (age \(age)) has name \(person.value(forKey: "name"))"
        }
        guard person.value(forKey: "score") == .double(Double(age) / 2) else {
            return "\(person.objectID) (age \(age)) has score \(person.value(forKey: "score"))"
        }
        return nil
    }

    /// Runs each body on a thread of its own, all started before any is waited for, and returns
    /// when every one has finished.
    static func onThreads(_ bodies: [@Sendable () -> Void]) {
        let group = DispatchGroup()
        for body in bodies {
            group.enter()
            let thread = Thread {
                body()
                group.leave()
            }
            thread.start()
        }
        group.wait()
    }

    @Test("Two contexts fetching at once get complete, consistent results while a third saves")
    func twoReadersAndAWriter() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(at: directory.file("people.sqlite"))
        let seeded = 2_000
        try Self.insertPeople(0..<seeded, into: ManagedObjectContext(coordinator: coordinator))
        let saves = 20
        let insertedPerSave = 5
        let failures = Locked<[String]>([])

        let reader: @Sendable () -> Void = {
            do {
                let context = ManagedObjectContext(coordinator: coordinator)
                var previous = seeded
                for _ in 0..<15 {
                    let people = try context.fetch(FetchRequest(entityName: "Person"))
                    if people.count < previous || people.count > seeded + saves * insertedPerSave {
                        failures.withLock { $0.append("a fetch returned \(people.count) people after \(previous)") }
                    }
                    previous = people.count
                    if let problem = people.lazy.compactMap(Self.problem(with:)).first {
                        failures.withLock { $0.append(problem) }
                    }
                    let ages = Set(people.map { $0.value(forKey: "age") })
                    if ages.count != people.count { failures.withLock { $0.append("a fetch returned a person twice") } }
                }
            } catch {
                failures.withLock { $0.append("reader: \(error)") }
            }
        }
        let writer: @Sendable () -> Void = {
            do {
                let context = ManagedObjectContext(coordinator: coordinator)
                for save in 0..<saves {
                    let first = 1_000_000 + save * insertedPerSave
                    try Self.insertPeople(first..<(first + insertedPerSave), into: context)
                    // An update too: one seeded person moves to a new age, all values at once.
                    var request = FetchRequest(entityName: "Person")
                    request.fetchOffset = save
                    request.fetchLimit = 1
                    guard let person = try context.fetch(request).first else { continue }
                    try Self.setAge(2_000_000 + save, of: person)
                    try context.save()
                }
            } catch {
                failures.withLock { $0.append("writer: \(error)") }
            }
        }
        Self.onThreads([reader, reader, writer])

        #expect(failures.withLock { $0.prefix(3) } == [])
        let afterContext = ManagedObjectContext(coordinator: coordinator)
        let after = try afterContext.fetch(FetchRequest(entityName: "Person"))
        #expect(after.count == seeded + saves * insertedPerSave)
        #expect(after.lazy.compactMap(Self.problem(with:)).first == nil)
        #expect(after.filter { ($0.value(forKey: "age").doubleValue ?? 0) >= 2_000_000 }.count == saves)
        #expect(coordinator.statistics.concurrentFetches >= 30, "the readers' fetches ran outside the lock")
    }

    @Test("A fetch on a read connection sees what was committed before it, and the row cache stays right")
    func aFetchSeesCommittedData() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(at: directory.file("people.sqlite"))
        let reader = ManagedObjectContext(coordinator: coordinator)
        #expect(try reader.fetch(FetchRequest(entityName: "Person")).isEmpty)
        #expect(coordinator.statistics.concurrentFetches == 1)

        let writer = ManagedObjectContext(coordinator: coordinator)
        try Self.insertPeople(0..<3, into: writer)
        let people = try reader.fetch(FetchRequest(entityName: "Person"))
        #expect(people.count == 3)
        #expect(people.lazy.compactMap(Self.problem(with:)).first == nil)

        // An update committed by another context: a new context's fetch reads the new row, and
        // the row cache holds the newest version.
        let changed = try #require(try writer.fetch(FetchRequest(entityName: "Person")).first)
        try Self.setAge(42, of: changed)
        try writer.save()
        let freshContext = ManagedObjectContext(coordinator: coordinator)
        let fresh = try freshContext.fetch(FetchRequest(entityName: "Person"))
        #expect(fresh.contains { $0.value(forKey: "name") == .string("p42") })
        let cached = try coordinator.node(for: changed.objectID)
        #expect(cached.version == 2)
        #expect(coordinator.statistics.concurrentFetches >= 4)

        // Counts and IDs take the read connections too.
        var count = FetchRequest(entityName: "Person")
        count.resultType = .count
        #expect(try coordinator.execute(count) == .count(3))
    }

    @Test("The number of read connections is an option with a default; 0 serialises every fetch")
    func readConnectionsOption() throws {
        #expect(try SQLiteStore.readConnections(options: [:]) == SQLiteStore.defaultReadConnections)
        #expect(SQLiteStore.defaultReadConnections == 4)
        #expect(try SQLiteStore.readConnections(options: [SQLiteOptionKey.readConnections: .int(2)]) == 2)
        #expect(try SQLiteStore.readConnections(options: [SQLiteOptionKey.readConnections: .string("3")]) == 3)
        for bad: MetadataValue in [.int(-1), .int(65), .string("many"), .bool(true), .double(1.5)] {
            let error = #expect(throws: StoreError.self) {
                try SQLiteStore.readConnections(options: [SQLiteOptionKey.readConnections: bad])
            }
            #expect(error?.code == .persistentStoreOperation)
        }

        let directory = try TemporaryDirectory()
        let refused = #expect(throws: StoreError.self) {
            try Self.coordinator(at: directory.file("bad.sqlite"), options: [SQLiteOptionKey.readConnections: .string("many")])
        }
        #expect(refused?.message.contains(SQLiteOptionKey.readConnections) == true)

        let serial = try Self.coordinator(
            at: directory.file("serial.sqlite"), options: [SQLiteOptionKey.readConnections: .int(0)])
        try Self.insertPeople(0..<5, into: ManagedObjectContext(coordinator: serial))
        #expect(try ManagedObjectContext(coordinator: serial).fetch(FetchRequest(entityName: "Person")).count == 5)
        #expect(serial.statistics.concurrentFetches == 0)
        #expect(serial.statistics.fetches == 1)

        // The pool opens readers lazily, never more than its size.
        let store = try SQLiteStore(
            model: try Self.model(), configurationName: nil, url: directory.file("pool.sqlite"),
            options: [SQLiteOptionKey.readConnections: .int(2)])
        try store.loadMetadata()
        let pool = try #require(try store.makeConcurrentFetcher() as? ReadConnectionPool<SQLiteStore>)
        #expect(pool.size == 2)
        #expect(pool.openedCount == 0)
        #expect(try pool.fetch(FetchRequest(entityName: "Person")) == .nodes([]))
        #expect(pool.openedCount == 1)
    }

    @Test("An in-memory SQLite store has no read pool: fetches stay serialised and correct")
    func inMemoryStoreIsSerialised() throws {
        let coordinator = try Self.coordinator(at: nil)
        try Self.insertPeople(0..<500, into: ManagedObjectContext(coordinator: coordinator))
        let failures = Locked<[String]>([])
        let reader: @Sendable () -> Void = {
            do {
                for _ in 0..<5 {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    let people = try context.fetch(FetchRequest(entityName: "Person"))
                    if people.count != 500 { failures.withLock { $0.append("fetched \(people.count) people") } }
                    if let problem = people.lazy.compactMap(Self.problem(with:)).first { failures.withLock { $0.append(problem) } }
                }
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        Self.onThreads([reader, reader])
        #expect(failures.withLock { $0.prefix(3) } == [])
        #expect(coordinator.statistics.concurrentFetches == 0)
        #expect(coordinator.statistics.fetches == 10)
    }

    @Test("A store in another journal mode has no read pool")
    func otherJournalModesAreSerialised() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(
            at: directory.file("delete.sqlite"), options: [SQLiteOptionKey.pragmas: .dictionary(["journal_mode": "DELETE"])])
        try Self.insertPeople(0..<3, into: ManagedObjectContext(coordinator: coordinator))
        #expect(try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Person")).count == 3)
        #expect(coordinator.statistics.concurrentFetches == 0)
    }
}
