import Foundation
import PersistentModels
import Testing

@Model final class Team {
    @Attribute(.unique) var name: String
    var founded: Date?
    @Relationship(deleteRule: .cascade, inverse: \Player.team) var players: [Player] = []
    init(name: String) { self.name = name }
}

@Model final class Player {
    var lastName: String
    var number: Int16 = 0
    var team: Team?
    init(lastName: String) { self.lastName = lastName }
}

@Test func swiftModels() throws {
    let container = try ModelContainer(
        for: Team.self, Player.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
    let context = ModelContext(container)

    let crew = Team(name: "Crew")                      // made before any context, as in SwiftData
    crew.players = [Player(lastName: "Gordon"), Player(lastName: "Ada")]
    context.insert(crew)                               // the players are inserted with it
    try context.save()

    let players = try context.fetch(FetchDescriptor<Player>(sortBy: [SortDescriptor(\.lastName)]))
    #expect(players.map(\.lastName) == ["Ada", "Gordon"])
    #expect(players[0].team === crew)                  // the inverse, kept by the context

    let gordon = try context.fetch(FetchDescriptor<Player>(   // a #Predicate runs in the store
        predicate: #Predicate { $0.team?.name == "Crew" && $0.lastName.starts(with: "G") }))
    #expect(gordon.map(\.lastName) == ["Gordon"])

    context.delete(crew)                               // cascades to its players
    try context.save()
    #expect(try context.fetchCount(FetchDescriptor<Player>()) == 0)
}
