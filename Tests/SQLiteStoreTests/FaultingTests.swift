import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Faults and batches as Core Data has them: `returnsObjectsAsFaults` (the default) returns
/// objects that fill on first access, `fetchBatchSize` fills a batch at a time.
@Suite("Faults and batched fetches")
struct FaultingTests {
    static func store(_ count: Int, in directory: TemporaryDirectory) throws -> PersistentStoreCoordinator {
        let coordinator = try RowCacheTests.coordinator(at: directory.file("faults.sqlite"))
        let rows = (0..<count).map { ["name": StoreValue.string("person \($0)"), "age": .int(Int64($0))] }
        try coordinator.execute(BatchInsertRequest(entityName: "Person", objects: rows))
        return coordinator
    }

    @Test("Fetched objects are faults that fill from the fetched row, without asking the store")
    func fetchedObjectsAreFaults() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.store(20, in: directory)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Person", sortKeys: [SortKey("age")])
        let people = try context.fetch(request)
        #expect(people.count == 20)
        #expect(people.allSatisfy { $0.isFault }, "returnsObjectsAsFaults is on by default")
        let before = coordinator.statistics
        let ages = people.map { $0.value(forKey: "age", as: Int.self) }
        #expect(ages == Array(0..<20))
        #expect(people.allSatisfy { !$0.isFault })
        #expect(coordinator.statistics == before, "filling asked the store nothing")

        request.returnsObjectsAsFaults = false
        let other = ManagedObjectContext(coordinator: coordinator)
        let filled = try other.fetch(request)
        #expect(filled.allSatisfy { !$0.isFault }, "returnsObjectsAsFaults = false fills at once")
    }

    @Test("An object's committed values stay as they were read while its values change, and come back")
    func committedValuesSurviveChanges() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.store(3, in: directory)
        let context = ManagedObjectContext(coordinator: coordinator)
        let people = try context.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey("age")]))
        let person = try #require(people.first)
        #expect(person.isFault)
        #expect(person.committedValues(forKeys: ["name"]) == ["name": .string("person 0")], "a fetched fault keeps its row")
        try person.setValue("changed", forKey: "name")
        #expect(!person.isFault)
        #expect(person.isUpdated)
        #expect(person.changedValues() == ["name": .string("changed")])
        #expect(person.committedValues(forKeys: ["name", "age"]) == ["name": .string("person 0"), "age": .int(0)])
        #expect(people[1].value(forKey: "name", as: String.self) == "person 1", "other objects are untouched")
        context.rollback()
        #expect(person.value(forKey: "name", as: String.self) == "person 0")
        #expect(!person.hasChanges)

        try person.setValue("saved", forKey: "name")
        try context.save()
        #expect(!person.hasChanges)
        #expect(person.committedValues(forKeys: ["name"]) == ["name": .string("saved")])
        context.refresh(person, mergeChanges: false)
        #expect(person.isFault)
        #expect(person.value(forKey: "name", as: String.self) == "saved")

        // To-manys: a team's loaded players are part of what it read.
        let team = try context.insert(entityName: "Team")
        try team.setValue("crew", forKey: "name")
        try person.setObject(team, forKey: "team")
        try context.save()
        let other = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Team")
        request.relationshipKeyPathsForPrefetching = ["players"]
        let fetched = try #require(try other.fetch(request).first)
        #expect(fetched.objects(forKey: "players").map { $0.value(forKey: "name", as: String.self) } == ["saved"])
        try fetched.setValue("renamed", forKey: "name")
        other.rollback()
        #expect(fetched.value(forKey: "name", as: String.self) == "crew")
        #expect(fetched.objects(forKey: "players").count == 1)
    }

    @Test("A fault fetched before another context saved fills with the saved values after a merge")
    func aFaultDoesNotFillWithAStaleRow() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.store(1, in: directory)
        let reader = ManagedObjectContext(coordinator: coordinator)
        let person = try #require(try reader.fetch(FetchRequest(entityName: "Person")).first)
        #expect(person.isFault)

        let writer = ManagedObjectContext(coordinator: coordinator)
        let same = try #require(try writer.fetch(FetchRequest(entityName: "Person")).first)
        try same.setValue("renamed", forKey: "name")
        var saved: ContextDidSave?
        writer.addObserver { event in if case .didSave(let changes) = event { saved = changes } }
        try writer.save()
        reader.mergeChanges(from: try #require(saved))
        #expect(person.value(forKey: "name", as: String.self) == "renamed")
    }

    @Test("A batched fetch fills one batch at a time and keeps about one batch filled")
    func batchedFetch() throws {
        let directory = try TemporaryDirectory()
        let count = 1_000
        let coordinator = try Self.store(count, in: directory)
        let context = ManagedObjectContext(coordinator: coordinator)
        var request = FetchRequest(entityName: "Person", sortKeys: [SortKey("age")])
        request.fetchBatchSize = 100
        let start = coordinator.statistics
        let people = try context.fetch(request)
        #expect(people.count == count)
        #expect(people.allSatisfy { $0.isFault })
        #expect(coordinator.statistics.fetches - start.fetches == 1, "one fetch for the IDs")

        #expect(people[0].value(forKey: "age", as: Int.self) == 0)
        #expect(coordinator.statistics.fetches - start.fetches == 2, "one fetch fills the first batch")
        let firstBatchFilled = people[0..<100].allSatisfy { !$0.isFault }
        let restFaults = people[100...].allSatisfy { $0.isFault }
        #expect(firstBatchFilled)
        #expect(restFaults)
        #expect(people[99].value(forKey: "age", as: Int.self) == 99)
        #expect(coordinator.statistics.fetches - start.fetches == 2, "the rest of the batch is filled already")

        // A changed object stays filled when its batch is left behind.
        try people[5].setValue("changed", forKey: "name")
        var mostFilled = 0
        var ages: [Int] = []
        for (index, person) in people.enumerated() {
            ages.append(person.value(forKey: "age", as: Int.self) ?? -1)
            if index % 50 == 0 { mostFilled = max(mostFilled, people.filter { !$0.isFault }.count) }
        }
        #expect(ages == Array(0..<count))
        #expect(coordinator.statistics.fetches - start.fetches == 11, "one fetch for the IDs, one per batch")
        #expect(mostFilled <= 101, "about one batch filled at a time, plus the changed object: \(mostFilled)")
        #expect(!people[5].isFault)
        #expect(people[5].value(forKey: "name", as: String.self) == "changed")
        #expect(people[1].isFault, "an unchanged object of an earlier batch is a fault again")
        #expect(people[1].value(forKey: "name", as: String.self) == "person 1", "and fills again when read")
        #expect(coordinator.cachedRowCount <= 201)
    }
}
