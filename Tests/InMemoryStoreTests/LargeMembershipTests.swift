import Foundation
import InMemoryStore
import StoreCore
import Testing

/// Filling faults and prefetching with many objects in memory: `SELF IN {…}` and `key IN {…}`
/// over object IDs cost one set lookup per object, not one comparison per listed ID.
@Suite("IN over large collections in memory")
struct InMemoryLargeMembershipTests {
    @Test("Prefetching 10,000 teams' players and filling 20,000 faults")
    func prefetchingManyObjects() throws {
        let (coordinator, _) = try InMemoryStoreTests.stack()
        let context = ManagedObjectContext(coordinator: coordinator)
        for team in 0..<10_000 {
            let object = try context.insert(entityName: "Team")
            try object.setValue(.string("team \(team)"), forKey: "name")
            for player in 0..<2 {
                let person = try context.insert(entityName: "Player")
                try person.setValue(.string("player \(team)-\(player)"), forKey: "name")
                try person.setObject(object, forKey: "team")
            }
        }
        try context.save()

        let other = ManagedObjectContext(coordinator: coordinator)
        var teams = FetchRequest(entityName: "Team")
        teams.relationshipKeyPathsForPrefetching = ["players"]
        let fetched = try other.fetch(teams)
        #expect(fetched.count == 10_000)
        #expect(fetched.allSatisfy { $0.objects(forKey: "players").count == 2 })

        let ids = try other.fetchObjectIDs(FetchRequest(entityName: "Player"))
        let third = ManagedObjectContext(coordinator: coordinator)
        let players = try third.fetch(FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "SELF IN %@", ids)))
        #expect(players.count == 20_000)
        let someTeams = Array(fetched.prefix(100).map(\.objectID))
        let theirPlayers = try third.count(for: FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "team IN %@", someTeams)))
        #expect(theirPlayers == 200)
    }
}
