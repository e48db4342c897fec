import ArgumentParser
import Conformance
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

    func run() throws {
        PersistentStores.registerBuiltInStoreTypes()
        _ = try StoreRegistry.shared.requireStoreType(named: type)
        let cases = ConformanceSuite.allCases.filter { behaviour == nil || $0.behaviour == behaviour }
        let runs = ConformanceSuite.runs(storeType: type, cases: cases)
        let widths = ConformanceReport.ColumnWidths(fitting: runs)
        var done = 0
        // One line per run as it ends, so a long suite shows its progress.
        let report = ConformanceSuite.run(storeType: type, cases: cases) { result in
            done += 1
            Console.current.print("[\(done)/\(runs.count)] " + result.line(widths: widths))
        }
        Console.current.print("\(type): \(report.passed) passed, \(report.failed) failed, \(report.skipped) skipped")
        if report.failed > 0 { throw ExitCode.failure }
    }
}
