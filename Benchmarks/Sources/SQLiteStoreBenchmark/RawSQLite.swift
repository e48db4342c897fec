import BenchmarkSupport
import BenchmarkSQLite
import Foundation

/// The limit baseline: the same work written directly against the sqlite3 C API (one prepared
/// statement per query, one transaction, no object layer), on the tables the SQLite store
/// created. Values are read into Swift values (`PersonRow`), as an application would.
final class RawSQLite {
    private var db: OpaquePointer?

    /// `SQLITE_TRANSIENT`, which Swift does not import.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ url: URL) {
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            fail("raw sqlite3: cannot open \(url.path)")
        }
        execute("PRAGMA journal_mode = WAL")  // as the store uses it
    }

    deinit { sqlite3_close_v2(db) }

    func execute(_ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            fail("raw sqlite3: \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }

    func prepare(_ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else {
            fail("raw sqlite3: \(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
        return statement
    }

    private func bind(_ text: String, _ statement: OpaquePointer?, _ index: Int32) {
        var text = text
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(statement, index, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self),
                Int32(buffer.count), Self.transient)
        }
    }

    private func step(_ statement: OpaquePointer?) {
        guard sqlite3_step(statement) == SQLITE_DONE else { fail("raw sqlite3: \(String(cString: sqlite3_errmsg(db)))") }
        sqlite3_reset(statement)
    }

    /// W1: the teams and persons in one transaction, one prepared INSERT each.
    func insert(_ dataset: Dataset) {
        execute("BEGIN IMMEDIATE")
        let teams = prepare("INSERT INTO ZTEAM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 2, 1, ?)")
        for team in 0..<dataset.teams {
            sqlite3_bind_int64(teams, 1, Int64(team + 1))
            bind(Dataset.teamName(team), teams, 2)
            step(teams)
        }
        sqlite3_finalize(teams)
        let persons = prepare(
            "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZBORN, ZEMAIL, ZNAME, ZSCORE, ZTEAM) VALUES (?, 1, 1, ?, ?, ?, ?, ?, ?)")
        for index in 0..<dataset.persons {
            sqlite3_bind_int64(persons, 1, Int64(index + 1))
            sqlite3_bind_int64(persons, 2, Int64(dataset.ages[index]))
            sqlite3_bind_double(persons, 3, dataset.borns[index].timeIntervalSinceReferenceDate)
            bind(dataset.emails[index], persons, 4)
            bind(dataset.names[index], persons, 5)
            sqlite3_bind_double(persons, 6, dataset.scores[index])
            sqlite3_bind_int64(persons, 7, Int64(dataset.team(of: index) + 1))
            step(persons)
        }
        sqlite3_finalize(persons)
        execute("COMMIT")
    }

    /// W1 as the SQLite store writes it: the persons 32 rows per INSERT (one prepared statement
    /// of 32 rows, the rest one by one), the teams likewise. Not the spec's baseline (one
    /// single-row INSERT per row): shown beside it, so the framework's ratio can be read both
    /// against what a hand-written insert usually is and against the same statements by hand.
    func insertInGroups(_ dataset: Dataset, rows group: Int = 32) {
        execute("BEGIN IMMEDIATE")
        func statement(_ head: String, _ tuple: String, rows: Int) -> OpaquePointer? {
            prepare(head + Array(repeating: tuple, count: rows).joined(separator: ", "))
        }
        // `OR FAIL` as the store's: a statement of several rows that may abort keeps a
        // statement journal (SQLiteStore.groupInsertStatementSQL says why that matters).
        let teamHead = "INSERT OR FAIL INTO ZTEAM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES "
        let teamGroup = statement(teamHead, "(?, 2, 1, ?)", rows: group)
        let teamSingle = prepare("INSERT INTO ZTEAM (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (?, 2, 1, ?)")
        var team = 0
        while team < dataset.teams {
            let rows = dataset.teams - team >= group ? group : 1
            let target = rows == group ? teamGroup : teamSingle
            for row in 0..<rows {
                let base = Int32(row * 2)
                sqlite3_bind_int64(target, base + 1, Int64(team + row + 1))
                bind(Dataset.teamName(team + row), target, base + 2)
            }
            step(target)
            team += rows
        }
        sqlite3_finalize(teamGroup)
        sqlite3_finalize(teamSingle)
        let personHead = "INSERT OR FAIL INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZBORN, ZEMAIL, ZNAME, ZSCORE, ZTEAM) VALUES "
        let personTuple = "(?, 1, 1, ?, ?, ?, ?, ?, ?)"
        let personGroup = statement(personHead, personTuple, rows: group)
        let personSingle = prepare(
            "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZAGE, ZBORN, ZEMAIL, ZNAME, ZSCORE, ZTEAM) VALUES " + personTuple)
        var index = 0
        while index < dataset.persons {
            let rows = dataset.persons - index >= group ? group : 1
            let target = rows == group ? personGroup : personSingle
            for row in 0..<rows {
                let person = index + row
                let base = Int32(row * 7)
                sqlite3_bind_int64(target, base + 1, Int64(person + 1))
                sqlite3_bind_int64(target, base + 2, Int64(dataset.ages[person]))
                sqlite3_bind_double(target, base + 3, dataset.borns[person].timeIntervalSinceReferenceDate)
                bind(dataset.emails[person], target, base + 4)
                bind(dataset.names[person], target, base + 5)
                sqlite3_bind_double(target, base + 6, dataset.scores[person])
                sqlite3_bind_int64(target, base + 7, Int64(dataset.team(of: person) + 1))
            }
            step(target)
            index += rows
        }
        sqlite3_finalize(personGroup)
        sqlite3_finalize(personSingle)
        execute("COMMIT")
    }

    private static func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: pointer)
    }

    /// Reads the rows of a statement that selects Z_PK, ZNAME, ZEMAIL, ZAGE, ZSCORE, ZBORN, ZTEAM.
    private static func rows(_ statement: OpaquePointer?) -> [PersonRow] {
        var rows: [PersonRow] = []
        while sqlite3_step(statement) == SQLITE_ROW {
            rows.append(PersonRow(
                id: sqlite3_column_int64(statement, 0), name: text(statement, 1), email: text(statement, 2),
                age: Int32(truncatingIfNeeded: sqlite3_column_int64(statement, 3)), score: sqlite3_column_double(statement, 4),
                born: Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, 5)),
                team: sqlite3_column_type(statement, 6) == SQLITE_NULL ? nil : sqlite3_column_int64(statement, 6)))
        }
        sqlite3_reset(statement)
        return rows
    }

    /// W2: every person.
    /// Returns what was read and the heap in use (MiB) while the rows were alive.
    func readAll() -> (Checksum, Double) {
        let statement = prepare("SELECT Z_PK, ZNAME, ZEMAIL, ZAGE, ZSCORE, ZBORN, ZTEAM FROM ZPERSON")
        defer { sqlite3_finalize(statement) }
        var checksum = Checksum()
        let rows = Self.rows(statement)
        for row in rows {
            checksum.add(name: row.name, email: row.email, age: row.age, score: row.score, born: row.born)
        }
        return (checksum, withExtendedLifetime(rows) { heapInUseMiB() })
    }

    /// W3: the keys and the count of the persons aged 20 to 40.
    func idsAndCount(repetitions: Int, ids: inout Timing, count: inout Timing) -> (Int, Int) {
        let select = prepare("SELECT Z_PK FROM ZPERSON WHERE ZAGE BETWEEN ?1 AND ?2")
        let counting = prepare("SELECT COUNT(*) FROM ZPERSON WHERE ZAGE BETWEEN ?1 AND ?2")
        defer {
            sqlite3_finalize(select)
            sqlite3_finalize(counting)
        }
        var found = 0
        var counted = 0
        ids.time {
            for _ in 0..<repetitions {
                sqlite3_bind_int64(select, 1, 20)
                sqlite3_bind_int64(select, 2, 40)
                var keys: [Int64] = []
                while sqlite3_step(select) == SQLITE_ROW { keys.append(sqlite3_column_int64(select, 0)) }
                sqlite3_reset(select)
                found = keys.count
            }
        }
        count.time {
            for _ in 0..<repetitions {
                sqlite3_bind_int64(counting, 1, 20)
                sqlite3_bind_int64(counting, 2, 40)
                if sqlite3_step(counting) == SQLITE_ROW { counted = Int(sqlite3_column_int64(counting, 0)) }
                sqlite3_reset(counting)
            }
        }
        return (found, counted)
    }

    /// W4: the hand-written query, prepared once.
    func firstHundred(repetitions: Int, measurement: inout Timing) -> Checksum {
        let statement = prepare(
            "SELECT Z_PK, ZNAME, ZEMAIL, ZAGE, ZSCORE, ZBORN, ZTEAM FROM ZPERSON WHERE ZAGE BETWEEN ?1 AND ?2 AND ZNAME >= ?3 AND ZNAME < ?4 ORDER BY ZNAME LIMIT 100")
        defer { sqlite3_finalize(statement) }
        var checksum = Checksum()
        measurement.time {
            for _ in 0..<repetitions {
                sqlite3_bind_int64(statement, 1, 20)
                sqlite3_bind_int64(statement, 2, 40)
                bind("A", statement, 3)
                bind("B", statement, 4)
                checksum = Checksum()
                for row in Self.rows(statement) {
                    checksum.add(name: row.name, email: row.email, age: row.age, score: row.score, born: row.born)
                }
            }
        }
        return checksum
    }

    /// W6: the hand-written UPDATE (with the row version bump the layout needs) in one transaction.
    func update(measurement: inout Timing) -> Int {
        measurement.time {
            execute("BEGIN IMMEDIATE")
            execute("UPDATE ZPERSON SET Z_OPT = Z_OPT + 1, ZSCORE = 0.0 WHERE ZAGE < 48")
            let changed = Int(sqlite3_changes(db))
            execute("COMMIT")
            return changed
        }
    }

    /// W6: the hand-written DELETE in one transaction.
    func delete(measurement: inout Timing) -> Int {
        measurement.time {
            execute("BEGIN IMMEDIATE")
            execute("DELETE FROM ZPERSON WHERE ZAGE < 48")
            let changed = Int(sqlite3_changes(db))
            execute("COMMIT")
            return changed
        }
    }
}
