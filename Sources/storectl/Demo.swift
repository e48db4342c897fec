import ArgumentParser
import Foundation
import PersistentStores

/// `storectl demo`: the League scenario (behaviour #21): three teams, four players, then
/// deleting a player (nullify) and a team (cascade), printing the league after each step.
///
/// The store comes from configuration like any program's: `--type`/`--path` > the
/// `PERSISTENCE_*` environment variables > the `--config` file > a new temporary folder, so
/// `storectl demo` with nothing configured runs on a fresh SQLite store and leaves nothing behind
/// in the user's folders. The last line shows how to switch it to another backend.
///
/// Run again on a store that already holds a league, the demo reuses its teams and players
/// (matched by name), inserts only the missing ones and deletes Pat Sprat and Fire again, so it
/// ends with the same league every time and never adds a second copy.
struct Demo: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the League demo: insert teams and players, delete with nullify and cascade rules.")

    @Option(name: .long, help: "A YAML or JSON configuration file (default: $PERSISTENCE_CONFIG_FILE).")
    var config: String?

    @Option(name: .long, help: "The store type (see `storectl types`); overrides the configuration.")
    var type: String?

    @Option(name: .long, help: "The store file; overrides the configuration (default: a new temporary folder).")
    var path: String?

    /// The League model.
    static func leagueModel() throws -> ObjectModel {
        try ObjectModel {
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
    }

    func run() throws {
        let console = Console.current
        PersistentStores.registerBuiltInStoreTypes()
        let prefix = StoreConfigurationSources.defaultKeyPrefix
        var overrides: [String: String] = [:]
        if let type { overrides["\(prefix).store.type"] = type }
        if let path { overrides["\(prefix).store.path"] = absolutePath(path) }
        let temporary = FileManager.default.temporaryDirectory.appendingPathComponent("storectl-demo-\(UUID().uuidString)")
        let sources = try StoreConfigurationSources(
            file: config.map { URL(fileURLWithPath: $0) }, overrides: overrides,
            defaults: ["\(prefix).name": "League", "\(prefix).folder": temporary.path])
        let container = try sources.makeContainer(name: "League", model: try Self.leagueModel())
        try container.loadPersistentStores()
        for store in container.persistentStoreCoordinator.persistentStores {
            console.print("Store: \(store)")
            if store.url != nil, let storeClass = StoreRegistry.shared.storeType(named: store.type),
                !storeClass.capabilities.contains(.persistent)
            {
                // Like Core Data's in-memory store, a store that keeps nothing takes a URL only
                // as its name; say so rather than let the user look for a file.
                console.print("  (\(store.type) stores keep nothing: the path only names this one, no file is written)")
            }
        }
        let context = container.viewContext

        // Run again on the same store, the demo reuses the teams and players already there
        // (matched by name) and inserts only the missing ones, so the league is never doubled
        // and the delete steps below act on the same objects every time.
        let existingTeams = try context.fetch(entityName: "Team")
        let existingPlayers = try context.fetch(entityName: "Player")
        if !existingTeams.isEmpty || !existingPlayers.isEmpty {
            console.print(
                "Reusing the league already in the store (\(existingTeams.count) teams, \(existingPlayers.count) players); adding what is missing")
        }
        func team(_ name: String, _ color: String) throws -> ManagedObject {
            if let found = existingTeams.first(where: { $0.value(forKey: "name", as: String.self) == name }) { return found }
            let team = try context.insert(entityName: "Team")
            try team.setValue(name, forKey: "name")
            try team.setValue(color, forKey: "uniformColor")
            return team
        }
        func player(_ first: String, _ last: String, _ team: ManagedObject) throws -> ManagedObject {
            if let found = existingPlayers.first(where: {
                $0.value(forKey: "firstName", as: String.self) == first && $0.value(forKey: "lastName", as: String.self) == last
            }) {
                return found
            }
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
        try printLeague(container, title: "The league after the first save")

        context.delete(pat)
        try context.save()
        try printLeague(container, title: "After deleting Pat Sprat (nullify: Crew keeps its other players)")

        context.delete(fire)
        try context.save()
        try printLeague(container, title: "After deleting Fire (cascade: Terry Gary is deleted too)")

        let current = container.persistentStoreDescriptions.first?.type ?? "SQLite"
        let other = current == "XML" ? "SQLite" : "XML"
        let variable = sources.environmentVariable(for: "store.type")
        let fileHint = sources.fileURL.map { " (or set type: \(other) under \(prefix).store in \($0.path))" } ?? ""
        let configArgument = config.map { " --config \($0)" } ?? ""
        console.print("\nTo switch backend: \(variable)=\(other) swift run storectl demo\(configArgument)\(fileHint)")
    }

    /// Prints every team with its players, read through a fresh context.
    private func printLeague(_ container: PersistentContainer, title: String) throws {
        let console = Console.current
        let context = container.newBackgroundContext()
        let teams = try context.fetch(entityName: "Team")
            .sorted { ($0.value(forKey: "name", as: String.self) ?? "") < ($1.value(forKey: "name", as: String.self) ?? "") }
        console.print("\n\(title): \(teams.count) teams, \(try context.count(for: FetchRequest(entityName: "Player"))) players")
        for team in teams {
            let name = team.value(forKey: "name", as: String.self) ?? "?"
            let color = team.value(forKey: "uniformColor", as: String.self) ?? "?"
            let players = team.objects(forKey: "players").map {
                "\($0.value(forKey: "firstName", as: String.self) ?? "") \($0.value(forKey: "lastName", as: String.self) ?? "")"
            }.sorted()
            console.print("  \(name) (\(color)): \(players.isEmpty ? "no players" : players.joined(separator: ", "))")
        }
    }
}
