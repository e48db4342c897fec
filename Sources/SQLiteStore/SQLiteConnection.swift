import CSQLite
import Foundation
import StoreCore

/// One open SQLite database: a thin layer over the sqlite3 C API with a prepared-statement
/// cache, transactions, and errors mapped to ``StoreError`` (134180 with SQLite's message and
/// extended result code).
///
/// Not thread-safe and not `Sendable`: a connection belongs to one store, which its coordinator
/// only calls under its lock. The connection is opened in multi-thread mode (`NOMUTEX`) for that
/// reason.
final class SQLiteConnection {
    /// The `sqlite3*` handle.
    let handle: OpaquePointer
    /// The database file; nil for an in-memory database.
    let url: URL?
    /// Whether the database was opened read-only.
    let isReadOnly: Bool
    private var statements: [String: SQLiteStatement] = [:]
    /// Cached statements also known by a number their store gave them (``cached(number:sql:)``),
    /// found by hashing one integer rather than their text; emptied with the cache, and on its
    /// own when it outgrows twice the cache's bound (numbers of forgotten compilations).
    private var numbered: [Int: SQLiteStatement] = [:]
    /// The cached statements handed out since the last ``resetCachedStatements()``: only these
    /// can be in the middle of their rows, so only these are reset (a connection may keep
    /// hundreds of statements; resetting them all cost every read transaction that much).
    private var handedOut: [SQLiteStatement] = []
    private var transactionDepth = 0
    /// What statements report to (see ``SQLiteStatement/observer``); nil when nothing is
    /// observed.
    var observer: StoreInstrumentation?

    /// Opens (or, when `create` is true and not read-only, creates) the database at `url`; an
    /// in-memory database when `url` is nil.
    init(url: URL?, readOnly: Bool, create: Bool) throws {
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_PRIVATECACHE
        if readOnly {
            flags |= SQLITE_OPEN_READONLY
        } else {
            flags |= SQLITE_OPEN_READWRITE
            if create { flags |= SQLITE_OPEN_CREATE }
        }
        let path = url?.path ?? ":memory:"
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw StoreError(
                .sqlite, "Cannot open the SQLite database at \(path): \(message) (SQLite error \(rc))", fileURL: url)
        }
        self.handle = db
        self.url = url
        self.isReadOnly = readOnly
        // Opened while a coordinator adds a store (its metadata read, its schema created, a
        // migration): the statements report to that store's instrumentation from the first one.
        self.observer = StoreInstrumentation.statementObserverWhileAdding
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    // MARK: Errors

