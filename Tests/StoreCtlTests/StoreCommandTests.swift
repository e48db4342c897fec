import CSQLite
import Foundation
import JSONFileStore
import PersistentStores
import StoreTestSupport
import Testing

/// Each subcommand on each store type that keeps a file: the demo writes the league, then
/// info, dump, query and validate read it back (type sniffed from the file).
@Suite struct StoreCommandTests {
    static let fileTypes = ["SQLite", "Binary", "XML", "PipeCSV", "JSONFile"]

    init() {
        PersistentStores.registerBuiltInStoreTypes()
        StoreRegistry.shared.register(JSONFileStore.self)
    }

    /// Runs the demo on `type` into `directory` and returns the store file.
    private func league(_ type: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(fileName(for: type))
        let demo = storectl("demo", "--type", type, "--path", url.path)
        #expect(demo.status == 0, "\(demo.errors)")
        #expect(demo.output.contains("After deleting Fire (cascade: Terry Gary is deleted too): 2 teams, 2 players"))
        return url
    }

    @Test(arguments: fileTypes + ["InMemory"])
    func demoRunsOnEveryTypeAndSaysHowToSwitch(type: String) throws {
        try withTemporaryDirectory { directory in
            let arguments = type == "InMemory" ? ["demo", "--type", type] : ["demo", "--type", type, "--path", directory.appendingPathComponent(fileName(for: type)).path]
            let run = storectl(arguments)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("Store: \(type) store"))
            #expect(run.output.contains("  Crew (Blue): Bailey Staley, Jordan Gordon"))
            let last = lines(run.output).last ?? ""
            #expect(last.hasPrefix("To switch backend: PERSISTENCE_STORE_TYPE=\(type == "XML" ? "SQLite" : "XML") swift run storectl demo"))
        }
    }

    @Test(arguments: fileTypes)
    func demoRunTwiceOnTheSameFileReusesTheLeague(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = try league(type, in: directory)
            let again = storectl("demo", "--type", type, "--path", url.path)
            #expect(again.status == 0, "\(again.errors)")
            #expect(again.output.contains("Reusing the league already in the store (2 teams, 2 players)"))
            #expect(again.output.contains("The league after the first save: 3 teams, 4 players"))
            #expect(again.output.contains("After deleting Fire (cascade: Terry Gary is deleted too): 2 teams, 2 players"))
            #expect(again.output.contains("  Crew (Blue): Bailey Staley, Jordan Gordon"))
        }
    }

    @Test func demoOnInMemoryWithAPathSaysNoFileIsWritten() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("league.inmemory")
            let run = storectl("demo", "--type", "InMemory", "--path", url.path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("Store: InMemory store"))
            #expect(run.output.contains("(InMemory stores keep nothing: the path only names this one, no file is written)"))
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test(arguments: fileTypes)
    func infoSniffsTheTypeAndCountsTheEntities(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = try league(type, in: directory)
            let run = storectl("info", url.path)
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("Type:         \(type)\n"))
            #expect(run.output.contains("Store:        \(url.path)"))
            #expect(run.output.range(of: #"UUID:         [0-9A-F-]{36}"#, options: .regularExpression) != nil)
            #expect(run.output.contains("File size:    \(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? -1) bytes"))
            #expect(run.output.contains("  Player  2\n"))
            #expect(run.output.contains("  Team    2\n"))
            let hash = try leagueHash(of: "Team", in: url, type: type)
            #expect(run.output.contains("  Team    \(hash)"))
        }
    }

    @Test(arguments: fileTypes)
    func dumpPrintsEveryObjectAsATableOrJSON(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = try league(type, in: directory)
            let table = storectl("dump", url.path)
            #expect(table.status == 0, "\(table.errors)")
            #expect(table.output.contains("Player (2 objects)"))
            #expect(table.output.contains("Team (2 objects)"))
            #expect(table.output.contains("Revolution"))
            #expect(table.output.range(of: #"Crew +Blue +\[[^\]]+, [^\]]+\]"#, options: .regularExpression) != nil)
            let json = storectl("dump", url.path, "--entity", "Player", "--format", "json", "--quiet")
            #expect(json.status == 0, "\(json.errors)")
            #expect(json.errors.isEmpty)
            let document = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: [[String: Any]]]
            let players = try #require(document?["Player"])
            #expect(Set(players.compactMap { $0["lastName"] as? String }) == ["Gordon", "Staley"])
            #expect(players.allSatisfy { ($0["team"] as? String)?.hasPrefix("x-coredata://") == true })
            #expect(document?["Team"] == nil)
        }
    }

    @Test(arguments: fileTypes)
    func queryFiltersSortsAndLimits(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = try league(type, in: directory)
            let gordon = storectl("query", url.path, "--entity", "Player", "--where", "lastName BEGINSWITH 'G'")
            #expect(gordon.status == 0, "\(gordon.errors)")
            #expect(gordon.output.contains("Player (1 object)"))
            #expect(gordon.output.contains("Jordan"))
            #expect(!gordon.output.contains("Bailey"))
            let last = storectl(
                "query", url.path, "--entity", "Player", "--where", "team.name == 'Crew'", "--sort", "lastName:desc", "--limit", "1",
                "--format", "json")
            #expect(last.status == 0, "\(last.errors)")
            let document = try JSONSerialization.jsonObject(with: Data(last.output.utf8)) as? [String: [[String: Any]]]
            #expect(document?["Player"]?.compactMap { $0["lastName"] as? String } == ["Staley"])
        }
    }

    @Test(arguments: fileTypes)
    func validateFindsNoProblemInAStoreTheFrameworkWrote(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = try league(type, in: directory)
            let run = storectl("validate", url.path)
            #expect(run.status == 0, "\(run.output)\(run.errors)")
            #expect(lines(run.output).last == "4 objects checked, 0 problems")
            #expect(run.errors.contains("Validating: 4/4"))
        }
    }

    @Test(arguments: fileTypes)
    func everyCommandReadsTheStoreFromAConfigurationFile(type: String) throws {
        try withTemporaryDirectory { directory in
            _ = try league(type, in: directory)
            let config = directory.appendingPathComponent("stores.yaml")
            try Data("persistence:\n  store:\n    type: \(type)\n    path: \(fileName(for: type))\n".utf8).write(to: config)
            let info = storectl("info", "--config", config.path)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         \(type)\n"))
            let dump = storectl("dump", "--config", config.path, "--entity", "Team")
            #expect(dump.output.contains("Team (2 objects)"))
            let query = storectl("query", "--config", config.path, "--entity", "Team", "--where", "name == 'Crew'")
            #expect(query.output.contains("Team (1 object)"))
            let validate = storectl("validate", "--config", config.path, "--quiet")
            #expect(validate.status == 0)
            #expect(validate.errors.isEmpty)
        }
    }

    @Test func validateReportsBrokenInversesAndRuleViolations() throws {
        try withTemporaryDirectory { directory in
            let model = directory.appendingPathComponent("League.json")
            try leagueModel(requiredLastName: true).writeJSON(to: model)
            let store = directory.appendingPathComponent("broken.txt")
            try Data("""
                Team|T1|name=Crew|players=P1
                Player|P1|firstName=Jordan|lastName=Gordon|team=T1
                Player|P2|firstName=Pat|team=T1

                """.utf8).write(to: store)
            let run = storectl("validate", store.path, "--type", "PipeCSV", "--model", model.path, "--quiet")
            #expect(run.status == 1)
            #expect(run.errors.isEmpty, "\(run.errors)")
            let output = run.output
            #expect(output.contains("Player sP2 team: points to"), "\(output)")
            #expect(output.contains("whose inverse players does not point back"), "\(output)")
            #expect(output.contains("Player sP2 lastName:"), "\(output)")
            #expect(output.contains("(1570)"), "\(output)")
            #expect(lines(output).last?.hasSuffix("problems") == true)
        }
    }

    /// The base64 version hash the store's metadata records for `entity`.
    private func leagueHash(of entity: String, in url: URL, type: String) throws -> String {
        let storeClass = try StoreRegistry.shared.requireStoreType(named: type)
        let metadata = try storeClass.metadata(forStoreAt: url, options: [:])
        return metadata[MetadataKey.versionHashes]?.dictionaryValue?[entity]?.dataValue?.base64EncodedString() ?? "?"
    }
}

/// A reference to a row that does not exist, written behind the framework's back.
@Suite struct DanglingReferenceTests {
    @Test func validateReportsAReferenceToAMissingObject() throws {
        try withTemporaryDirectory { directory in
            PersistentStores.registerBuiltInStoreTypes()
            let url = directory.appendingPathComponent("League.sqlite")
            #expect(storectl("demo", "--path", url.path).status == 0)
            var database: OpaquePointer?
            #expect(sqlite3_open(url.path, &database) == SQLITE_OK)
            #expect(sqlite3_exec(database, "UPDATE ZPLAYER SET ZTEAM = 99 WHERE ZLASTNAME = 'Gordon'", nil, nil, nil) == SQLITE_OK)
            sqlite3_close(database)
            let run = storectl("validate", url.path, "--quiet")
            #expect(run.status == 1)
            #expect(run.output.contains("team: points to x-coredata://"), "\(run.output)\(run.errors)")
            #expect(run.output.contains("/Team/p99, which does not exist"), "\(run.output)")
            #expect(lines(run.output).last == "4 objects checked, 1 problem")
        }
    }
}
