import Foundation
import JSONFileStore
import PersistentStores
import StoreTestSupport
import Testing

/// `storectl copy`: a league written by the demo, copied to every other file type and read back.
@Suite struct CopyCommandTests {
    init() {
        PersistentStores.registerBuiltInStoreTypes()
        StoreRegistry.shared.register(JSONFileStore.self)
    }

    @Test(arguments: [("SQLite", "XML"), ("XML", "Binary"), ("Binary", "PipeCSV"), ("PipeCSV", "JSONFile"), ("JSONFile", "SQLite")])
    func copyMovesTheLeagueToAnotherType(from: String, to: String) throws {
        try withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent(fileName(for: from))
            let demo = storectl("demo", "--type", from, "--path", source.path)
            #expect(demo.status == 0, "\(demo.errors)")
            let before = try Data(contentsOf: source)
            let target = directory.appendingPathComponent("copy.\(to.lowercased())")
            let copy = storectl("copy", source.path, target.path, "--to-type", to)
            #expect(copy.status == 0, "\(copy.errors)")
            #expect(copy.output.contains("Copied 4 objects from the \(from) store at \(source.path) to the \(to) store at \(target.path)"))
            #expect(try Data(contentsOf: source) == before)
            let info = storectl("info", target.path)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         \(to)"))
            let dump = storectl("dump", target.path)
            #expect(dump.output.contains("Bailey"), "\(dump.output)")
        }
    }

    @Test func copyRefusesAnExistingFile() throws {
        try withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent(fileName(for: "Binary"))
            #expect(storectl("demo", "--type", "Binary", "--path", source.path).status == 0)
            let target = directory.appendingPathComponent("taken.xml")
            try Data("keep me".utf8).write(to: target)
            let copy = storectl("copy", source.path, target.path, "--to-type", "XML")
            #expect(copy.status == 1)
            #expect(copy.errors.hasPrefix("error 134070: Cannot copy"))
            #expect(copy.errors.contains(target.path))
            #expect(try Data(contentsOf: target) == Data("keep me".utf8))
        }
    }

    /// A copy into a store that keeps nothing would report success and leave nothing: refused.
    @Test func copyRefusesAStoreThatKeepsNothing() throws {
        try withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent(fileName(for: "SQLite"))
            #expect(storectl("demo", "--type", "SQLite", "--path", source.path).status == 0)
            let target = directory.appendingPathComponent("League.memory")
            let copy = storectl("copy", source.path, target.path, "--to-type", "InMemory")
            #expect(copy.status == 1)
            #expect(copy.errors.hasPrefix("error 134070: Cannot copy into a store of type InMemory: it keeps nothing"), "\(copy.errors)")
            #expect(!copy.output.contains("Copied"))
            #expect(!FileManager.default.fileExists(atPath: target.path))
        }
    }

    /// A connection URI is a store argument too: a league copied to PostgreSQL (the type read
    /// from the URI's scheme), then shown and dumped from the server.
    @Test func copyToPostgreSQLAndReadItBack() throws {
        try withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent(fileName(for: "SQLite"))
            #expect(storectl("demo", "--type", "SQLite", "--path", source.path).status == 0)
            let target = try TestPostgreSQLServer.freshStoreURL("ctl").absoluteString
            let copy = storectl("copy", source.path, target)
            #expect(copy.status == 0, "\(copy.errors)")
            #expect(copy.output.contains("Copied 4 objects from the SQLite store at \(source.path) to the PostgreSQL store at postgresql://"), "\(copy.output)")
            let info = storectl("info", target)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         PostgreSQL"), "\(info.output)")
            #expect(info.output.contains("Store:        postgresql://"), "\(info.output)")
            let dump = storectl("dump", target)
            #expect(dump.output.contains("Bailey"), "\(dump.output)")
        }
    }

    /// `storectl conformance` on the PostgreSQL type needs the server (`--url`) and then runs
    /// the cases there, a schema per run.
    @Test func conformanceOnPostgreSQLRunsOnTheServerGiven() throws {
        let missing = storectl("conformance", "--type", "PostgreSQL", "--behaviour", "11")
        #expect(missing.status != 0)
        #expect(missing.errors.contains("--url"), "\(missing.errors)")
        let run = storectl("conformance", "--type", "PostgreSQL", "--behaviour", "11", "--url", try TestPostgreSQLServer.uri())
        #expect(run.status == 0, "\(run.output)\(run.errors)")
        #expect(run.output.contains("0 failed"), "\(run.output)")
    }
}
