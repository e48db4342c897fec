import Foundation
import PersistentStores
import Testing

final class Team: ManagedObject {
    @Field("name") var name: String?
    @Field("rank", default: 0) var rank: Int16
    @ToMany("players") var players: [Player]
}

final class Player: ManagedObject {
    @Field("lastName") var lastName: String?
    @ToOne("team") var team: Team?
}

@Suite struct TypedSubclassTests {
    static func coordinator() throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let model = try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("rank", .integer16, optional: false, defaultValue: 0)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("lastName", .string)
                Relationship("team", to: "Team", inverse: "players")
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        coordinator.register(Team.self)
        coordinator.register(Player.self)
        try coordinator.addPersistentStore(type: "InMemory")
        return coordinator
    }

    @Test func typedPropertiesReadAndWriteThroughTheObject() throws {
        let context = ManagedObjectContext(coordinator: try Self.coordinator())
        let team = try context.insert(Team.self)
        team.name = "Crew"
        team.rank = 3
        let player = try context.insert(Player.self)
        player.lastName = "Gordon"
        player.team = team
        #expect(team.players.map(\.lastName) == ["Gordon"])
        #expect(team.value(forKey: "rank") == .int(3))
        try context.save()

        let other = ManagedObjectContext(coordinator: context.coordinator)
        let teams = try other.fetch(Team.self)
        #expect(teams.count == 1)
        #expect(teams.first?.name == "Crew")
        #expect(teams.first?.players.first?.team === teams.first)
        let players = try other.fetch(Player.self)
        #expect(players.first?.team?.rank == 3)
    }

    @Test func aSetterErrorFailsTheNextSave() throws {
        let context = ManagedObjectContext(coordinator: try Self.coordinator())
        let team = try context.insert(Team.self)
        let stranger = try ManagedObjectContext(coordinator: context.coordinator).insert(Player.self)
        team.players = [stranger]
        #expect(team.players.isEmpty)
        let error = #expect(throws: StoreError.self) { try context.save() }
        #expect(error?.code == .managedObjectExternalRelationship)
        try context.save()
    }
}
