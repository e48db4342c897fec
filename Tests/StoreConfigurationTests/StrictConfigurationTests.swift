import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// Typos in configuration fail loudly: unknown keys (file, environment, command line), unknown
/// options, option values of the wrong kind, unknown SQLite pragmas.
@Suite struct StrictConfigurationTests {
    private func sources(
        _ text: String, name: String = "stores.yaml", environment: [String: String] = [:], overrides: [String: String] = [:],
        in directory: URL
    ) throws -> StoreConfigurationSources {
        let file = try write(text, to: name, in: directory)
        return try StoreConfigurationSources(file: file, environment: environment, overrides: overrides)
    }

    private func container(
        _ text: String, name: String = "stores.yaml", environment: [String: String] = [:], overrides: [String: String] = [:],
        in directory: URL
    ) throws -> PersistentContainer {
        try sources(text, name: name, environment: environment, overrides: overrides, in: directory)
            .makeContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
    }

    private func filePath(_ directory: URL, _ name: String = "stores.yaml") -> String {
        directory.appendingPathComponent(name).standardizedFileURL.path
    }

    @Test func aMisspeltStoreKeyInTheFileIsAnErrorWithTheClosestKeyAndItsLine() throws {
        try withTemporaryDirectory { directory in
            let error = storeError { _ = try container("persistence:\n  name: League\n  store:\n    tpye: XML\n", in: directory) }
            #expect(error?.code == .coreData)
            let message = error?.message ?? ""
            #expect(message.contains("Unknown configuration key `persistence.store.tpye`"), "\(message)")
            #expect(message.contains("did you mean `persistence.store.type`?"), "\(message)")
            #expect(message.contains("\(filePath(directory)), line 4"), "\(message)")
        }
    }

    @Test func aMisspeltContainerKeyOrSectionIsAnError() throws {
        try withTemporaryDirectory { directory in
            let folder = storeError { _ = try container("persistence:\n  fodler: data\n", in: directory) }
            #expect(folder?.message.contains("did you mean `persistence.folder`?") == true, "\(folder?.message ?? "")")
            let section = storeError { _ = try container("persistence:\n  stroe:\n    type: XML\n", in: directory) }
            #expect(section?.message.contains("`persistence.stroe.type`") == true, "\(section?.message ?? "")")
            #expect(section?.message.contains("did you mean `persistence.store.type`?") == true, "\(section?.message ?? "")")
        }
    }

