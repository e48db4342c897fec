import Foundation
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// Behaviour #56 for SQLite: a child saves in a loop while the parent kills it with SIGKILL at
/// random moments; after each kill the store reopens holding the generation saved last or the
/// one being saved, never a mix (the child checks every object and the metadata on load). After
/// the last kill the write-ahead log can be checkpointed completely: no reader is left pinning it.
/// Another process opens and closes the store the whole time, as the `sqlite3` shell or a backup
/// script would: a saver whose locks were dropped lost the saves made after such a peek.
@Suite("SQLite crash safety")
struct SQLiteCrashTests {
    /// Short in the test command; `scripts/kill-test.sh` runs more.
    static let kills = CrashTestHarness.kills(standard: 15)

    @Test(.enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
    func killingASavingProcessNeverLeavesAMixedOrUnreadableStore() throws {
        let saver = try #require(CrashTestHarness.saver)
        let directory = try TemporaryDirectory()
        let report = try CrashTestHarness.run(
            storeType: "SQLite", fileName: "Crash.sqlite", kills: Self.kills, in: directory.url, saver: saver,
            peeking: true)
        #expect(report.problems == [])
        #expect(report.kills == Self.kills)
        #expect(report.killedAfterSave > 0, "no kill landed after a save; the test exercised nothing")
        print("SQLite crash test: \(report.kills) kills, \(report.killedAfterSave) after at least one save; last generation \(report.lastGeneration)")
        // Only the database and SQLite's own companions remain.
        #expect(Set(report.files).isSubset(of: ["Crash.sqlite", "Crash.sqlite-wal", "Crash.sqlite-shm"]), "\(report.files)")

        // The WAL left by the killed writers checkpoints completely into the database file.
        let url = directory.file("Crash.sqlite")
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        let statement = try connection.prepare("PRAGMA wal_checkpoint(TRUNCATE)")
        defer { statement.finalize() }
        #expect(try statement.step())
        let busy = statement.int64(at: 0), logFrames = statement.int64(at: 1), checkpointed = statement.int64(at: 2)
        #expect(busy == 0)
        #expect(checkpointed == logFrames, "checkpointed \(checkpointed) of \(logFrames) WAL frames")
        let walSize = (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
        #expect(walSize == 0, "the WAL still holds \(walSize) bytes after a TRUNCATE checkpoint")
    }
}
