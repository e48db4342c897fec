import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The atomic stores' crash test (behaviour #56), shared by their test targets: a child process
/// (`crash-saver`) saves generation after generation of a store while this process kills it
/// with SIGKILL at random moments; after each kill a new child loads the store and checks that
/// it holds one whole generation — the last acknowledged save or the one in flight — never a
/// mix, never an unreadable file. The harness reports what it saw; the test asserts on it.
public enum CrashTestHarness {
    /// The `crash-saver` executable built beside the test bundle (or
    /// `$PERSISTENTSTORES_CRASH_SAVER`); nil when it cannot be found.
    public static let saver: URL? = builtExecutable(named: "crash-saver", environmentVariable: "PERSISTENTSTORES_CRASH_SAVER")

    /// The number of kills a crash test makes: `PERSISTENTSTORES_CRASH_KILLS` when set (what
    /// `scripts/kill-test.sh` uses for long runs), otherwise `standard`.
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
        /// Kills that left a temporary file behind (the process died while writing).
        public var killedDuringWrite = 0
        /// The generation the store held at the end.
        public var lastGeneration: Int64 = 0
        /// The names of the files in the folder at the end.
        public var files: [String] = []
    }

    /// Runs the test on a store of `storeType` named `fileName` in `directory` with `kills`
    /// kills, using the `crash-saver` at `saver`. With `peeking`, another process opens and
    /// closes the store over and over the whole time (as the `sqlite3` shell or a backup script
    /// would), and the kills are made only once it has opened the store at least once.
    public static func run(
        storeType: String, fileName: String, kills: Int, in directory: URL, saver: URL, peeking: Bool = false
    ) throws -> Report {
        let url = directory.appendingPathComponent(fileName)
        var report = Report()
        var peeker: ChildProcess?
        defer { peeker?.kill() }
        var lowest: Int64 = 0
        var highest: Int64 = 0
        var generator = SystemRandomNumberGenerator()
        for kill in 0..<kills {
            let child = try ChildProcess(saver, ["run", storeType, url.path, String(lowest), String(highest)])
            let loaded = child.nextLine() ?? "(no output)"
            guard loaded.hasPrefix("loaded "), let generation = Int64(loaded.dropFirst("loaded ".count)) else {
                child.process.terminate()
                child.process.waitUntilExit()
                report.problems.append("after kill \(kill): \(loaded)")
                return report
            }
            var saved = generation
            if peeking, peeker == nil {
                // Started once the first saver created the store, so it has something to open.
                let started = try ChildProcess(saver, ["peek", storeType, url.path, "crash"])
                guard started.nextLine() == "peeked" else {
                    report.problems.append("the peeking process never opened the store")
                    child.process.terminate()
                    child.process.waitUntilExit()
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
            while let line = child.nextLine() {
                if line.hasPrefix("saved "), let value = Int64(line.dropFirst("saved ".count)) { saved = value }
            }
            if child.process.terminationReason != .uncaughtSignal {
                report.problems.append("kill \(kill): the child ended on its own: status \(child.process.terminationStatus)")
            }
            report.kills += 1
            (lowest, highest) = (saved, saved + 1)
            if saved > generation { report.killedAfterSave += 1 }
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            if leftovers.contains(where: { $0.hasPrefix(".\(fileName).tmp-") }) { report.killedDuringWrite += 1 }
        }
        let verify = try ChildProcess(saver, ["verify", storeType, url.path, String(lowest), String(highest)])
        let result = verify.nextLine() ?? "(no output)"
        verify.process.waitUntilExit()
        if !result.hasPrefix("loaded ") { report.problems.append("final load: \(result)") }
        if verify.process.terminationStatus != 0 {
            report.problems.append("final load: exit status \(verify.process.terminationStatus)")
        }
        report.lastGeneration = lowest
        report.files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return report
    }
}

/// A child process of the tests whose standard output is read line by line; killed with
/// SIGKILL by ``kill()`` (never left running: the tests kill every one they start).
public final class ChildProcess {
    /// The running process.
    public let process: Process
    private let lines: LineReader

    /// Starts `executable` with `arguments`; its standard error is discarded.
    public init(_ executable: URL, _ arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        lines = LineReader(output.fileHandleForReading)
    }

    /// The next line of its standard output; nil once it ended.
    public func nextLine() -> String? { lines.next() }

    /// Waits until it ends by itself (its output read to the end) and returns its exit status.
    public func waitForExit() -> Int32 {
        while lines.next() != nil {}
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Kills it with SIGKILL (no clean exit: nothing it would do on the way out happens) and
    /// waits for it to end.
    public func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}

/// Lines of a child's standard output, read as they arrive.
final class LineReader {
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(_ handle: FileHandle) { self.handle = handle }

    /// The next line; nil at end of output.
    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty {
                guard !buffer.isEmpty else { return nil }
                defer { buffer.removeAll() }
                return String(decoding: buffer, as: UTF8.self)
            }
            buffer += chunk
        }
    }
}

/// An executable of this package built beside the test bundle (or the path in
/// `environmentVariable`); nil when it cannot be found.
public func builtExecutable(named name: String, environmentVariable: String? = nil) -> URL? {
    if let environmentVariable, let path = ProcessInfo.processInfo.environment[environmentVariable] {
        return URL(fileURLWithPath: path)
    }
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    for folder in candidates {
        for relative in [name, "../\(name)", "../../\(name)"] {
            let url = folder.appendingPathComponent(relative).standardizedFileURL
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
    }
    return nil
}
