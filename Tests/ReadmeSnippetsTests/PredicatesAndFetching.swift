import PersistentStores
import Testing

@Test func predicatesAndFetching() throws {
    let model = try ObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true)
        }
        Entity("Player") {
            Attribute("lastName", .string)
            Attribute("age", .integer64, optional: false, defaultValue: 0)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
    PersistentStores.registerBuiltInStoreTypes()
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addPersistentStore(type: "InMemory")
    let context = ManagedObjectContext(coordinator: coordinator)
    let crew = try context.insert(entityName: "Team")
    try crew.setValue("Crew", forKey: "name")
    for (name, age) in [("gordon", 31), ("Sprat", 24), ("staley", 40)] {
        let player = try context.insert(entityName: "Player")
        try player.setValue(.string(name), forKey: "lastName")
        try player.setValue(.int(Int64(age)), forKey: "age")
        try player.setObject(crew, forKey: "team")
    }
    try context.save()

    var request = FetchRequest(entityName: "Player",
                               predicate: try FetchPredicate(format: "team.name == %@", "Crew"),
                               sortKeys: [SortKey("lastName", comparison: .caseInsensitive)])
    request.fetchLimit = 10
    request.relationshipKeyPathsForPrefetching = ["team"]      // one extra fetch, not one per player
    let players = try context.fetch(request)
    let count = try context.count(for: request)

    var totals = FetchRequest(entityName: "Player")
    totals.propertiesToFetch = [.expression(ExpressionDescription(name: "sum", function: .sum, keyPath: "age"))]
    let sum = try context.fetchDictionaries(totals).first?["sum"]

    #expect(players.map { $0.value(forKey: "lastName", as: String.self) } == ["gordon", "Sprat", "staley"])
    #expect(count == 3)
    #expect(sum == .int(95))
}
