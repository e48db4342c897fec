import BenchmarkSupport
import CoreMetrics
import Foundation
import Logging
import PersistentStores
import Tracing

/// Issue 31: what observability costs when it is off, on W1 and W2.
///
/// Two configurations a user meets with nothing to report:
/// - **off**: no observability given (no logger, no metrics backend, no tracer);
/// - **quiet**: swift-metrics' no-op backend and tracing's no-op tracer bootstrapped in the
///   process, and a logger of the program's own at `info` (statements are timed then, for the
///   slow-statement threshold, but none is logged).
///
/// `--observability quiet` makes every framework contender of the other modes use the second
/// (for `valgrind --tool=callgrind` of `--only w1.framework` and `--only w2.framework`, one
/// process per configuration); `--only obs` times both, in turns, in one run.
enum ObservabilityComparison {
    /// The observability `--observability` asks for: nil for `off` (or without the option), the
    /// quiet one for `quiet` (bootstrapping the no-op backends first).
    static func fromArguments() -> StoreObservability? {
        let arguments = CommandLine.arguments
        guard let position = arguments.firstIndex(of: "--observability"), position + 1 < arguments.count else { return nil }
        switch arguments[position + 1] {
        case "off": return nil
        case "quiet": return quiet
        default: fail("--observability takes off or quiet")
        }
    }

    /// The no-op metrics backend and tracer bootstrapped (once per process), and a logger at
    /// `info` to standard error.
    static let quiet: StoreObservability = {
        MetricsSystem.bootstrap(NOOPMetricsHandler.instance)
        InstrumentationSystem.bootstrap(NoOpTracer())
        var logger = Logger(label: "benchmark", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = .info
        return StoreObservability(logger: logger)
    }()

    /// Times W1 and W2 with observability off and quiet, alternating which goes first in each
    /// run, and prints the medians (wall clock and the measuring thread's CPU time) and the
    /// ratios quiet ÷ off.
    static func run(sizes: [Int], runs: Int, folder: URL) throws {
        let quiet = Self.quiet
        print("observability off vs quiet (no-op metrics and tracer bootstrapped, a logger at info); medians of \(runs) runs")
        for size in sizes {
            let dataset = Dataset(persons: size)
            var timings: [String: Timing] = [:]
            func measure<T>(_ key: String, _ body: (inout Timing) throws -> T) rethrows -> T {
                var timing = timings[key] ?? Timing(name: key)
                defer { timings[key] = timing }
                return try body(&timing)
            }
            let urls = ["off": folder.appendingPathComponent("obs-off.sqlite"), "quiet": folder.appendingPathComponent("obs-quiet.sqlite")]
            for run in 0..<runs {
                let order = run.isMultiple(of: 2) ? ["off", "quiet"] : ["quiet", "off"]
                for configuration in order {
                    let url = urls[configuration] ?? folder
                    removeDatabase(url)
                    try measure("w1.\(configuration)") {
                        try Framework.insertThroughContext(
                            dataset, at: url, observability: configuration == "quiet" ? quiet : nil, measurement: &$0)
                    }
                }
                var read: [Checksum] = []
                for configuration in order {
                    // Both read the file written with observability off (the same rows either way).
                    let (checksum, _) = try measure("w2.\(configuration)") {
                        try Framework.readAll(
                            at: urls["off"] ?? folder, observability: configuration == "quiet" ? quiet : nil, measurement: &$0)
                    }
                    read.append(checksum)
                }
                expectSame(read[0], read[1], "W2 off and quiet")
            }
            print("")
            print("N = \(size) persons + \(dataset.teams) teams")
            for workload in ["w1", "w2"] {
                let off = timings["\(workload).off"] ?? Timing(name: "")
                let on = timings["\(workload).quiet"] ?? Timing(name: "")
                print(
                    "  \(workload.uppercased()): off \(format(off.median)) (CPU \(format(off.cpuMedian))), quiet \(format(on.median)) (CPU \(format(on.cpuMedian))) → quiet ÷ off \(String(format: "%.3f", on.median / off.median))× wall, \(String(format: "%.3f", on.cpuMedian / off.cpuMedian))× CPU"
                )
            }
        }
    }
}
