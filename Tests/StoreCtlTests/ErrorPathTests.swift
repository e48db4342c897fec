import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// What `storectl` says when it cannot do what was asked: one line, `error <code>: <message>`,
/// and a non-zero exit.
@Suite struct ErrorPathTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    private func expectOneErrorLine(_ run: Run, code: Int, containing text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status != 0, sourceLocation: sourceLocation)
        let errorLines = lines(run.errors)
        #expect(errorLines.count == 1, "\(run.errors)", sourceLocation: sourceLocation)
        #expect(errorLines.first?.hasPrefix("error \(code): ") == true, "\(run.errors)", sourceLocation: sourceLocation)
        #expect(run.errors.contains(text), "\(run.errors)", sourceLocation: sourceLocation)
    }

    /// A SQLite league written by the demo.
    private func league(in directory: URL) -> URL {
        let url = directory.appendingPathComponent("League.sqlite")
        #expect(storectl("demo", "--path", url.path).status == 0)
        return url
    }

    @Test(arguments: ["info", "dump", "validate"])
    func aMissingFile(command: String) throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("nothing.sqlite")
            expectOneErrorLine(storectl(command, missing.path), code: 134080, containing: "There is no store at \(missing.path)")
        }
    }

    @Test func theWrongType() throws {
        try withTemporaryDirectory { directory in
            let url = league(in: directory)
            let run = storectl("info", url.path, "--type", "XML")
            #expect(run.status == 1)
            #expect(lines(run.errors).count == 1)
            #expect(run.errors.hasPrefix("error 1340"))
            #expect(run.errors.contains(url.path))
            expectOneErrorLine(storectl("info", url.path, "--type", "SQLight"), code: 134000, containing: "did you mean \"SQLite\"?")
        }
    }

    @Test func aFileThatIsNoStore() throws {
        try withTemporaryDirectory { directory in
            let garbage = directory.appendingPathComponent("garbage.bin")
            try Data([0, 1, 2, 3, 0xFF, 0xFE]).write(to: garbage)
            expectOneErrorLine(storectl("info", garbage.path), code: 134010, containing: "Cannot tell the store type of \(garbage.path)")
        }
    }

    @Test func aBadPredicate() throws {
        try withTemporaryDirectory { directory in
            let url = league(in: directory)
            expectOneErrorLine(
                storectl("query", url.path, "--entity", "Player", "--where", "lastName =="), code: 134060,
                containing: "Invalid predicate")
            let unknownKey = storectl("query", url.path, "--entity", "Player", "--where", "shoeSize > 3")
            #expect(unknownKey.status == 1)
            #expect(unknownKey.errors.contains("shoeSize"))
            #expect(lines(unknownKey.errors).count == 1)
        }
    }

    @Test func anUnknownEntity() throws {
        try withTemporaryDirectory { directory in
            let url = league(in: directory)
            expectOneErrorLine(
                storectl("query", url.path, "--entity", "Plyer"), code: 134060, containing: "did you mean \"Player\"?")
            expectOneErrorLine(storectl("dump", url.path, "--entity", "Coach"), code: 134060, containing: "entities: Player, Team")
            let sort = storectl("query", url.path, "--entity", "Player", "--sort", "height")
            #expect(sort.status == 1)
            #expect(sort.errors.contains("height"))
        }
    }

    @Test func anUnreadableFile() throws {
        try withTemporaryDirectory { directory in
            expectOneErrorLine(storectl("info", directory.path), code: 134080, containing: "is a folder, not a store file")
            let fifo = directory.appendingPathComponent("pipe.sqlite")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            expectOneErrorLine(storectl("info", fifo.path), code: 134080, containing: "is not a regular file")
            let url = league(in: directory)
            #expect(chmod(url.path, 0) == 0)
            defer { chmod(url.path, 0o600) }
            if getuid() != 0 {
                expectOneErrorLine(storectl("info", url.path), code: 134080, containing: "permission denied")
            } else {
                // root reads any file; the mode alone cannot make it unreadable here.
                #expect(storectl("info", url.path).status == 0)
            }
        }
    }

    @Test func aStoreWithoutAModelAndABadConfiguration() throws {
        try withTemporaryDirectory { directory in
            let config = directory.appendingPathComponent("stores.yaml")
            try Data("persistence:\n  store:\n    type: SQLlite\n    path: x.sqlite\n".utf8).write(to: config)
            expectOneErrorLine(storectl("info", "--config", config.path), code: 134000, containing: "`persistence.store.type`")
            expectOneErrorLine(storectl("demo", "--config", config.path), code: 134000, containing: "did you mean \"SQLite\"?")
            expectOneErrorLine(
                storectl("info", "--config", directory.appendingPathComponent("none.yaml").path), code: 134060,
                containing: "there is no such file")
            expectOneErrorLine(storectl("info"), code: 134070, containing: "No store given")
        }
    }

    @Test func usageErrorsAndHelp() {
        let unknown = storectl("info", "--frobnicate")
        #expect(unknown.status != 0)
        #expect(unknown.errors.contains("--frobnicate"))
        let help = storectl("query", "--help")
        #expect(help.status == 0)
        #expect(help.output.contains("--where"))
    }
}

