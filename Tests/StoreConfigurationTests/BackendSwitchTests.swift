import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// One program, every backend: only a value in the configuration file, or only an environment
/// variable, changes between runs.
@Suite struct BackendSwitchTests {
    @Test(arguments: everyStoreType)
    func switchingOnlyTheFileValue(type: String) throws {
        try withTemporaryDirectory { directory in
            let example = text(of: exampleConfiguration)
            #expect(example.components(separatedBy: "    type: SQLite\n").count == 2)
            let file = try write(
                example.replacingOccurrences(of: "    type: SQLite\n", with: "    type: \(type)\n"), to: "stores.yaml",
                in: directory)
            let (description, players) = try runLeagueProgram(
                { try StoreConfigurationSources(file: file, environment: [:]) }, registry: registryWithCustomType())
            #expect(description.type == type)
            #expect(players == 2)
            try expectStoreFile(description, type: type, in: directory)
        }
    }

    @Test(arguments: everyStoreType)
    func switchingOnlyTheEnvironmentVariable(type: String) throws {
        try withTemporaryDirectory { directory in
            let file = try write(text(of: exampleConfiguration), to: "stores.yaml", in: directory)
            let environment = ["PERSISTENCE_STORE_TYPE": type]
            let (description, players) = try runLeagueProgram(
                { try StoreConfigurationSources(file: file, environment: environment) }, registry: registryWithCustomType())
            #expect(description.type == type)
            #expect(players == 2)
            try expectStoreFile(description, type: type, in: directory)
        }
    }

    /// A store on a server is described by its connection URI (`url`) instead of a file.
    @Test func aPostgreSQLStoreIsDescribedByItsURL() throws {
        try withTemporaryDirectory { directory in
            let url = try TestPostgreSQLServer.freshStoreURL("config").absoluteString
            let file = try write(
                """
                persistence:
                  name: League
                  store:
                    type: PostgreSQL
                    url: "\(url)"
                """, to: "stores.yaml", in: directory)
            let (description, players) = try runLeagueProgram(
                { try StoreConfigurationSources(file: file, environment: [:]) }, registry: registryWithCustomType())
            #expect(description.type == "PostgreSQL")
            #expect(description.url?.absoluteString == url)
            #expect(players == 2)
            // The same through the environment alone.
            let environment = ["PERSISTENCE_NAME": "League", "PERSISTENCE_STORE_TYPE": "PostgreSQL", "PERSISTENCE_STORE_URL": url]
            let (fromEnvironment, again) = try runLeagueProgram(
                { try StoreConfigurationSources(file: nil, environment: environment) }, registry: registryWithCustomType())
            #expect(fromEnvironment.type == "PostgreSQL")
            #expect(again == 4)
        }
    }

