import Foundation
import LeagueAPI
import PersistentStores
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The `LeagueService` executable as it is deployed: started as a process (with
/// `LEAGUE_METRICS=prometheus`), sent a request, its `/metrics` read, then SIGTERM. The ServiceGroup stops the server, the store finishes and closes (SQLite folds its
/// WAL into the database), and the process exits 0; what was saved is in the file.
@Suite(.enabled(if: leagueServiceExecutable != nil, "the LeagueService executable was not found beside the tests"))
struct LeagueServiceProcessTests {
    @Test func sigtermShutsDownGracefullyAndKeepsWhatWasSaved() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("league-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("league.sqlite")

        let process = Process()
        process.executableURL = leagueServiceExecutable
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERSISTENCE_") }
        environment["PERSISTENCE_STORE_PATH"] = file.path
        environment["LEAGUE_PORT"] = "0"
        environment["LEAGUE_METRICS"] = "prometheus"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()

        // Hummingbird logs the address it listens on once the server is up.
        var log = ""
        var port: Int?
        while port == nil {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break }
            log += String(decoding: chunk, as: UTF8.self)
            if let range = log.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                port = Int(log[range].split(separator: ":").last ?? "")
            }
        }
        let serverPort = try #require(port, "the service did not say where it listens: \(log)")

        var request = URLRequest(url: try #require(URL(string: "http://127.0.0.1:\(serverPort)/teams")))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(#"{"name":"Crew","city":"Columbus"}"#.utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as? HTTPURLResponse)?.statusCode == 201)
        // LEAGUE_METRICS=prometheus bootstrapped swift-metrics before the store was made.
        let (metrics, _) = try await URLSession.shared.data(from: try #require(URL(string: "http://127.0.0.1:\(serverPort)/metrics")))
        let text = String(decoding: metrics, as: UTF8.self)
        let saves = text.split(separator: "\n").first { $0.hasPrefix("persistence_saves{") }
        #expect(saves?.contains(#"store_name="League""#) == true, "\(text)")
        #expect(saves?.hasSuffix(" 1") == true, "one save: \(saves ?? "none")")

        process.terminate()  // SIGTERM
        _ = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        // The store was closed: its WAL folded into the database.
        let wal = folder.appendingPathComponent("league.sqlite-wal")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: wal.path)[.size] as? Int) ?? 0
        #expect(walSize == 0)

        let reopened = try LeagueStore(environment: ["PERSISTENCE_STORE_PATH": file.path])
        let context = ManagedObjectContext(coordinator: reopened.coordinator)
        #expect(try context.fetch(entityName: "Team").map { $0.value(forKey: "name", as: String.self) } == ["Crew"])
    }
}

/// The built `LeagueService` executable beside the test bundle, if any.
let leagueServiceExecutable: URL? = {
    var folders: [URL] = []
    if let executable = Bundle.main.executableURL { folders.append(executable.deletingLastPathComponent()) }
    folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    for folder in folders {
        for name in ["LeagueService", "../LeagueService"] {
            let url = folder.appendingPathComponent(name).standardizedFileURL
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
    }
    return nil
}()
