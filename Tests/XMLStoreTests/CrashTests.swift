import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `crash-saver` executable (shared with the PipeCSV store's crash test) built beside the
/// test bundle (or `$PERSISTENTSTORES_CRASH_SAVER`).
enum CrashSaver {
    static let url: URL? = {
        if let path = ProcessInfo.processInfo.environment["PERSISTENTSTORES_CRASH_SAVER"] {
            return URL(fileURLWithPath: path)
        }
        var candidates: [URL] = []
        if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
        candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for folder in candidates {
            for name in ["crash-saver", "../crash-saver", "../../crash-saver"] {
                let url = folder.appendingPathComponent(name).standardizedFileURL
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
        }
        return nil
    }()
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

/// One run of the child process.
struct ChildRun {
    let process: Process
    let lines: LineReader

    init(_ mode: String, type: String, url: URL, lowest: Int64, highest: Int64, saver: URL) throws {
        process = Process()
        process.executableURL = saver
        process.arguments = [mode, type, url.path, String(lowest), String(highest)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        lines = LineReader(output.fileHandleForReading)
    }
}

/// Behaviour #56: a child saves in a loop while the parent kills it at random moments; after
/// each kill the store loads and holds the generation saved last or the one being saved —
/// never an error, never a mix (the child checks every object and the metadata on load).
@Suite("Crash safety")
struct CrashTests {
    static let kills = 60

    @Test(.enabled(if: CrashSaver.url != nil, "the crash-saver executable was not found beside the tests"))
    func killingASavingProcessNeverLeavesAMixedOrUnreadableStore() throws {
        let saver = try #require(CrashSaver.url)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Crash.xml")
            var lowest: Int64 = 0
            var highest: Int64 = 0
            var generator = SystemRandomNumberGenerator()
            var killedMidSave = 0
            var killedMidWrite = 0
            for kill in 0..<Self.kills {
                let child = try ChildRun("run", type: "XML", url: url, lowest: lowest, highest: highest, saver: saver)
                let loaded = child.lines.next() ?? "(no output)"
                guard loaded.hasPrefix("loaded "), let generation = Int64(loaded.dropFirst("loaded ".count)) else {
                    child.process.terminate()
                    child.process.waitUntilExit()
                    Issue.record("after kill \(kill): \(loaded)")
                    return
                }
                var saved = generation
                // A random moment: after 0–2 acknowledged saves, plus up to 4 ms into the next one.
                for _ in 0..<Int.random(in: 0...2, using: &generator) {
                    guard let line = child.lines.next(), line.hasPrefix("saved ") else { break }
                    saved = Int64(line.dropFirst("saved ".count)) ?? saved
                }
                usleep(UInt32.random(in: 0..<4000, using: &generator))  // the kill moment, not a wait for a condition
                Foundation.kill(child.process.processIdentifier, SIGKILL)
                child.process.waitUntilExit()
                // Saves acknowledged before the kill count too.
                while let line = child.lines.next() {
                    if line.hasPrefix("saved "), let value = Int64(line.dropFirst("saved ".count)) { saved = value }
                }
                #expect(child.process.terminationReason == .uncaughtSignal, "the child ended on its own: status \(child.process.terminationStatus)")
                (lowest, highest) = (saved, saved + 1)
                if saved > generation { killedMidSave += 1 }
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                if leftovers.contains(where: { $0.hasPrefix(".Crash.xml.tmp-") }) { killedMidWrite += 1 }
            }
            let verify = try ChildRun("verify", type: "XML", url: url, lowest: lowest, highest: highest, saver: saver)
            let result = verify.lines.next() ?? "(no output)"
            verify.process.waitUntilExit()
            #expect(result.hasPrefix("loaded "), "\(result)")
            #expect(verify.process.terminationStatus == 0)
            #expect(killedMidSave > 0, "no kill landed after a save; the test exercised nothing")
            print("crash test: \(Self.kills) kills, \(killedMidSave) after at least one save, \(killedMidWrite) during the file's write; last generation \(lowest)")
            // Only the store file remains, plus temporary files of interrupted writes.
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.filter { !$0.hasPrefix(".") } == ["Crash.xml"])
            #expect(files.filter { $0.hasPrefix(".") }.allSatisfy { $0.hasPrefix(".Crash.xml.tmp-") })
        }
    }
}
