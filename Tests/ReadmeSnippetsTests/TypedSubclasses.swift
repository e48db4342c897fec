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

    // Custom validation runs at save, next to the model's rules.
    override func validateValue(_ value: StoreValue, forKey key: String) throws {
        if key == "lastName", value == "" {
            throw StoreError(.managedObjectValidation, "Player.lastName must not be empty", objectIDs: [objectID])
        }
    }
}

@Test func typedSubclasses() throws {
    let model = try ObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Attribute("rank", .integer16, optional: false, defaultValue: 0)
            Relationship("players", to: "Player", inverse: "team", toMany: true)
        }
        Entity("Player") {
            Attribute("lastName", .string)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
    PersistentStores.registerBuiltInStoreTypes()
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addPersistentStore(type: "InMemory")
    let context = ManagedObjectContext(coordinator: coordinator)

    coordinator.register(Team.self)
    coordinator.register(Player.self)

    let team = try context.insert(Team.self)
    team.name = "Crew"
    let player = try context.insert(Player.self)
    player.lastName = "Gordon"
    player.team = team                        // team.players == [player] at once
    try context.save()
    let teams: [Team] = try context.fetch(Team.self)

    #expect(teams.map(\.name) == ["Crew"])
    #expect(teams.first?.players.map(\.lastName) == ["Gordon"])
    player.lastName = ""
    #expect(throws: StoreError.self) { try context.save() }
}