/// `storectl` and connection URIs: whatever is wrong with one, its password never shows, on
/// either stream; a schema without a store is said to be one.
@Suite struct ConnectionURIErrorTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    /// Each URI of the corpus as the store of `info`, `dump` and `validate` (with and without
    /// `--type`), and as the destination of `copy`.
    @Test(arguments: MalformedConnectionURIs.corpus)
    func aMalformedURINeverShowsItsPassword(_ uri: String) throws {
        try withTemporaryDirectory { directory in
            let source = directory.appendingPathComponent("League.sqlite")
            #expect(storectl("demo", "--path", source.path).status == 0)
            let runs = [
                storectl("info", uri), storectl("info", uri, "--type", "PostgreSQL"), storectl("dump", uri),
                storectl("validate", uri, "--type", "PostgreSQL"), storectl("copy", source.path, uri),
                storectl("copy", source.path, uri, "--to-type", "PostgreSQL"),
            ]
            for run in runs {
                #expect(run.status != 0, "\(uri): \(run.output)")
                #expect(!run.output.contains(MalformedConnectionURIs.secret), "\(run.output)")
                #expect(!run.errors.contains(MalformedConnectionURIs.secret), "\(run.errors)")
                #expect(!run.errors.isEmpty)
            }
        }
    }

    /// A URI Foundation's `URL` refuses is still a URI, not a file path.
    @Test func aMultiHostURIIsNotTakenForAFile() {
        let run = storectl("info", "postgresql://someone:s3cr3t-PW@127.0.0.1:1,127.0.0.1:2/db?connect_timeout=2")
        #expect(run.status == 1)
        // Shown as the URL that carries it: the hosts, ports and user as parameters.
        #expect(
            run.errors.hasPrefix("error 134080: Cannot connect to PostgreSQL at postgresql:///db?host=127.0.0.1,127.0.0.1&port=1,2&user=someone&password=***"),
            "\(run.errors)")
        #expect(!run.errors.contains("no such file"))
    }

    /// `info` on a schema that holds no store says so plainly (not PostgreSQL's 42P01), with
    /// the store's model read from its metadata or given with `--model`.
    @Test func infoOnASchemaWithoutAStoreSaysThereIsNone() throws {
        try withTemporaryDirectory { directory in
            let url = try TestPostgreSQLServer.freshStoreURL("nostore")
            let schema = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?.first { $0.name == "schema" }?.value)
            let modelFile = directory.appendingPathComponent("League.json")
            try leagueModel().jsonData().write(to: modelFile)
            for run in [storectl("info", url.absoluteString), storectl("info", url.absoluteString, "--model", modelFile.path)] {
                #expect(run.status == 1)
                #expect(lines(run.errors).count == 1, "\(run.errors)")
                #expect(run.errors.hasPrefix("error 134080: There is no PostgreSQL store in the schema \(schema) at postgresql://"), "\(run.errors)")
                #expect(!run.errors.contains("42P01"), "\(run.errors)")
                #expect(!run.errors.contains("the PostgreSQL store at"), "\(run.errors)")
            }
        }
    }
}
