import BenchmarkSupport
import Foundation
import PersistentStores

/// The contenders that go through this framework: a coordinator with one SQLite store.
enum Framework {
    static let registry: StoreRegistry = {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        return registry
    }()

    /// A predicate from a format string of this file.
    static func predicate(_ format: String) -> FetchPredicate {
        do {
            return try FetchPredicate(format: format)
        } catch {
            fail("the predicate \(format) does not parse: \(error)")
        }
    }

    /// What the coordinators below report to by default: `--observability quiet` (see
    /// `ObservabilityComparison`); nil, nothing given, without it.
    static let observability: StoreObservability? = ObservabilityComparison.fromArguments()

    /// A coordinator with the SQLite store at `url` (created when missing).
    static func open(
        _ url: URL, observability: StoreObservability? = Framework.observability
    ) throws -> (PersistentStoreCoordinator, StoreHandle) {
        let coordinator = PersistentStoreCoordinator(model: Dataset.model, registry: registry, observability: observability)
        let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
        return (coordinator, store)
    }

    /// Creates an empty store (the schema only) at `url` and closes it.
    static func createEmpty(_ url: URL) throws {
        let (coordinator, store) = try open(url)
        try coordinator.remove(store)
    }

    /// W1: inserts every person and team through a context and saves once (timed: inserts and save).
    static func insertThroughContext(
        _ dataset: Dataset, at url: URL, observability: StoreObservability? = Framework.observability, measurement: inout Timing
    ) throws {
        let (coordinator, store) = try open(url, observability: observability)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(coordinator: coordinator)
        try measurement.time {
            var teams: [ManagedObject] = []
            teams.reserveCapacity(dataset.teams)
            for team in 0..<dataset.teams {
                let object = try context.insert(entityName: "Team")
                try object.setValue(.string(Dataset.teamName(team)), forKey: "name")
                teams.append(object)
            }
            for index in 0..<dataset.persons {
                let person = try context.insert(entityName: "Person")
                try person.setValue(.string(dataset.names[index]), forKey: "name")
                try person.setValue(.string(dataset.emails[index]), forKey: "email")
                try person.setValue(.int(Int64(dataset.ages[index])), forKey: "age")
                try person.setValue(.double(dataset.scores[index]), forKey: "score")
                try person.setValue(.date(dataset.borns[index]), forKey: "born")
                try person.setObject(teams[dataset.team(of: index)], forKey: "team")
            }
            try context.save()
        }
    }

    /// #51: inserts every person with one batch insert request (timed: the request).
    static func batchInsert(_ rows: [[String: StoreValue]], at url: URL, measurement: inout Timing) throws {
        let (coordinator, store) = try open(url)
        defer { try? coordinator.remove(store) }
        let request = BatchInsertRequest(entityName: "Person", objects: rows)
        try measurement.time { _ = try coordinator.execute(request) }
    }

    /// W2: fetches every person as objects in a new coordinator and reads every attribute.
    /// Returns what was read and the heap (MiB) the fetch added while the objects were alive:
    /// measured from the open store, as the raw baseline measures from its open connection (the
    /// coordinator, the model and the store's schema are there before any object is).
    static func readAll(
        at url: URL, observability: StoreObservability? = Framework.observability, measurement: inout Timing
    ) throws -> (Checksum, Double) {
        let (coordinator, store) = try open(url, observability: observability)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(coordinator: coordinator)
        let opened = heapInUseMiB()
        return try measurement.time {
            var checksum = Checksum()
            let persons = try context.fetch(FetchRequest(entityName: "Person"))
            for person in persons {
                checksum.add(
                    name: person.value(forKey: "name", as: String.self) ?? "", email: person.value(forKey: "email", as: String.self) ?? "",
                    age: person.value(forKey: "age", as: Int32.self) ?? 0, score: person.value(forKey: "score", as: Double.self) ?? 0,
                    born: person.value(forKey: "born", as: Date.self) ?? Date(timeIntervalSinceReferenceDate: 0))
            }
            return (checksum, withExtendedLifetime(persons) { heapInUseMiB() } - opened)
        }
    }

    static let ageRange = predicate("age BETWEEN {20, 40}")

    /// W3: the IDs and the count of the persons aged 20 to 40, through a context.
    static func idsAndCount(
        at url: URL, repetitions: Int, ids: inout Timing, count: inout Timing
    ) throws -> (Int, Int) {
        let (coordinator, store) = try open(url)
        defer { try? coordinator.remove(store) }
        let context = ManagedObjectContext(coordinator: coordinator)
        let request = FetchRequest(entityName: "Person", predicate: ageRange)
        var found = 0
        var counted = 0
        try ids.time { for _ in 0..<repetitions { found = try context.fetchObjectIDs(request).count } }
        try count.time { for _ in 0..<repetitions { counted = try context.count(for: request) } }
        return (found, counted)
    }

    static let w4Predicate = predicate("age BETWEEN {20, 40} AND name BEGINSWITH 'A'")

    /// W4: the first 100 persons aged 20 to 40 whose name starts with A, by name, as objects
    /// with their attributes read (a new context per query).
    static func firstHundred(at url: URL, repetitions: Int, measurement: inout Timing) throws -> Checksum {
        let (coordinator, store) = try open(url)
        defer { try? coordinator.remove(store) }
        var request = FetchRequest(entityName: "Person", predicate: w4Predicate, sortKeys: [SortKey("name")])
        request.fetchLimit = 100
        var checksum = Checksum()
        try measurement.time {
            for _ in 0..<repetitions {
                checksum = Checksum()
                let context = ManagedObjectContext(coordinator: coordinator)
                for person in try context.fetch(request) {
                    checksum.add(
                        name: person.value(forKey: "name", as: String.self) ?? "", email: person.value(forKey: "email", as: String.self) ?? "",
                        age: person.value(forKey: "age", as: Int32.self) ?? 0, score: person.value(forKey: "score", as: Double.self) ?? 0,
                        born: person.value(forKey: "born", as: Date.self) ?? Date(timeIntervalSinceReferenceDate: 0))
                }
            }
        }
        return checksum
    }

    /// Half of the persons (ages are 18…77, evenly).
    static let younger = predicate("age < 48")

    /// W6: a batch update of half the persons (score = 0), status result.
    static func batchUpdate(at url: URL, measurement: inout Timing) throws -> Int {
        let (coordinator, store) = try open(url)
        defer { try? coordinator.remove(store) }
        let request = BatchUpdateRequest(entityName: "Person", predicate: younger, propertiesToUpdate: ["score": 0.0], resultType: .count)
        return try measurement.time { try coordinator.execute(request).count ?? 0 }
    }

    /// W6: a batch delete of half the persons, count result.
    static func batchDelete(at url: URL, measurement: inout Timing) throws -> Int {
        let (coordinator, store) = try open(url)
        defer { try? coordinator.remove(store) }
        let request = BatchDeleteRequest(entityName: "Person", predicate: younger, resultType: .count)
        return try measurement.time { try coordinator.execute(request).count ?? 0 }
    }
}
