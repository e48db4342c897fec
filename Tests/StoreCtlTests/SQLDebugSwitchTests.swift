import Foundation
import StoreTestSupport
import Testing

/// `PERSISTENCE_SQL_DEBUG` turns statement logging on in a process that was given no logger:
/// the statements go to standard error.
@Suite("SQL debug switch in a process", .enabled(if: storectlExecutable != nil, "the storectl executable was not found beside the tests"))
struct SQLDebugSwitchTests {
    @Test func theEnvironmentVariableLogsStatementsToStandardError() throws {
        try withTemporaryDirectory { directory in
            let store = ["PERSISTENCE_STORE_TYPE": "SQLite", "PERSISTENCE_STORE_PATH": directory.appendingPathComponent("League.sqlite").path]
            let debug = try storectlProcess(["demo"], environment: store.merging(["PERSISTENCE_SQL_DEBUG": "1"]) { $1 })
            #expect(debug.status == 0, "\(debug.errors)")
            #expect(debug.errors.contains("debug persistence:"))
            #expect(debug.errors.contains("SQL statement"))
            #expect(debug.errors.contains("db.query.text=SELECT"))
            #expect(debug.errors.contains("duration_ms="))
            #expect(!debug.errors.contains("SQL statement values"), "values only from level 3")

            let quiet = try storectlProcess(["demo"], environment: store)
            #expect(quiet.status == 0, "\(quiet.errors)")
            #expect(!quiet.errors.contains("SQL statement"))
        }
    }
}