    @Test func aMisspeltKeyInAJSONFileIsAnError() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container(#"{"persistence": {"store": {"type": "XML", "readOnyl": true}}}"#, name: "stores.json", in: directory)
            }
            #expect(error?.message.contains("`persistence.store.readOnyl`") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("did you mean `persistence.store.readOnly`?") == true)
            #expect(error?.message.contains(filePath(directory, "stores.json")) == true)
        }
    }

    @Test func keysOfListedStoresAndOtherPrefixesAreAccepted() throws {
        try withTemporaryDirectory { directory in
            let container = try container(
                "other:\n  anything: 1\npersistence:\n  stores: [main]\n  main:\n    type: XML\n    readOnly: false\n",
                environment: ["PERSISTENCE_MAIN_TYPE": "Binary", "PERSISTENCE_CONFIG_FILE": "", "HOME": "/tmp"], in: directory)
            #expect(container.persistentStoreDescriptions.map(\.type) == ["Binary"])
        }
    }

    @Test func aMisspeltEnvironmentVariableIsAnError() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: XML\n", environment: ["PERSISTENCE_STORE_TPYE": "Binary"], in: directory)
            }
            #expect(error?.message.contains("PERSISTENCE_STORE_TPYE") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("did you mean PERSISTENCE_STORE_TYPE?") == true, "\(error?.message ?? "")")
        }
    }

    @Test func aMisspeltOverrideIsAnError() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: XML\n", overrides: ["persistence.store.pth": "x.xml"], in: directory)
            }
            #expect(error?.message.contains("`persistence.store.pth` in command-line options") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("did you mean `persistence.store.path`?") == true)
        }
    }

    @Test func anUnknownOptionKeyIsAnErrorNamingTheStoreTypesOptions() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container(
                    "persistence:\n  store:\n    type: SQLite\n    options: [NSReadOnlyPersistentStoreOptoin=true]\n", in: directory)
            }
            let message = error?.message ?? ""
            #expect(message.contains("`persistence.store.options`"), "\(message)")
            #expect(message.contains("no store type has an option \"NSReadOnlyPersistentStoreOptoin\""), "\(message)")
            #expect(message.contains("did you mean \"NSReadOnlyPersistentStoreOption\"?"), "\(message)")
            #expect(message.contains("PersistentStoresSQLiteReadConnectionsOption"), "\(message)")
            #expect(message.contains("\(filePath(directory)), line 4"), "\(message)")
        }
    }

    @Test func anOptionOfAnotherStoreTypeIsCheckedAndKeptSoTheTypeAloneSwitchesTheBackend() throws {
        try withTemporaryDirectory { directory in
            let container = try container(
                "persistence:\n  store:\n    type: XML\n    timeout: 5\n    options: [PersistentStores.Binary.Compression=9]\n",
                in: directory)
            #expect(container.persistentStoreDescriptions.first?.options["PersistentStores.Binary.Compression"] == .int(9))
            let error = storeError {
                _ = try self.container(
                    "persistence:\n  store:\n    type: XML\n    options: [PersistentStores.Binary.Compression=11]\n", in: directory)
            }
            #expect(error?.message.contains("is not true, false or a whole number from 0 to 9") == true, "\(error?.message ?? "")")
        }
    }

    @Test(arguments: [
        ("NSReadOnlyPersistentStoreOption=maybe", "is not true or false"),
        ("PersistentStoresSQLiteReadConnectionsOption=many", "is not a whole number"),
        ("PersistentStores.MaximumFileSize=-5", "is not a whole number above 0"),
        ("NSPersistentStoreTimeoutOption=-1", "is not a number, 0 or more"),
    ])
    func anOptionValueOfTheWrongKindIsAnError(entry: String, problem: String) throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: SQLite\n    options: [\(entry)]\n", in: directory)
            }
            let message = error?.message ?? ""
            #expect(message.contains(problem), "\(message)")
            #expect(message.contains("`persistence.store.options`"), "\(message)")
            #expect(message.contains(filePath(directory)), "\(message)")
        }
    }

    @Test func optionValuesAreReadAsTheirOptionsKind() throws {
        try withTemporaryDirectory { directory in
            let container = try container(
                "persistence:\n  store:\n    type: Binary\n    options: [PersistentStores.Binary.Compression=9, NSReadOnlyPersistentStoreOption=true]\n",
                in: directory)
            let options = container.persistentStoreDescriptions.first?.options ?? [:]
            #expect(options["PersistentStores.Binary.Compression"] == .int(9))
            #expect(options[StoreOptionKey.readOnly] == .bool(true))
            let level = storeError {
                _ = try self.container(
                    "persistence:\n  store:\n    type: Binary\n    options: [PersistentStores.Binary.Compression=12]\n", in: directory)
            }
            #expect(level?.message.contains("is not true, false or a whole number from 0 to 9") == true)
        }
    }

    @Test func aStoreTypeThatDoesNotListItsOptionsTakesAnyOption() throws {
        try withTemporaryDirectory { directory in
            let container = try container("persistence:\n  store:\n    type: JSONFile\n    options: [MyOwnOption=3]\n", in: directory)
            #expect(container.persistentStoreDescriptions.first?.options["MyOwnOption"] == .int(3))
        }
    }

    @Test(arguments: ["-1", "-0.5", ".inf", ".nan"])
    func aTimeoutThatIsNotZeroOrMoreSecondsIsAnError(timeout: String) throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: SQLite\n    timeout: \(timeout)\n", in: directory)
            }
            let message = error?.message ?? ""
            #expect(message.contains("`persistence.store.timeout`"), "\(message)")
            #expect(message.contains("is not a number of seconds, 0 or more"), "\(message)")
            #expect(message.contains("\(filePath(directory)), line 4"), "\(message)")
        }
    }

    @Test func aTimeoutFromTheEnvironmentIsCheckedToo() throws {
        try withTemporaryDirectory { directory in
            let error = storeError {
                _ = try container("persistence:\n  store:\n    type: SQLite\n", environment: ["PERSISTENCE_STORE_TIMEOUT": "-3"], in: directory)
            }
            #expect(error?.message.contains("EnvironmentVariablesProvider") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("is not a number of seconds, 0 or more") == true)
        }
    }

    @Test func anUnknownSQLitePragmaIsRefusedWhenTheStoreIsAdded() throws {
        try withTemporaryDirectory { directory in
            let container = try container(
                "persistence:\n  folder: .\n  store:\n    type: SQLite\n    pragmas: [cache_sizes=-8000]\n", in: directory)
            let error = storeError { try container.loadPersistentStores() }
            #expect(error?.message.contains("Unknown SQLite pragma \"cache_sizes\"") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("did you mean \"cache_size\"?") == true, "\(error?.message ?? "")")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["stores.yaml"])
        }
    }

    @Test func theSQLiteStoreChecksItsOptionsWhenMadeInCode() throws {
        try withTemporaryDirectory { directory in
            let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registryWithCustomType())
            let url = directory.appendingPathComponent("League.sqlite")
            let pragma = storeError {
                _ = try coordinator.addPersistentStore(
                    type: "SQLite", at: url, options: [SQLiteOptionKey.pragmas: .dictionary(["synchronus": .string("FULL")])])
            }
            #expect(pragma?.message.contains("did you mean \"synchronous\"?") == true, "\(pragma?.message ?? "")")
            let timeout = storeError {
                _ = try coordinator.addPersistentStore(type: "SQLite", at: url, options: [SQLiteOptionKey.timeout: .double(-1)])
            }
            #expect(timeout?.message.contains("must be a number of seconds, 0 or more") == true, "\(timeout?.message ?? "")")
            // Known pragmas and a zero timeout are fine.
            _ = try coordinator.addPersistentStore(
                type: "SQLite", at: url,
                options: [SQLiteOptionKey.pragmas: .dictionary(["synchronous": .string("FULL")]), SQLiteOptionKey.timeout: .int(0)])
        }
    }

    @Test func anUnregisteredTypeNamesTheRegisteredOnesAndTheLine() throws {
        try withTemporaryDirectory { directory in
            let error = storeError { _ = try container("persistence:\n  store:\n    type: Cassandra\n", in: directory) }
            #expect(error?.message.contains("registered types: Binary, InMemory, JSONFile, PipeCSV, PostgreSQL, SQLite, XML") == true)
            #expect(error?.message.contains("\(filePath(directory)), line 3") == true, "\(error?.message ?? "")")
        }
    }
}
