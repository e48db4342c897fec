import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// The coordinator's row cache holds a row while some context holds its object, and forgets it
/// after (Core Data's snapshot reference counting), so a process that fetches many objects once
/// does not keep them.
@Suite("Row cache")
struct RowCacheTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer32)
                Relationship("team", to: "Team", inverse: "players", optional: true)
            }
            Entity("Team") {
                Attribute("name", .string)
                Relationship("players", to: "Person", inverse: "team", toMany: true)
            }
        }
    }

    static func coordinator(at url: URL) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: "SQLite", at: url)
        return coordinator
    }

    @Test("Rows are held while a context holds their objects, shared between contexts, and forgotten after")
    func rowsFollowTheObjectsThatHoldThem() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(at: directory.file("cache.sqlite"))
        do {
            let context = ManagedObjectContext(coordinator: coordinator)
            for index in 0..<10 {
                let person = try context.insert(entityName: "Person")
                try person.setValue(.string("p\(index)"), forKey: "name")
            }
            try context.save()
            #expect(coordinator.cachedRowCount == 10, "the saving context holds the rows of what it inserted")
        }
        #expect(coordinator.cachedRowCount == 0, "a context that goes away lets its rows go")

        let first = ManagedObjectContext(coordinator: coordinator)
        let people = try first.fetch(FetchRequest(entityName: "Person"))
        #expect(people.count == 10)
        #expect(coordinator.cachedRowCount == 10)
        do {
            let second = ManagedObjectContext(coordinator: coordinator)
            _ = try second.fetch(FetchRequest(entityName: "Person"))
            #expect(coordinator.cachedRowCount == 10, "two contexts share one row per object")
        }
        #expect(coordinator.cachedRowCount == 10, "the first context still holds every row")

        // A fault keeps no row; firing it holds the row again.
        first.refresh(people[0], mergeChanges: false)
        #expect(people[0].isFault)
        #expect(coordinator.cachedRowCount == 9)
        #expect(people[0].value(forKey: "name", as: String.self) == "p0")
        #expect(coordinator.cachedRowCount == 10)

        first.reset()
        #expect(coordinator.cachedRowCount == 0, "reset lets every row go")
    }

    @Test("Fetching and releasing 100k objects in a loop forgets every row and frees every object")
    func aLongRunningProcessDoesNotKeepWhatItFetchedOnce() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try Self.coordinator(at: directory.file("many.sqlite"))
        let count = 100_000
        let rows = (0..<count).map { index -> [String: StoreValue] in
            ["name": .string("person \(index)"), "age": .int(Int64(index % 90))]
        }
        try coordinator.execute(BatchInsertRequest(entityName: "Person", objects: rows))

        // Whether memory comes back is checked object by object (a weak reference to every
        // fetched object and to its context), not by the heap's size: the tests running beside
        // this one share the heap.
        final class Weak {
            weak var object: AnyObject?
            init(_ object: AnyObject) { self.object = object }
        }
        func fetchAndRelease() throws -> (ages: Int, released: [Weak]) {
            let context = ManagedObjectContext(coordinator: coordinator)
            let people = try context.fetch(FetchRequest(entityName: "Person"))
            var ages = 0
            for person in people { ages += person.value(forKey: "age", as: Int.self) ?? 0 }
            #expect(coordinator.cachedRowCount == count, "while the context lives, it holds every row")
            return (ages, people.map(Weak.init) + [Weak(context)])
        }

        let expectedAges = (0..<count).reduce(0) { $0 + $1 % 90 }
        for _ in 0..<3 {
            let round = try fetchAndRelease()
            #expect(round.ages == expectedAges)
            #expect(coordinator.cachedRowCount == 0, "every row is forgotten once the context is gone")
            let kept = round.released.filter { $0.object != nil }.count
            #expect(kept == 0, "\(kept) of the \(count) objects and their context outlived the context")
        }
    }
}
