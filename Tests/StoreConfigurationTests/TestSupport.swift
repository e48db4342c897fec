import Foundation
import JSONFileStore
import PersistentStores
import StoreTestSupport

/// The repository's root folder (three levels above this file).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The example configuration the README quotes.
let exampleConfiguration = repositoryRoot.appendingPathComponent("Examples/Configuration/stores.yaml")

/// Every backend the configuration can switch between: the five built-ins and the example
/// custom store.
let everyStoreType = ["SQLite", "InMemory", "Binary", "XML", "PipeCSV", "JSONFile"]

/// A registry with the built-in types and the example JSON-file store.
func registryWithCustomType() -> StoreRegistry {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    registry.register(JSONFileStore.self)
    return registry
}

/// Team ↔ Player.
func leagueModel() throws -> ObjectModel {
    try ObjectModel(configurations: ["League": ["Team", "Player"], "Scratch": ["Note"]]) {
        Entity("Team") {
            Attribute("name", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("name", .string)
            Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
        }
        Entity("Note") {
            Attribute("text", .string)
        }
    }
}

/// Writes `text` to `name` in `directory` and returns its URL.
func write(_ text: String, to name: String, in directory: URL) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url
}

/// The program the backend-switching tests run: whatever the configuration says, build the
/// container, save a team with two players, then read them back through a second container on
/// the same configuration (for stores that keep a file). Returns the store description used
/// and the number of players read back.
func runLeagueProgram(_ sources: () throws -> StoreConfigurationSources, registry: StoreRegistry) throws
    -> (description: StoreDescription, playersReadBack: Int)
{
    let model = try leagueModel()
    let container = try sources().makeContainer(model: model, registry: registry)
    try container.loadPersistentStores()
    let context = container.viewContext
    let team = try context.insert(entityName: "Team")
    try team.setValue("Crew", forKey: "name")
    for name in ["Jordan", "Bailey"] {
        let player = try context.insert(entityName: "Player")
        try player.setValue(name, forKey: "name")
        try player.setObject(team, forKey: "team")
    }
    try context.save()
    guard let description = container.persistentStoreDescriptions.first else {
        throw StoreError(.persistentStoreOperation, "the container has no store description")
    }
    guard description.url != nil else {
        return (description, try context.count(for: FetchRequest(entityName: "Player")))
    }
    let reopened = try sources().makeContainer(model: model, registry: registry)
    try reopened.loadPersistentStores()
    let players = try reopened.viewContext.fetch(entityName: "Player")
    let teams = Set(players.compactMap { $0.object(forKey: "team")?.value(forKey: "name", as: String.self) })
    return (description, teams == ["Crew"] ? players.count : -1)
}
