import Foundation
import InMemoryStore
import StoreCore
import Testing

/// Lookups that an index answers on its own (the equality is the whole predicate) give what a
/// scan gives, through unique keys becoming shared and unique again, deletes, offset and limit.
@Suite struct IndexedLookupTests {
    /// Runs the same changes and lookups on an indexed and an unindexed model.
    static func answers(indexed: Bool) throws -> [[String]] {
        let coordinator = try InMemoryIndexTests.coordinator(indexed: indexed)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try team.setValue(Int64(7), forKey: "code")
        var players: [ManagedObject] = []
        for i in 0..<30 {
            let player = try context.insert(entityName: i % 3 == 0 ? "Captain" : "Player")
            try player.setValue("p\(i)", forKey: "name")  // unique keys
            try player.setObject(team, forKey: "team")
            players.append(player)
        }
        try context.save()
        var results: [[String]] = []
        func lookup(_ format: String, _ arguments: [any PredicateArgument], offset: Int = 0, limit: Int = 0) throws {
            let fresh = ManagedObjectContext(coordinator: coordinator)
            var request = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: format, argumentArray: arguments))
            request.fetchOffset = offset
            request.fetchLimit = limit
            results.append(try fresh.fetch(request).map { "\($0.entity.name):\($0.value(forKey: "name"))" })
        }
        try lookup("name == 'p4'", [])
        try lookup("name == 'p3'", [])  // a Captain, found through the sub-entity's index
        // Several objects share a key, then all but one leave it again.
        for player in players.prefix(6) { try player.setValue("shared", forKey: "name") }
        try context.save()
        try lookup("name == 'shared'", [])
        try lookup("name == 'shared'", [], offset: 1, limit: 2)
        try lookup("name == 'p4'", [])
        for player in players.prefix(5) { try player.setValue("back", forKey: "name") }
        try context.save()
        try lookup("name == 'shared'", [])
        try lookup("name == 'back'", [], limit: 3)
        // Deleted objects leave the index.
        context.delete(players[5])
        context.delete(players[1])
        try context.save()
        try lookup("name == 'shared'", [])
        try lookup("name == 'back'", [])
        try lookup("team == %@", [team.objectID], offset: 20)
        try lookup("name == 'back' AND team == %@", [team.objectID])
        return results
    }

    @Test func answersLikeAScan() throws {
        let indexed = try Self.answers(indexed: true)
        let scanned = try Self.answers(indexed: false)
        #expect(indexed == scanned)
        #expect(indexed[0] == ["Player:\"p4\""])
        #expect(indexed[1] == ["Captain:\"p3\""])
        #expect(indexed[2].count == 6)
        #expect(indexed[3].count == 2)
        #expect(indexed[4].isEmpty)
        #expect(indexed[5] == ["Player:\"shared\""])
        #expect(indexed[6].count == 3)
        #expect(indexed[7].isEmpty)
        #expect(indexed[8].count == 4)
        #expect(indexed[9].count == 8)
    }

    /// The coordinator compiles a lookup once per shape and hands the store's compiled plan back
    /// with every request of the shape: the store does not look the request up again, and each
    /// request still gets its own objects.
    @Test func lookupsThroughTheCoordinatorUseItsCompiledPlan() throws {
        let coordinator = try InMemoryIndexTests.coordinator(indexed: true)
        let context = ManagedObjectContext(coordinator: coordinator)
        for i in 0..<10 {
            let player = try context.insert(entityName: i % 3 == 0 ? "Captain" : "Player")
            try player.setValue("p\(i)", forKey: "name")
        }
        try context.save()
        let handle = try #require(coordinator.persistentStores.first)
        let store = try #require(try coordinator.withStore(handle) { $0 as? InMemoryStore })
        for i in 0..<10 {
            let fresh = ManagedObjectContext(coordinator: coordinator)
            let request = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "name == %@", "p\(i)"))
            #expect(try fresh.fetch(request).map { $0.value(forKey: "name") } == [.string("p\(i)")])
            guard case .nodes(let nodes) = try coordinator.execute(request) else {
                Issue.record("a fetch of objects answered with something else")
                continue
            }
            #expect(nodes.map(\.objectID.entityName) == [i % 3 == 0 ? "Captain" : "Player"])
        }
        #expect(store.ownPlanLookups == 0)
        // Asked directly (under the coordinator's lock), the store plans with its own cache.
        let direct = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "name == 'p4'"))
        let found = try coordinator.withStore(handle) { store -> Int in
            guard case .nodes(let nodes)? = try (store as? InMemoryStore)?.execute(.fetch(direct)) else { return -1 }
            return nodes.count
        }
        #expect(found == 1)
        #expect(store.ownPlanLookups == 1)
    }
}
