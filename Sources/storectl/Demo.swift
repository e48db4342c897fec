import ArgumentParser
import Foundation
import PersistentStores

/// `storectl demo`: the League scenario (behaviour #21): three teams, four players, then
/// deleting a player (nullify) and a team (cascade), printing the league after each step.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the League demo: insert teams and players, delete with nullify and cascade rules.")

    @Option(name: .long, help: "The store type to use (see `storectl types`).")
    var type: String = "SQLite"

    @Option(name: .long, help: "The store file, for store types that keep one (default: a new temporary folder).")
    var path: String?

    func run() throws {
        PersistentStores.registerBuiltInStoreTypes()
        let model = try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("uniformColor", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
            }
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        let storeType = try StoreRegistry.shared.requireStoreType(named: type)
        var url: URL?
        if let path {
            url = URL(fileURLWithPath: path)
        } else if !storeType.capabilities.contains(.noURL) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("storectl-demo-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            url = folder.appendingPathComponent("League.\(type.lowercased())")
        }
        let store = try coordinator.addPersistentStore(type: type, at: url)
        print("Store: \(store)")
        let context = ManagedObjectContext(coordinator: coordinator)

        func team(_ name: String, _ color: String) throws -> ManagedObject {
            let team = try context.insert(entityName: "Team")
            try team.setValue(name, forKey: "name")
            try team.setValue(color, forKey: "uniformColor")
            return team
        }
        func player(_ first: String, _ last: String, _ team: ManagedObject) throws -> ManagedObject {
            let player = try context.insert(entityName: "Player")
            try player.setValue(first, forKey: "firstName")
            try player.setValue(last, forKey: "lastName")
            try player.setObject(team, forKey: "team")
            return player
        }

        let crew = try team("Crew", "Blue")
        let fire = try team("Fire", "Red")
        _ = try team("Revolution", "Navy")
        _ = try player("Jordan", "Gordon", crew)
        let pat = try player("Pat", "Sprat", crew)
        _ = try player("Bailey", "Staley", crew)
        _ = try player("Terry", "Gary", fire)
        try context.save()
        try printLeague(coordinator, title: "The league after the first save")

        context.delete(pat)
        try context.save()
        try printLeague(coordinator, title: "After deleting Pat Sprat (nullify: Crew keeps its other players)")

        context.delete(fire)
        try context.save()
        try printLeague(coordinator, title: "After deleting Fire (cascade: Terry Gary is deleted too)")
    }

    /// Prints every team with its players, read through a fresh context.
    private func printLeague(_ coordinator: PersistentStoreCoordinator, title: String) throws {
        let context = ManagedObjectContext(coordinator: coordinator)
        let teams = try context.fetch(entityName: "Team")
            .sorted { ($0.value(forKey: "name", as: String.self) ?? "") < ($1.value(forKey: "name", as: String.self) ?? "") }
        print("\n\(title): \(teams.count) teams, \(try context.count(for: FetchRequest(entityName: "Player"))) players")
        for team in teams {
            let name = team.value(forKey: "name", as: String.self) ?? "?"
            let color = team.value(forKey: "uniformColor", as: String.self) ?? "?"
            let players = team.objects(forKey: "players").map {
                "\($0.value(forKey: "firstName", as: String.self) ?? "") \($0.value(forKey: "lastName", as: String.self) ?? "")"
            }.sorted()
            print("  \(name) (\(color)): \(players.isEmpty ? "no players" : players.joined(separator: ", "))")
        }
    }
}
