import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// `IN` over large collections: object IDs (prefetching, filling faults) and values compile to
/// one membership test, never to an `OR` per member (SQLite refuses expression trees deeper
/// than 1,000) nor to more parameters than SQLite allows (32,766).
@Suite("IN over large collections")
struct LargeMembershipTests {
    @Test("SELF IN 100k object IDs, and name IN 100k texts, find every object")
    func oneHundredThousandMembers() throws {
        let directory = try TemporaryDirectory()
        let coordinator = try RowCacheTests.coordinator(at: directory.file("large.sqlite"))
        let count = 100_000
        let names = (0..<count).map { "person \($0) \"quoted\" \\ ü" }
        try coordinator.execute(
            BatchInsertRequest(
                entityName: "Person", objects: names.enumerated().map { ["name": .string($1), "age": .int(Int64($0 % 90))] }))
        let context = ManagedObjectContext(coordinator: coordinator)
        let ids = try context.fetchObjectIDs(FetchRequest(entityName: "Person"))
        #expect(ids.count == count)

        let byID = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "SELF IN %@", ids))
        #expect(try context.count(for: byID) == count)
        let half = Array(ids.prefix(count / 2))
        let objects = try context.fetch(FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "SELF IN %@", half)))
        #expect(Set(objects.map(\.objectID)) == Set(half))

        let byName = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "name IN %@", names))
        #expect(try context.count(for: byName) == count, "texts with quotes, backslashes and non-ASCII letters match exactly")
        let someNames = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "name IN %@", Array(names.suffix(300)) + ["nobody"]))
        #expect(try context.count(for: someNames) == 300)
        let ages = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age IN %@", Array(0..<45)))
        #expect(try context.count(for: ages) == (0..<count).filter { $0 % 90 < 45 }.count)
    }

    @Test("Prefetching a to-many for 2,000 owners and filling 2,000 faults at once")
    func prefetchingPastAThousand() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefetch.sqlite")
        do {
            let coordinator = try RowCacheTests.coordinator(at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for team in 0..<2_000 {
                let object = try context.insert(entityName: "Team")
                try object.setValue(.string("team \(team)"), forKey: "name")
                for player in 0..<2 {
                    let person = try context.insert(entityName: "Person")
                    try person.setValue(.string("player \(team)-\(player)"), forKey: "name")
                    try person.setObject(object, forKey: "team")
                }
            }
            try context.save()
        }
        let coordinator = try RowCacheTests.coordinator(at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var teams = FetchRequest(entityName: "Team")
        teams.relationshipKeyPathsForPrefetching = ["players"]
        let fetched = try context.fetch(teams)
        #expect(fetched.count == 2_000)
        let before = coordinator.statistics
        #expect(fetched.allSatisfy { $0.objects(forKey: "players").count == 2 })
        #expect(coordinator.statistics == before, "the prefetched players are read without asking the store")

        var people = FetchRequest(entityName: "Person")
        people.relationshipKeyPathsForPrefetching = ["team"]
        let other = ManagedObjectContext(coordinator: coordinator)
        let players = try other.fetch(people)
        #expect(players.count == 4_000)
        let afterPrefetch = coordinator.statistics
        #expect(players.allSatisfy { $0.object(forKey: "team")?.value(forKey: "name", as: String.self) != nil })
        #expect(coordinator.statistics == afterPrefetch, "the prefetched teams fill without asking the store")
    }
}
