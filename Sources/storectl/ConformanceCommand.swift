import ArgumentParser
import Conformance
import PersistentStores

/// `storectl conformance --type T`: runs the conformance suite on a registered store type and
/// prints the report table; exits non-zero when a case fails.
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
        let report = ConformanceSuite.run(storeType: type, cases: cases)
        Console.current.print(report.table)
        if report.failed > 0 { throw ExitCode.failure }
    }
}
