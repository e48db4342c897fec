import Configuration
import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// Mistakes a user makes in configuration, and what they are told.
@Suite struct ConfigurationErrorTests {
    private func container(_ yaml: String, environment: [String: String] = [:], in directory: URL) throws -> PersistentContainer {
        let file = try write(yaml, to: "stores.yaml", in: directory)
        return try StoreConfigurationSources(file: file, environment: environment)
            .makeContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
    }

    @Test func anUnknownTypeListsTheRegisteredTypesAndTheClosestMatch() throws {
        try withTemporaryDirectory { directory in
            let error = storeError { _ = try container("persistence:\n  store:\n    type: SQlite3\n", in: directory) }
            #expect(error?.code == .persistentStoreInvalidType)
            let message = error?.message ?? ""
            #expect(message.contains("`persistence.store.type`"))
            #expect(message.contains("PERSISTENCE_STORE_TYPE"))
            #expect(message.contains("did you mean \"SQLite\"?"))
            #expect(message.contains("Binary, InMemory, JSONFile, PipeCSV, PostgreSQL, SQLite, XML"))
        }
    }

    @Test func anUnknownTypeFarFromEveryNameSuggestsNothing() throws {
        let registry = registryWithCustomType()
        let error = registry.unknownStoreTypeError("Cassandra")
        #expect(!error.message.contains("did you mean"))
        #expect(error.message.contains("registered types: Binary, InMemory"))
    }

    @Test func anUnknownTypeFromTheEnvironmentIsNamedToo() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: SQLite\n", environment: ["PERSISTENCE_STORE_TYPE": "xml"], in: directory)
            }
            #expect(error?.message.contains("did you mean \"XML\"?") == true)
        }
    }

    @Test func aMissingTypeNamesTheKeyAndItsEnvironmentVariable() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  stores: [main]\n  main:\n    path: main.sqlite\n", in: directory)
            }
            let message = error?.message ?? ""
            #expect(message.contains("Missing configuration key `persistence.main.type`"))
            #expect(message.contains("PERSISTENCE_MAIN_TYPE"))
            #expect(message.contains(directory.appendingPathComponent("stores.yaml").standardizedFileURL.path))
        }
    }

    @Test func aWrongTypedValueNamesTheKeyTheValueAndTheFile() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: SQLite\n    readOnly: maybe\n", in: directory)
            }
            let message = error?.message ?? ""
            #expect(message.contains("`persistence.store.readOnly`"))
            #expect(message.contains("PERSISTENCE_STORE_READ_ONLY"))
            #expect(message.contains("\"maybe\" is not true or false"))
            #expect(message.contains(directory.appendingPathComponent("stores.yaml").standardizedFileURL.path))
        }
    }

    @Test func aWrongTypedValueInTheEnvironmentNamesTheEnvironment() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container(
                    "persistence:\n  store:\n    type: SQLite\n", environment: ["PERSISTENCE_STORE_TIMEOUT": "soon"], in: directory)
            }
            #expect(error?.message.contains("`persistence.store.timeout`") == true)
            #expect(error?.message.contains("EnvironmentVariablesProvider") == true)
            #expect(error?.message.contains("is not a number") == true)
        }
    }

    @Test func aMalformedOrMissingFileIsNamed() throws {
        try withTemporaryDirectory { directory in
            let bad = try write("persistence: [unclosed\n", to: "bad.yaml", in: directory)
            let malformed = storeError { _ = try StoreConfigurationSources(file: bad, environment: [:]) }
            #expect(malformed?.message.contains(bad.standardizedFileURL.path) == true)
            #expect(malformed?.message.contains("malformed") == true)
            let missing = directory.appendingPathComponent("absent.yaml")
            let absent = storeError { _ = try StoreConfigurationSources(file: missing, environment: [:]) }
            #expect(absent?.message.contains("there is no such file") == true)
            #expect(absent?.message.contains(missing.path) == true)
        }
    }

    @Test func badStoreNamesAndOptionsAreRefused() throws {
        try withTemporaryDirectory { directory in
            let reserved = storeError { _ = try container("persistence:\n  stores: [model]\n", in: directory) }
            #expect(reserved?.message.contains("\"model\" cannot name a store") == true)
            let twice = storeError {
                _ = try container("persistence:\n  stores: [a, a]\n  a:\n    type: InMemory\n", in: directory)
            }
            #expect(twice?.message.contains("listed twice") == true)
            let option = storeError {
                _ = try container("persistence:\n  store:\n    type: SQLite\n    options: [novalue]\n", in: directory)
            }
            #expect(option?.message.contains("\"novalue\" is not of the form name=value") == true)
        }
    }

    @Test func optionsPragmasAndFlagsBecomeStoreOptions() throws {
        try withTemporaryDirectory { directory in
            // A custom type that does not list its options takes any (a built-in one refuses
            // keys no type lists: StrictConfigurationTests).
            let yaml = """
                persistence:
                  store:
                    type: JSONFile
                    path: /tmp/elsewhere/x.sqlite
                    readOnly: true
                    migrateAutomatically: true
                    inferMappingModel: true
                    timeout: 2.5
                    pragmas: ["journal_mode=DELETE", "cache_size = -8000"]
                    options: ["Custom.Flag=true", "Custom.Count=3", "Custom.Ratio=0.5", "Custom.Name=x=y"]

                """
            let description = try #require(try container(yaml, in: directory).persistentStoreDescriptions.first)
            #expect(description.url?.path == "/tmp/elsewhere/x.sqlite")
            #expect(description.isReadOnly)
            #expect(description.shouldMigrateStoreAutomatically)
            #expect(description.shouldInferMappingModelAutomatically)
            #expect(description.options["NSPersistentStoreTimeoutOption"] == .double(2.5))
            #expect(description.options["NSSQLitePragmasOption"] == .dictionary(["journal_mode": "DELETE", "cache_size": "-8000"]))
            #expect(description.options["Custom.Flag"] == .bool(true))
            #expect(description.options["Custom.Count"] == .int(3))
            #expect(description.options["Custom.Ratio"] == .double(0.5))
            #expect(description.options["Custom.Name"] == .string("x=y"))
        }
    }

    @Test func aJSONFileWorksLikeYAMLAndAPlainReaderToo() throws {
        try withTemporaryDirectory { directory in
            let file = try write(
                #"{"persistence": {"store": {"type": "XML", "path": "league.xml", "readOnly": false}}}"#, to: "stores.json",
                in: directory)
            let reader = ConfigReader(provider: try ConfigFileProvider(url: file))
            let description = try StoreDescription(config: reader.scoped(to: "persistence.store"), registry: registryWithCustomType())
            #expect(description.type == "XML")
            #expect(description.url?.path == directory.appendingPathComponent("league.xml").standardizedFileURL.path)
            #expect(!description.isReadOnly)
            let missing = storeError { _ = try StoreDescription(config: reader.scoped(to: "nothing"), registry: registryWithCustomType()) }
            #expect(missing?.message.contains("Missing configuration key `type`") == true)
        }
    }
}
