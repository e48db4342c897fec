import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Rows read by key together (to-one prefetching, batches of a batched fetch) whose keys lie
/// close together are read as one range of the table (`Z_PK BETWEEN`), skipping the rows not
/// asked for; sparse keys still go through `json_each`. Both reads give the same nodes.
@Suite struct SQLiteKeySpanTests {
    @Test func denseKeysMakeASpanAndSparseOnesDoNot() throws {
        let span = try #require(SQLiteKeySpan([7, 3, 5, 3, 4]))
        #expect(span.low == 3 && span.high == 7)
        #expect([3, 4, 5, 7].allSatisfy { span.contains($0) })
        #expect(![2, 6, 8, 70, -1, .min, .max].contains { span.contains($0) })
        #expect(SQLiteKeySpan([42])?.contains(42) == true)
        #expect(SQLiteKeySpan([]) == nil)
        #expect(SQLiteKeySpan([1, 100]) == nil, "98 keys skipped for 2 read")
        #expect(SQLiteKeySpan([1, 2, 3, 6]) != nil, "6 keys in the range for 4 asked for")
        #expect(SQLiteKeySpan([1, 2, 3, 9]) == nil, "9 keys in the range for 4 asked for")
        #expect(SQLiteKeySpan([.min, .max]) == nil, "the widest span does not overflow")
        #expect(SQLiteKeySpan([.max, .max - 1])?.contains(.max) == true)
        let wide = try #require(SQLiteKeySpan(Array(stride(from: Int64(1_000), to: 1_200, by: 2))))
        #expect(wide.contains(1_198) && !wide.contains(1_199) && wide.contains(1_000))
    }

    @Test func aSpanReadsTheSameNodesAsTheKeyList() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        let players = try insert(
            (0..<300).map { ("Player", ["firstName": .string("f\($0)"), "lastName": .string("l\($0)")]) }, into: store)
        let teams = try insert((0..<3).map { ("Team", ["name": .string("t\($0)")]) }, into: store)
        // Every third player is left out: the range holds 1.5 keys per key asked for.
        let asked = players.enumerated().filter { $0.offset % 3 != 1 }.map(\.element)
        let missing = ObjectID(storeIdentifier: store.identifier, entityName: "Player", reference: .int(301))
        let foreign = ObjectID(storeIdentifier: "another store", entityName: "Player", reference: .int(2))
        let ids = (asked + teams + [missing, foreign, asked[0]]).shuffled()

        let queries = store.queryCount
        let spanned = try store.newValues(forObjectsWith: ids)
        #expect(store.queryCount == queries + 2, "one query per entity")
        #expect(store.lastQuery?.contains("Z_PK BETWEEN ?1 AND ?2") == true)
        let listed = try store.newValues(forObjectsWith: ids, readingSpans: false)
        #expect(store.lastQuery?.contains("json_each") == true)

        #expect(spanned.count == asked.count + teams.count, "each row once; missing, foreign and skipped rows left out")
        #expect(Set(spanned.map(\.objectID)) == Set(asked + teams))
        let byID = Dictionary(uniqueKeysWithValues: listed.map { ($0.objectID, $0) })
        for node in spanned {
            #expect(node == byID[node.objectID], "the same values as read from the key list")
        }
    }

    @Test func sparseKeysAreReadFromTheKeyList() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        let players = try insert((0..<50).map { ("Player", ["firstName": .string("f\($0)")]) }, into: store)
        let asked = [players[0], players[25], players[49]]
        let nodes = try store.newValues(forObjectsWith: asked)
        #expect(store.lastQuery?.contains("json_each") == true)
        #expect(Set(nodes.map(\.objectID)) == Set(asked))
        #expect(nodes.allSatisfy { $0 == (try? store.newValues(forObjectWith: $0.objectID)) })
    }

    @Test("A prefetched to-one fills its destinations with one query, whether their keys are dense or not")
    func prefetchedToOnesFillFromOneQuery() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("prefetch.sqlite")
        do {
            let coordinator = try RowCacheTests.coordinator(at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            var teams: [ManagedObject] = []
            for index in 0..<40 {
                let team = try context.insert(entityName: "Team")
                try team.setValue(.string("team \(index)"), forKey: "name")
                teams.append(team)
            }
            // The first 20 persons point at teams 0–19 (dense keys), the next 20 at every
            // tenth team twice over (sparse keys: 4 teams in a range of 31).
            for index in 0..<40 {
                let person = try context.insert(entityName: "Person")
                try person.setValue(.string("person \(index)"), forKey: "name")
                try person.setObject(teams[index < 20 ? index : (index % 4) * 10], forKey: "team")
            }
            try context.save()
        }
        let coordinator = try RowCacheTests.coordinator(at: url)
        // All persons: 20 teams in a range of keys of about 31 (read as a range); persons 21
        // and 23: teams 10 and 30, 2 keys in a range of about 21 (read from the key list).
        for (format, count) in [("TRUEPREDICATE", 40), ("name == 'person 21' OR name == 'person 23'", 2)] {
            var request = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: format))
            request.relationshipKeyPathsForPrefetching = ["team"]
            let context = ManagedObjectContext(coordinator: coordinator)
            let before = coordinator.statistics
            let persons = try context.fetch(request)
            #expect(persons.count == count)
            #expect(coordinator.statistics.fetches - before.fetches == 2, "the persons, then their teams")
            let filled = coordinator.statistics
            for person in persons {
                let index = try #require(person.value(forKey: "name", as: String.self)?.split(separator: " ").last.flatMap { Int($0) })
                let team = try #require(person.object(forKey: "team"))
                #expect(team.value(forKey: "name", as: String.self) == "team \(index < 20 ? index : (index % 4) * 10)")
            }
            #expect(coordinator.statistics == filled, "the prefetched teams fill without asking the store")
        }
    }
}
