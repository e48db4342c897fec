import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Rows of one fetch that name the same to-one destination share its `.objectID` value; rows
/// whose destinations fall on the same entry of the table (keys 128 apart, or equal keys of
/// other entities) still get their own destination.
@Suite struct SQLiteToOneValuesTests {
    @Test func equalDestinationsShareAValueAndCollisionsKeepTheirOwn() {
        let team = ObjectIDPrefix(storeIdentifier: "S", entityName: "Team")
        let club = ObjectIDPrefix(storeIdentifier: "S", entityName: "Club")
        var values = SQLiteToOneValues()
        // Keys 5 and 133 take the same entry, as does key 5 of another entity.
        let sequence: [(ObjectIDPrefix, Int64)] = [(team, 5), (team, 133), (team, 5), (club, 5), (team, 5), (team, 133), (club, 5)]
        for (prefix, key) in sequence {
            let id = prefix.objectID(.int(key))
            #expect(values.value(of: id, key: key) == .objectID(id))
        }
        // More destinations than entries: the table grows, and every value stays its own ID's.
        var many = SQLiteToOneValues()
        for round in 0..<4 {
            for key in Int64(1)...600 {
                let id = team.objectID(.int(key))
                #expect(many.value(of: id, key: key) == .objectID(id), "round \(round), key \(key)")
            }
        }
        var single = SQLiteToOneValues(sharing: false)
        let id = team.objectID(.int(7))
        #expect(single.value(of: id, key: 7) == .objectID(id))
    }

    @Test func fetchedRowsKeepTheirOwnDestinations() throws {
        let directory = try TemporaryDirectory()
        let model = try Models.league()
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: "SQLite", at: directory.file("league.sqlite"))
        let context = ManagedObjectContext(coordinator: coordinator)
        // 300 teams: keys 1 and 129 (and 257) share an entry of the table.
        let teams = try (0..<300).map { index -> ManagedObject in
            let team = try context.insert(entityName: "Team")
            try team.setValue(.string("team \(index)"), forKey: "name")
            return team
        }
        for index in 0..<900 {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.string("player \(index)"), forKey: "firstName")
            try player.setObject(teams[(index * 7) % teams.count], forKey: "team")
        }
        try context.save()

        let reader = ManagedObjectContext(coordinator: coordinator)
        let players = try reader.fetch(FetchRequest(entityName: "Player"))
        #expect(players.count == 900)
        for player in players {
            let name = try #require(player.value(forKey: "firstName", as: String.self))
            let index = try #require(Int(name.dropFirst("player ".count)))
            let team = try #require(player.object(forKey: "team"))
            #expect(team.value(forKey: "name", as: String.self) == "team \((index * 7) % teams.count)")
        }
    }
}
