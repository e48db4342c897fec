import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kill test of the crash-safety cases (behaviour #56), for any store type: a child process
/// (``CrashSafetyChild``) saves generation after generation of a store while this process kills
/// it with SIGKILL at random moments; after each kill a new child opens the store and checks
/// that it holds one whole generation — the last acknowledged save or the one in flight — never
/// a torn or mixed one, never an unreadable file. The harness reports what it saw; the caller
/// asserts on it (the cases of ``ConformanceSuite/crashSafetyCases(child:kills:)`` do).
///
/// ```swift
/// let child = try #require(ChildProcess.builtExecutable(named: "my-store-crash-child"))
/// let report = try CrashSafetyHarness.run(
///     storeType: "Mine", store: folder.appendingPathComponent("Crash.mine"), kills: 20, child: child)
/// #expect(report.problems == [])
/// ```
public enum CrashSafetyHarness {
    /// The number of kills a crash test makes: `PERSISTENTSTORES_CRASH_KILLS` when set (for
    /// long runs), otherwise `standard`.
    public static func kills(standard: Int) -> Int {
        guard let text = ProcessInfo.processInfo.environment["PERSISTENTSTORES_CRASH_KILLS"], let count = Int(text), count > 0
        else { return standard }
        return count
    }

    /// What one crash test saw.
    public struct Report: Sendable {
        /// Everything that went wrong, one message each; empty when the store survived.
        public var problems: [String] = []
        /// The number of kills made.
        public var kills = 0
        /// Kills that landed after the child acknowledged at least one save.
        public var killedAfterSave = 0
        /// Kills that left a temporary file of `AtomicFileWriter` behind (the process died while
        /// writing the file).
        public var killedDuringWrite = 0
        /// The generation the store held at the end.
        public var lastGeneration: Int64 = 0
        /// The names of the files in the store's folder at the end (empty for a store that is
        /// not a file).
        public var files: [String] = []

        /// Creates an empty report.
        public init() {}
    }

    /// Runs the test on the store at `store` (a file URL, or a server's URL) of `storeType` with
    /// `kills` kills, using the child executable `child` (see ``CrashSafetyChild``). With
    /// `peeking`, another child opens and closes the store over and over the whole time, and the
    /// kills are made only once it has opened the store at least once.
    ///
    /// It stops at the first problem: a child that cannot open the store, finds it torn or
    /// mixed, or ends by itself.
    public static func run(
        storeType: String, store: URL, kills: Int, child executable: URL, peeking: Bool = false
    ) throws -> Report {
        let storeArgument = CrashSafetyChild.argument(for: store)
        var report = Report()
        var peeker: ChildProcess?
        defer { peeker?.kill() }
        var lowest: Int64 = 0
        var highest: Int64 = 0
        var generator = SystemRandomNumberGenerator()
        for kill in 0..<kills {
            let child = try ChildProcess(executable, ["run", storeType, storeArgument, String(lowest), String(highest)])
            let loaded = child.nextLine() ?? "(no output)"
            guard loaded.hasPrefix("loaded "), let generation = Int64(loaded.dropFirst("loaded ".count)) else {
                child.kill()
                report.problems.append("after kill \(kill): \(loaded)")
                return report
            }
            var saved = generation
            if peeking, peeker == nil {
                // Started once the first child created the store, so it has something to open.
                let started = try ChildProcess(executable, ["peek", storeType, storeArgument])
                guard started.nextLine() == "peeked" else {
                    started.kill()
                    child.kill()
                    report.problems.append("the peeking process never opened the store")
                    return report
                }
                peeker = started
            }
            // A random moment: after 0–2 acknowledged saves, plus up to 4 ms into the next one.
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                guard let line = child.nextLine(), line.hasPrefix("saved ") else { break }
                saved = Int64(line.dropFirst("saved ".count)) ?? saved
            }
            usleep(UInt32.random(in: 0..<4000, using: &generator))  // the kill moment, not a wait for a condition
            Foundation.kill(child.process.processIdentifier, SIGKILL)
            child.process.waitUntilExit()
            // Saves acknowledged before the kill count too.
            var last = ""
            while let line = child.nextLine() {
                if line.hasPrefix("saved "), let value = Int64(line.dropFirst("saved ".count)) { saved = value }
                last = line
            }
            if child.process.terminationReason != .uncaughtSignal {
                report.problems.append(
                    "kill \(kill): the child ended on its own (status \(child.process.terminationStatus))"
                        + (last.isEmpty ? "" : ": \(last)"))
                return report
            }
            report.kills += 1
            (lowest, highest) = (saved, saved + 1)
            if saved > generation { report.killedAfterSave += 1 }
            if store.isFileURL {
                let folder = store.deletingLastPathComponent()
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                if leftovers.contains(where: { $0.hasPrefix(".\(store.lastPathComponent).tmp-") }) { report.killedDuringWrite += 1 }
            }
        }
        let verify = try ChildProcess(executable, ["verify", storeType, storeArgument, String(lowest), String(highest)])
        let result = verify.nextLine() ?? "(no output)"
        let status = verify.waitForExit()
        if !result.hasPrefix("loaded ") { report.problems.append("final load: \(result)") }
        if status != 0 { report.problems.append("final load: exit status \(status)") }
        report.lastGeneration = Int64(result.dropFirst("loaded ".count)) ?? lowest
        if store.isFileURL {
            report.files = try FileManager.default.contentsOfDirectory(atPath: store.deletingLastPathComponent().path).sorted()
        }
        return report
    }
}
