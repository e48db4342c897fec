import Foundation
import StoreTestSupport
import Testing

/// A migration killed at a random moment leaves a store that opens with one complete version:
/// the `crash-saver` child writes a store (generation ≥ 3), then migrates it back and forth
/// between two model versions (a renamed attribute and a new one) until it is killed; after
/// every kill another child opens the store with whichever version its metadata names and
/// checks every object. The child does the store work, so one test covers every file type.
@Suite("Migration killed half-way", .enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
struct MigrationKillTests {
    @Test(arguments: ["SQLite", "Binary", "XML", "PipeCSV"])
    func killedMigrationLeavesOneCompleteVersion(type: String) throws {
        let saver = try #require(CrashTestHarness.saver)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.\(type.lowercased())")
            let writer = try ChildProcess(saver, ["run", type, url.path, "0", "0"])
            var saved = ""
            while let line = writer.nextLine(), !line.hasPrefix("saved 3") { saved = line }
            writer.kill()
            #expect(!saved.hasPrefix("error"), "\(saved)")
            let first = try ChildProcess(saver, ["verify-migrated", type, url.path])
            let start = first.nextLine() ?? "(no output)"
            first.process.waitUntilExit()
            #expect(start.hasPrefix("verified "), "\(start)")
            let generation = start.split(separator: " ").dropFirst().first.map(String.init) ?? "?"

            var generator = SystemRandomNumberGenerator()
            var versions: Set<String> = []
            for kill in 0..<CrashTestHarness.kills(standard: 6) {
                let child = try ChildProcess(saver, ["migrate", type, url.path])
                for _ in 0..<Int.random(in: 0...3, using: &generator) {
                    guard let line = child.nextLine(), line.hasPrefix("migrated ") else { break }
                }
                usleep(UInt32.random(in: 0..<3000, using: &generator))  // the kill moment, not a wait for a condition
                child.kill()
                #expect(child.process.terminationReason == .uncaughtSignal, "kill \(kill): the child ended on its own")
                let check = try ChildProcess(saver, ["verify-migrated", type, url.path])
                let result = check.nextLine() ?? "(no output)"
                check.process.waitUntilExit()
                #expect(result.hasPrefix("verified \(generation) "), "after kill \(kill): \(result)")
                #expect(check.process.terminationStatus == 0, "after kill \(kill): exit status \(check.process.terminationStatus)")
                if let version = result.split(separator: " ").last { versions.insert(String(version)) }
            }
            #expect(!versions.isEmpty)

            // What the killed migrations left beside the store goes at the next open once it is
            // abandoned: its processes are gone, and (aged here) nothing wrote it for a minute.
            let leftovers = { try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains(".migrating-") } }
            for name in try leftovers() {
                try FileManager.default.setAttributes(
                    [.modificationDate: Date(timeIntervalSinceNow: -120)], ofItemAtPath: directory.appendingPathComponent(name).path)
            }
            let reopen = try ChildProcess(saver, ["verify-migrated", type, url.path])
            let reopened = reopen.nextLine() ?? "(no output)"
            reopen.process.waitUntilExit()
            #expect(reopened.hasPrefix("verified \(generation) "), "\(reopened)")
            let remaining = try leftovers()
            #expect(remaining.isEmpty, "left beside the store: \(remaining)")
        }
    }
}
