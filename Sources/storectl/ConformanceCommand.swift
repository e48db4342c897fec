import ArgumentParser
import Conformance
import Foundation
import PersistentStores

/// `storectl conformance --type T`: runs the conformance suite on a registered store type and
/// prints one line per run as it ends, then a summary; exits non-zero when a case fails.
struct ConformanceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "conformance", abstract: "Run the conformance suite on a store type and print the report.")

    @Option(name: .long, help: "The registered store type (see `storectl types`).")
    var type: String

    @Option(name: .long, help: "Run only the cases of this behaviour number.")
    var behaviour: Int?

    @Option(name: .long, help: "For a store type on a server (PostgreSQL): the server's connection URI; each run's stores go in schemas of their own.")
    var url: String?

    func run() throws {
        PersistentStores.registerBuiltInStoreTypes()
        let storeClass = try StoreRegistry.shared.requireStoreType(named: type)
        var storeURLs: (@Sendable (URL, String) -> URL?)?
        if storeClass is any ServerStore.Type {
            guard let base = url else {
                throw StoreError(.persistentStoreOperation, "\(type) stores live on a server: give its connection URI with --url")
            }
            let server = try ConnectionURI(base)
            // A schema per run and store, named after the run's fresh folder and the store.
            storeURLs = { directory, name in
                let run = directory.lastPathComponent.lowercased().filter(\.isHexDigit).prefix(32)
                let store = name.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20)
                return server.settingParameter("schema", to: "c\(run)_\(store)").url
            }
        }
        let cases = ConformanceSuite.allCases.filter { behaviour == nil || $0.behaviour == behaviour }
        let runs = ConformanceSuite.runs(storeType: type, cases: cases, storeURLs: storeURLs)
        let widths = ConformanceReport.ColumnWidths(fitting: runs)
        var done = 0
        // One line per run as it ends, so a long suite shows its progress.
        let report = ConformanceSuite.run(storeType: type, cases: cases, storeURLs: storeURLs) { result in
            done += 1
            Console.current.print("[\(done)/\(runs.count)] " + result.line(widths: widths))
        }
        Console.current.print("\(type): \(report.passed) passed, \(report.failed) failed, \(report.skipped) skipped")
        if report.failed > 0 { throw ExitCode.failure }
    }
}