    /// The error for a failed call: SQLite's message and extended code, what was being done,
    /// and the file.
    func error(_ resultCode: Int32, _ context: String) -> StoreError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        let code = extended != 0 ? extended : resultCode
        return StoreError(
            .sqlite, "SQLite error \(code) (\(String(cString: sqlite3_errstr(code)))) in \(url?.path ?? "(memory)") while \(context): \(message)",
            fileURL: url)
    }

    /// Throws ``error(_:_:)`` unless `resultCode` is `SQLITE_OK`.
    func check(_ resultCode: Int32, _ context: @autoclosure () -> String) throws {
        if resultCode != SQLITE_OK { throw error(resultCode, context()) }
    }

    // MARK: Statements

    /// Runs one or more statements that take no parameters and return no rows we need (DDL,
    /// pragmas, transaction control).
    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let start = observer == nil ? nil : ContinuousClock.now
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if let start, let observer { observer.statement(sql, duration: start.duration(to: .now), rows: 0, values: nil) }
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            let extended = sqlite3_extended_errcode(handle)
            throw StoreError(
                .sqlite, "SQLite error \(extended) (\(String(cString: sqlite3_errstr(extended)))) in \(url?.path ?? "(memory)") while executing \(sql): \(text)",
                fileURL: url)
        }
    }

    /// A new prepared statement that the caller owns (not cached).
    func prepare(_ sql: String) throws -> SQLiteStatement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, 0, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw error(rc, "preparing \(sql)")
        }
        let prepared = SQLiteStatement(handle: statement, connection: self, sql: sql)
        prepared.observer = observer
        return prepared
    }

    /// The cached prepared statement for `sql`, reset and with its bindings cleared. Statements
    /// stay prepared for the connection's lifetime, so a query runs without re-parsing.
    func cached(_ sql: String) throws -> SQLiteStatement {
        if let statement = statements[sql] {
            // Statements cached before the store was instrumented report from now on.
            if observer != nil && statement.observer == nil { statement.observer = observer }
            statement.reset()
            noteHandedOut(statement)
            return statement
        }
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw error(rc, "preparing \(sql)")
        }
        let wrapped = SQLiteStatement(handle: statement, connection: self, sql: sql)
        wrapped.observer = observer
        if statements.count >= Self.statementCacheLimit {
            // Queries built from varying shapes (IN lists, changed-column sets) must not grow the
            // cache without bound; callers never hold a cached statement across this call.
            for cachedStatement in statements.values { cachedStatement.finalize() }
            statements.removeAll(keepingCapacity: true)
            handedOut.removeAll(keepingCapacity: true)
            numbered.removeAll(keepingCapacity: true)
        }
        statements[sql] = wrapped
        noteHandedOut(wrapped)
        return wrapped
    }

    /// The cached prepared statement numbered `number` by its store (a statement the store runs
    /// over and over, such as a fault's SELECT), reset and with its bindings cleared; `sql` is
    /// built only the first time, or again after the cache started over. The statement is the
    /// one ``cached(_:)`` keeps for the same text, so both forms share one preparation and one
    /// bound.
    func cached(number: Int, sql: () -> String) throws -> SQLiteStatement {
        if let statement = numbered[number] {
            if observer != nil && statement.observer == nil { statement.observer = observer }
            statement.reset()
            noteHandedOut(statement)
            return statement
        }
        let statement = try cached(sql())
        if numbered.count >= 2 * Self.statementCacheLimit { numbered.removeAll(keepingCapacity: true) }
        numbered[number] = statement
        return statement
    }

    private func noteHandedOut(_ statement: SQLiteStatement) {
        guard !statement.isHandedOut else { return }
        statement.isHandedOut = true
        handedOut.append(statement)
    }

    /// Resets every cached statement handed out since the last call, so none that a caller
    /// stopped reading early keeps a read transaction open (it would block journal-mode
    /// changes and WAL checkpoints). Statements not handed out since were reset then.
    func resetCachedStatements() {
        for statement in handedOut {
            statement.reset()
            statement.isHandedOut = false
        }
        handedOut.removeAll(keepingCapacity: true)
    }

    /// The number of cached statements.
    var cachedStatementCount: Int { statements.count }

    /// How many prepared statements the cache keeps before it starts over.
    static let statementCacheLimit = 256

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Rows changed by every INSERT, UPDATE and DELETE that completed on the connection: the
    /// difference across one statement is what it changed, and 0 for a statement that never ran
    /// or was backed out (``changes`` would still tell the previous statement's count).
    var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// The rowid of the last inserted row.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    // MARK: Transactions

    /// Runs `body` in a transaction (`BEGIN IMMEDIATE`, so a writer takes the lock up front and
    /// waits for `busy_timeout` instead of failing later); commits when it returns, rolls back
    /// when it throws. Nested calls run inside the outer transaction through a savepoint.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 {
            transactionDepth += 1
            defer { transactionDepth -= 1 }
            try execute("SAVEPOINT ps_nested")
            do {
                let result = try body()
                try execute("RELEASE ps_nested")
                return result
            } catch {
                try? execute("ROLLBACK TO ps_nested")
                try? execute("RELEASE ps_nested")
                throw error
            }
        }
        try execute("BEGIN IMMEDIATE")
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            resetCachedStatements()
            try execute("COMMIT")
            return result
        } catch {
            // A failed COMMIT may already have rolled back; ROLLBACK then fails harmlessly.
            resetCachedStatements()
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a read transaction (`BEGIN DEFERRED`), so several queries see one snapshot.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        if transactionDepth > 0 { return try body() }
        // Prepared once per connection: a read transaction per fetch would otherwise parse
        // both statements every time.
        try cached("BEGIN DEFERRED").run()
        transactionDepth = 1
        defer { transactionDepth = 0 }
        do {
            let result = try body()
            resetCachedStatements()
            try cached("COMMIT").run()
            return result
        } catch {
            resetCachedStatements()
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Whether a transaction is open.
    var isInTransaction: Bool { transactionDepth > 0 }

    // MARK: Introspection

    /// The value of a pragma that returns one value (`PRAGMA name`); `name` must be a trusted
    /// identifier.
    func pragmaValue(_ name: String) throws -> String? {
        let statement = try prepare("PRAGMA \(name)")
        defer { statement.finalize() }
        guard try statement.step() else { return nil }
        return statement.isNull(at: 0) ? nil : statement.text(at: 0)
    }

    /// The names of the pragmas this SQLite library knows (`pragma_pragma_list`, lower case);
    /// nil when the library was built without that list.
    func pragmaNames() -> Set<String>? {
        guard let statement = try? prepare("SELECT name FROM pragma_pragma_list") else { return nil }
        defer { statement.finalize() }
        var names: Set<String> = []
        while (try? statement.step()) == true { names.insert(statement.text(at: 0).lowercased()) }
        return names.isEmpty ? nil : names
    }

    /// Copies this connection's main database into `destination`'s with SQLite's online
    /// backup, in one step: the copy is one committed state of this database.
    func backup(into destination: SQLiteConnection) throws {
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw destination.error(sqlite3_errcode(destination.handle), "starting a backup of \(url?.path ?? "(memory)")")
        }
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE else {
            throw destination.error(stepped, "copying \(url?.path ?? "(memory)") with the online backup")
        }
        try destination.check(finished, "finishing the backup of \(url?.path ?? "(memory)")")
    }

    /// Reads the database header and schema (`PRAGMA schema_version`): `SQLITE_OK`, or the
    /// primary result code that failed (`SQLITE_NOTADB` for a file that is not a database).
    func readHeader() -> Int32 {
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v3(handle, "PRAGMA schema_version", -1, 0, &statement, nil)
        if rc == SQLITE_OK {
            rc = sqlite3_step(statement)
            if rc == SQLITE_ROW || rc == SQLITE_DONE { rc = SQLITE_OK }
        }
        sqlite3_finalize(statement)
        return rc & 0xFF
    }

    /// The names of the tables in the main database.
    func tableNames() throws -> Set<String> {
        let statement = try cached("SELECT name FROM sqlite_master WHERE type = 'table'")
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.text(at: 0)) }
        return names
    }

    /// The column names of a table, in table order; empty when the table does not exist.
    func columnNames(of table: String) throws -> [String] {
        let statement = try cached("SELECT name FROM pragma_table_info(?)")
        statement.bind(text: table, at: 1)
        var names: [String] = []
        while try statement.step() { names.append(statement.text(at: 0)) }
        return names
    }

    /// The index names of the main database.
    func indexNames() throws -> Set<String> {
        let statement = try cached("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%'")
        var names: Set<String> = []
        while try statement.step() { names.insert(statement.text(at: 0)) }
        return names
    }

    /// Sets the busy timeout: how long a statement waits for another connection's lock.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// The most parameters one statement may have (`SQLITE_LIMIT_VARIABLE_NUMBER`: 32,766 by
    /// default since SQLite 3.32, 999 before).
    var parameterLimit: Int { Int(sqlite3_limit(handle, SQLITE_LIMIT_VARIABLE_NUMBER, -1)) }

    /// Sets SQLite's limit on the length of one string or blob (`SQLITE_LIMIT_LENGTH`): a longer
    /// value is refused when read or written (`SQLITE_TOOBIG`).
    func setMaximumValueLength(_ bytes: Int) {
        sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: bytes))
    }

    /// Quotes an identifier for SQL (`"name"`, inner quotes doubled). Identifiers come from the
    /// model only; quoting makes any name safe.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
