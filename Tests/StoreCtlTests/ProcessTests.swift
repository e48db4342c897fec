import Foundation
import StoreTestSupport
import Testing

/// The built `storectl` (beside the test bundle), for the tests that need a real process: its
/// own environment variables, its exit status and its standard error.
let storectlExecutable: URL? = {
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for folder in candidates {
        for name in ["storectl", "../storectl", "../../storectl"] {
            let url = folder.appendingPathComponent(name).standardizedFileURL
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
    }
    return nil
}()

/// Runs the storectl executable with `arguments` and the test process's environment (without
/// its `PERSISTENCE_*` variables) plus `environment`.
func storectlProcess(_ arguments: [String], environment: [String: String]) throws -> Run {
    let process = Process()
    process.executableURL = storectlExecutable
    process.arguments = arguments
    var merged = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PERSISTENCE_") }
    merged.merge(environment) { $1 }
    process.environment = merged
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    // Read both pipes to the end before waiting, so a full pipe cannot block the child.
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Run(
        status: process.terminationStatus, output: String(decoding: outData, as: UTF8.self),
        errors: String(decoding: errData, as: UTF8.self))
}

@Suite("storectl as a process", .enabled(if: storectlExecutable != nil, "the storectl executable was not found beside the tests"))
struct ProcessTests {
    @Test func environmentVariablesAloneChooseTheConfigurationAndTheBackend() throws {
        try withTemporaryDirectory { directory in
            let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Examples/Configuration/stores.yaml")
            let file = directory.appendingPathComponent("stores.yaml")
            try FileManager.default.copyItem(at: example, to: file)
            let environment = ["PERSISTENCE_CONFIG_FILE": file.path, "PERSISTENCE_STORE_TYPE": "XML"]
            let store = directory.appendingPathComponent("data/League.xml").standardizedFileURL.path

            let demo = try storectlProcess(["demo"], environment: environment)
            #expect(demo.status == 0, "\(demo.errors)")
            #expect(demo.output.range(of: "Store: XML store [0-9A-F-]{36} at \(store)\n", options: .regularExpression) != nil)
            #expect(lines(demo.output).last?.hasPrefix("To switch backend: PERSISTENCE_STORE_TYPE=SQLite swift run storectl demo") == true)

            let info = try storectlProcess(["info"], environment: environment)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         XML\n"))
            #expect(info.output.contains("  Player  2\n"))
            let query = try storectlProcess(["query", "--entity", "Team", "--where", "name == 'Crew'"], environment: environment)
            #expect(query.output.contains("Team (1 object)"))
            let validate = try storectlProcess(["validate"], environment: environment)
            #expect(validate.status == 0)
            #expect(validate.errors.contains("Validating: 4/4"))
            let quiet = try storectlProcess(["dump", "--quiet"], environment: environment)
            #expect(quiet.errors.isEmpty)
            #expect(quiet.output.contains("Team (2 objects)"))
        }
    }

    @Test func anErrorIsOneLineOnStandardErrorAndExitStatusOne() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("missing.sqlite").path
            let run = try storectlProcess(["info", missing], environment: [:])
            #expect(run.status == 1)
            #expect(run.output.isEmpty)
            #expect(run.errors == "error 134080: There is no store at \(missing): no such file\n")
            let unknownType = try storectlProcess(["demo"], environment: ["PERSISTENCE_STORE_TYPE": "Cassandra"])
            #expect(unknownType.status == 1)
            #expect(lines(unknownType.errors).count == 1)
            #expect(unknownType.errors.hasPrefix("error 134000: Configuration key `persistence.store.type`"))
        }
    }
}
