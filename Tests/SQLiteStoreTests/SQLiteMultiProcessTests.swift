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
        try Self.saveFromTwoProcesses(threads: Self.threads, saves: Self.saves, rows: 1)
    }

    /// Saves of 40 rows: a group of 32 through one INSERT and 8 rows one by one, from two
    /// processes and a third opening and closing the store.
    @Test(.enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
    func everyRowOfAcknowledgedSavesInGroupsSurvives() throws {
        try Self.saveFromTwoProcesses(threads: 2, saves: 20, rows: SQLiteStore.rowsPerInsert + 8)
    }

    /// Two saver processes of `threads` threads, each making `saves` saves of `rows` rows, while
    /// a third process opens and closes the store; then every acknowledged row is checked.
    static func saveFromTwoProcesses(threads: Int, saves: Int, rows: Int) throws {
        let saver = try #require(CrashTestHarness.saver)
        let directory = try TemporaryDirectory()
        let url = directory.file("Counters.sqlite")
        let create = try ChildProcess(saver, ["count-create", url.path])
        #expect(create.waitForExit() == 0)

        let peeker = try ChildProcess(saver, ["peek", "SQLite", url.path, "counter"])
        defer { peeker.kill() }
        #expect(peeker.nextLine() == "peeked")
        let savers = try (1...2).map {
            try ChildProcess(saver, ["count", url.path, String($0), String(threads), String(saves), String(rows)])
        }
        var acknowledged = 0
        for child in savers {
            // Each prints `done N` and then waits: killed, not exited, so no clean close
            // checkpoints a write-ahead log that was deleted under it.
            let line = child.nextLine() ?? "(no output)"
            child.kill()
            let count = line.hasPrefix("done ") ? Int(line.dropFirst("done ".count)) : nil
            #expect(count == threads * saves * rows, "a saver answered: \(line)")
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
            #expect(count == saves * rows, "process \(statement.int64(at: 0)) thread \(statement.int64(at: 1)) kept \(count) of \(saves * rows) rows")
            #expect(statement.int64(at: 3) == Int64(saves * rows - 1))
            stored += count
            groups += 1
        }
        #expect(groups == 2 * threads)
        #expect(stored == acknowledged, "\(acknowledged - stored) of \(acknowledged) acknowledged rows are missing")
    }
}
