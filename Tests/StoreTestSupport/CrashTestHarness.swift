import Conformance
import Foundation

/// The built-in stores' crash tests (behaviour #56) run the Conformance product's kill harness
/// (`CrashSafetyHarness`) with `crash-saver` as the child: it registers every built-in store
/// type and runs `CrashSafetyChild`, plus the modes of the multi-process, migration and memory
/// tests.
public enum CrashTestHarness {
    /// What one crash test saw.
    public typealias Report = CrashSafetyHarness.Report

    /// The `crash-saver` executable built beside the test bundle (or
    /// `$PERSISTENTSTORES_CRASH_SAVER`); nil when it cannot be found.
    public static let saver: URL? = builtExecutable(named: "crash-saver", environmentVariable: "PERSISTENTSTORES_CRASH_SAVER")

    /// The number of kills a crash test makes: `PERSISTENTSTORES_CRASH_KILLS` when set (what
    /// `scripts/kill-test.sh` uses for long runs), otherwise `standard`.
    public static func kills(standard: Int) -> Int { CrashSafetyHarness.kills(standard: standard) }

    /// Runs the kill test on a store of `storeType` named `fileName` in `directory` with `kills`
    /// kills, using the `crash-saver` at `saver` (see `CrashSafetyHarness.run`).
    public static func run(
        storeType: String, fileName: String, kills: Int, in directory: URL, saver: URL, peeking: Bool = false
    ) throws -> Report {
        try CrashSafetyHarness.run(
            storeType: storeType, store: directory.appendingPathComponent(fileName), kills: kills, child: saver,
            peeking: peeking)
    }
}

/// A child process of the tests whose standard output is read line by line (the Conformance
/// product's).
public typealias ChildProcess = Conformance.ChildProcess

/// An executable of this package built beside the test bundle (or the path in
/// `environmentVariable`); nil when it cannot be found.
public func builtExecutable(named name: String, environmentVariable: String? = nil) -> URL? {
    ChildProcess.builtExecutable(named: name, environmentVariable: environmentVariable)
}
