import PersistentStores
import Testing

@Test func usingIt() throws {
    PersistentStores.registerBuiltInStoreTypes()

    let model = try ObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("lastName", .string, optional: false, defaultValue: "")
            Relationship("team", to: "Team", inverse: "players")   // delete rule: nullify
        }
    }

    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addPersistentStore(type: "InMemory")

    let context = ManagedObjectContext(coordinator: coordinator)
    let crew = try context.insert(entityName: "Team")
    try crew.setValue("Crew", forKey: "name")
    let player = try context.insert(entityName: "Player")
    try player.setValue("Gordon", forKey: "lastName")
    try player.setObject(crew, forKey: "team")        // crew.objects(forKey: "players") holds player now
    try context.save()                                 // temporary IDs become permanent

    let teams = try context.fetch(FetchRequest(entityName: "Team"))
    #expect(teams.count == 1)
    context.delete(crew)                               // cascades to its players at save
    try context.save()
    #expect(try context.count(for: FetchRequest(entityName: "Player")) == 0)
}
