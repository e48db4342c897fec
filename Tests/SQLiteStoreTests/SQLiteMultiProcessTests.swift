import Foundation
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// Several processes on one store, with a third opening and closing it meanwhile: every save a
/// process acknowledged is in the store afterwards. Before the header was read through SQLite,
/// each read connection opened and closed a descriptor of its own on the database, which
/// dropped the process's POSIX locks; the peeking process then took the exclusive lock,
/// checkpointed and deleted the `-wal` while the savers went on committing into the deleted
/// log, and their saves vanished (docs/reliability.md).
@Suite("SQLite multi-process saves")
struct SQLiteMultiProcessTests {
    /// Two processes × threads × saves per thread: about 15 seconds here.
    static let threads = 4
    static let saves = 60

    @Test(.enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
    func everyAcknowledgedSaveOfTwoProcessesSurvivesAThirdOpeningTheStore() throws {
        let saver = try #require(CrashTestHarness.saver)
        let directory = try TemporaryDirectory()
        let url = directory.file("Counters.sqlite")
        let create = try ChildProcess(saver, ["count-create", url.path])
        #expect(create.waitForExit() == 0)

        let peeker = try ChildProcess(saver, ["peek", "SQLite", url.path, "counter"])
        defer { peeker.kill() }
        #expect(peeker.nextLine() == "peeked")
        let savers = try (1...2).map {
            try ChildProcess(saver, ["count", url.path, String($0), String(Self.threads), String(Self.saves)])
        }
        var acknowledged = 0
        for child in savers {
            // Each prints `done N` and then waits: killed, not exited, so no clean close
            // checkpoints a write-ahead log that was deleted under it.
            let line = child.nextLine() ?? "(no output)"
            child.kill()
            let count = line.hasPrefix("done ") ? Int(line.dropFirst("done ".count)) : nil
            #expect(count == Self.threads * Self.saves, "a saver answered: \(line)")
            acknowledged += count ?? 0
        }
        peeker.kill()

        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        let statement = try connection.prepare("SELECT ZPROCESS, ZTHREAD, COUNT(*), MAX(ZSEQUENCE) FROM ZTALLY GROUP BY ZPROCESS, ZTHREAD")
        defer { statement.finalize() }
        var stored = 0
        var groups = 0
        while try statement.step() {
            let count = Int(statement.int64(at: 2))
            #expect(count == Self.saves, "process \(statement.int64(at: 0)) thread \(statement.int64(at: 1)) kept \(count) of \(Self.saves) saves")
            #expect(statement.int64(at: 3) == Int64(Self.saves - 1))
            stored += count
            groups += 1
        }
        #expect(groups == 2 * Self.threads)
        #expect(stored == acknowledged, "\(acknowledged - stored) of \(acknowledged) acknowledged saves are missing")
    }
}
