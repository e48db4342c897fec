import Foundation
import PersistentStores
import StoreTestSupport
import Testing

@testable import storectl

/// The python3 executable on the PATH, if any.
let python3Executable: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    .map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
    .first { FileManager.default.isExecutableFile(atPath: $0.path) }

/// `storectl dump` and `query` write objects as they read them: the memory of a dump does not
/// grow with the store (it held every object's values before printing any), and `--format csv`
/// writes one entity as CSV.
@Suite("storectl output", .enabled(if: storectlExecutable != nil, "the storectl executable was not found beside the tests"))
struct StreamingOutputTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    /// A SQLite league of `players` players with long names (1 KB each), a thousand per team.
    func writeLeague(at url: URL, players: Int) throws {
        let coordinator = PersistentStoreCoordinator(model: try leagueModel())
        try coordinator.addPersistentStore(type: "SQLite", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        var team = try context.insert(entityName: "Team")
        let padding = String(repeating: "x", count: 1_000)
        for index in 0..<players {
            if index % 1_000 == 999 { team = try context.insert(entityName: "Team") }
            let player = try context.insert(entityName: "Player")
            try player.setValue("\(index) \(padding)", forKey: "firstName")
            try player.setValue("Player \(index)", forKey: "lastName")
            try player.setObject(team, forKey: "team")
            if index % 5_000 == 4_999 { try context.save() }
        }
        try context.save()
    }

    /// The peak resident memory, in KB, of `storectl` run with `arguments`, its output discarded.
    /// A small Python process starts it and reads its peak: a child's `ru_maxrss` starts from the
    /// resident size of the process that forked it, which here would be the whole test process.
    func peakMemory(_ arguments: [String]) throws -> (status: Int32, kilobytes: Int) {
        let script = """
            import resource, subprocess, sys
            run = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            print(run.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            """
        let process = Process()
        process.executableURL = python3Executable  // the test runs only when there is one
        process.arguments = ["-c", script, try #require(storectlExecutable).path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let fields = text.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
        try #require(fields.count == 2, "unexpected output: \(text)")
        return (Int32(fields[0]), fields[1])
    }

    @Test(.enabled(if: python3Executable != nil, "python3 (which measures a child's peak memory) was not found"), arguments: ["json", "table"])
    func dumpMemoryDoesNotGrowWithTheStore(format: String) throws {
        try withTemporaryDirectory { directory in
            let small = directory.appendingPathComponent("small.sqlite")
            let large = directory.appendingPathComponent("large.sqlite")
            try writeLeague(at: small, players: 2_000)
            try writeLeague(at: large, players: 40_000)  // 38 MB more names than the small one
            let smallRun = try peakMemory(["dump", small.path, "--format", format, "--quiet"])
            let largeRun = try peakMemory(["dump", large.path, "--format", format, "--quiet"])
            #expect(smallRun.status == 0 && largeRun.status == 0)
            // Holding the names alone would add 38 MB; the object IDs the dump sorts take a few.
            let growth = largeRun.kilobytes - smallRun.kilobytes
            #expect(growth < 16_000, "dump's peak memory grew by \(growth) KB from 2,000 to 40,000 objects")
        }
    }

    @Test func queryAndDumpWriteCSV() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            #expect(storectl("demo", "--path", url.path).status == 0)
            let query = storectl("query", url.path, "--entity", "Player", "--sort", "lastName", "--format", "csv", "--quiet")
            #expect(query.status == 0, "\(query.errors)")
            let rows = lines(query.output)
            #expect(rows.first == "id,firstName,lastName,team")
            #expect(rows.count == 3)
            #expect(rows.dropFirst().map { $0.split(separator: ",").map(String.init)[2] } == ["Gordon", "Staley"])
            #expect(rows.dropFirst().allSatisfy { $0.hasPrefix("x-coredata://") && $0.contains("/Team/p") })

            let teams = storectl("dump", url.path, "--entity", "Team", "--format", "csv", "--quiet")
            #expect(lines(teams.output).first == "id,name,uniformColor,players")
            // Every entity at once is not one CSV table: refused with the way out.
            let all = storectl("dump", url.path, "--format", "csv")
            #expect(all.status == 1)
            #expect(all.errors.contains("CSV holds one entity"), "\(all.errors)")
        }
    }

    @Test func csvFieldsAreQuotedAsRFC4180Says() {
        #expect(ObjectPrinter.csvField("plain") == "plain")
        #expect(ObjectPrinter.csvField("a,b") == "\"a,b\"")
        #expect(ObjectPrinter.csvField("say \"hi\"") == "\"say \"\"hi\"\"\"")
        #expect(ObjectPrinter.csvField("two\nlines") == "\"two\nlines\"")
    }
}