    @Test func theEnvironmentAloneNamesTheConfigurationFile() throws {
        try withTemporaryDirectory { directory in
            let file = try write(text(of: exampleConfiguration), to: "stores.yaml", in: directory)
            let sources = try StoreConfigurationSources(environment: ["PERSISTENCE_CONFIG_FILE": file.path])
            #expect(sources.fileURL == file.standardizedFileURL)
            let container = try sources.makeContainer(model: try leagueModel(), registry: registryWithCustomType())
            #expect(container.persistentStoreDescriptions.first?.url?.path
                == directory.appendingPathComponent("data/League.sqlite").standardizedFileURL.path)
        }
    }

    @Test func theCommandLineBeatsTheEnvironmentWhichBeatsTheFileWhichBeatsTheDefaults() throws {
        try withTemporaryDirectory { directory in
            let file = try write(text(of: exampleConfiguration), to: "stores.yaml", in: directory)
            func type(overrides: [String: String], environment: [String: String], file: URL?) throws -> String? {
                let sources = try StoreConfigurationSources(
                    file: file, environment: environment, overrides: overrides,
                    defaults: ["persistence.store.type": "PipeCSV", "persistence.folder": directory.path])
                return try sources.makeContainer(name: "League", model: try leagueModel()).persistentStoreDescriptions.first?.type
            }
            PersistentStores.registerBuiltInStoreTypes()
            let cli = ["persistence.store.type": "Binary"]
            let env = ["PERSISTENCE_STORE_TYPE": "XML"]
            #expect(try type(overrides: cli, environment: env, file: file) == "Binary")
            #expect(try type(overrides: [:], environment: env, file: file) == "XML")
            #expect(try type(overrides: [:], environment: [:], file: file) == "SQLite")
            #expect(try type(overrides: [:], environment: [:], file: nil) == "PipeCSV")
        }
    }

    @Test func theReadmeQuotesTheExampleConfigurationVerbatim() throws {
        let readme = text(of: repositoryRoot.appendingPathComponent("README.md"))
        let example = text(of: exampleConfiguration)
        #expect(!example.isEmpty)
        #expect(readme.contains("## Choose a backend by configuration"))
        #expect(readme.contains("```yaml\n" + example + "```"))
    }

    @Test func severalStoresWithConfigurationsInOneFile() throws {
        try withTemporaryDirectory { directory in
            let example = repositoryRoot.appendingPathComponent("Examples/Configuration/several-stores.yaml")
            let file = try write(text(of: example), to: "stores.yaml", in: directory)
            let registry = registryWithCustomType()
            let sources = try StoreConfigurationSources(file: file, environment: ["PERSISTENCE_LEAGUE_TYPE": "XML"])
            let container = try sources.makeContainer(model: try leagueModel(), registry: registry)
            let descriptions = container.persistentStoreDescriptions
            #expect(descriptions.map(\.type) == ["XML", "InMemory"])
            #expect(descriptions.map(\.configuration) == ["League", "Scratch"])
            #expect(descriptions.first?.url?.path == directory.appendingPathComponent("data/league.sqlite").standardizedFileURL.path)
            #expect(descriptions.last?.url == nil)
            try container.loadPersistentStores()
            let context = container.viewContext
            let team = try context.insert(entityName: "Team")
            try team.setValue("Crew", forKey: "name")
            let note = try context.insert(entityName: "Note")
            try note.setValue("remember", forKey: "text")
            try context.save()
            let stores = container.persistentStoreCoordinator.persistentStores
            #expect(team.objectID.storeIdentifier == stores.first?.identifier)
            #expect(note.objectID.storeIdentifier == stores.last?.identifier)
        }
    }

    @Test func theModelFileIsNamedRelativeToTheConfigurationFile() throws {
        try withTemporaryDirectory { directory in
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("models"), withIntermediateDirectories: true)
            try leagueModel().writeJSON(to: directory.appendingPathComponent("models/League.json"))
            let file = try write(
                "persistence:\n  name: League\n  model: models/League.json\n  store:\n    type: InMemory\n", to: "stores.yaml",
                in: directory)
            let container = try StoreConfigurationSources(file: file, environment: [:]).makeContainer(registry: registryWithCustomType())
            #expect(container.name == "League")
            #expect(container.managedObjectModel == (try leagueModel()))
            #expect(container.persistentStoreDescriptions.map(\.type) == ["InMemory"])
            let noModel = try write("persistence:\n  name: League\n", to: "nomodel.yaml", in: directory)
            let error = storeError { _ = try StoreConfigurationSources(file: noModel, environment: [:]).makeContainer() }
            #expect(error?.message.contains("Missing configuration key `persistence.model` (environment variable PERSISTENCE_MODEL)") == true)
        }
    }

    /// A store that keeps a file has it at `<config folder>/data/League.<type>`; InMemory none.
    private func expectStoreFile(_ description: StoreDescription, type: String, in directory: URL) throws {
        if type == "InMemory" {
            #expect(description.url == nil)
            return
        }
        let expected = directory.appendingPathComponent("data/League.\(type.lowercased())").standardizedFileURL
        #expect(description.url?.standardizedFileURL.path == expected.path)
        #expect(FileManager.default.fileExists(atPath: expected.path))
    }
}
