import CLibPQ
import Foundation
import StoreCore

/// One connection to a PostgreSQL server: a thin layer over libpq (`PQexecParams` with every
/// value bound, results in text form except `bytea`), transactions, and errors mapped to
/// ``StoreError`` with the server's SQLSTATE and message and the store's URL without its
/// password.
///
/// Not thread-safe and not `Sendable`: a connection belongs to one store (or one slot of its
/// read pool), which is only used by one thread at a time.
final class PostgreSQLConnection {
    /// The `PGconn*` handle.
    private let handle: OpaquePointer
    /// Where it is connected, without a password.
    let endpoint: PostgreSQLEndpoint
    private var transactionDepth = 0
    /// What each statement is reported to (SQL, duration, rows, and at `trace` the bound
    /// values); nil when nothing is observed.
    var observer: StoreInstrumentation?

    /// Connects, with the endpoint's `PostgreSQLEndpoint.connectionDefaults` where its URI
    /// sets none; 134080 naming the server (never the password) when libpq cannot.
    init(endpoint: PostgreSQLEndpoint) throws {
        guard let handle = PQconnectdb(endpoint.connectionStringWithDefaults) else {
            throw StoreError(.persistentStoreOpen, "Cannot connect to PostgreSQL at \(endpoint.redactedDescription): out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = endpoint.redact(Self.message(PQerrorMessage(handle)))
            PQfinish(handle)
            throw StoreError(.persistentStoreOpen, "Cannot connect to PostgreSQL at \(endpoint.redactedDescription): \(message)")
        }
        // Text comes and goes as UTF-8 whatever the environment (PGCLIENTENCODING) or the URI
        // asks for: every string is read and written as UTF-8.
        guard PQsetClientEncoding(handle, "UTF8") == 0 else {
            let message = endpoint.redact(Self.message(PQerrorMessage(handle)))
            PQfinish(handle)
            throw StoreError(.persistentStoreOpen, "Cannot use UTF-8 with PostgreSQL at \(endpoint.redactedDescription): \(message)")
        }
        self.handle = handle
        self.endpoint = endpoint
        // Opened while a coordinator adds a store (its schema created, its metadata read, a
        // migration): the statements report to that store's instrumentation from the first one.
        self.observer = StoreInstrumentation.statementObserverWhileAdding
        // Notices (such as "schema already exists, skipping") are not errors: libpq would print
        // them on standard error.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// libpq's message, trimmed; callers pass it through the endpoint's `redact(_:)` (libpq
    /// repeats values it refuses, a password among them).
    private static func message(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "unknown error" }
        return String(cString: pointer).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // MARK: Statements

    /// Runs `sql` with `parameters` bound as `$1`, `$2`, … and returns its rows, in text form,
    /// or in binary form with `binary` (read with ``PostgreSQLResult``'s `binary…` accessors).
    ///
    /// With `prepared`, the statement is prepared on the server the first time this connection
    /// runs its text, in the same round trip as its first run (libpq's pipeline mode), and run
    /// by name afterwards (parsed and analysed once; see ``maximumPreparedStatements``). The
    /// stores prepare the statements they run again and again: compiled fetches, faults,
    /// inserts.
    ///
    /// - Throws: 133021 for a unique violation (SQLSTATE 23505), 134090 for a query cancelled by
    ///   `statement_timeout` or a lock timeout, 134070 for anything else, each with the server's
    ///   message and what was being done.
    @discardableResult
    func execute(
        _ sql: String, _ parameters: [PostgreSQLParameter] = [], binary: Bool = false, prepared: Bool = false,
        _ context: @autoclosure () -> String = "running a statement"
    ) throws -> PostgreSQLResult {
        let count = Int32(parameters.count)
        let format: Int32 = binary ? 1 : 0
        // A statement prepared before runs by name; one to prepare is prepared and run in the
        // same round trip (``prepareAndRun``).
        let known = prepared ? preparedStatements[sql] : nil
        let preparing = prepared && known == nil && preparedStatements.count < Self.maximumPreparedStatements ? nextName() : nil
        let start = observer == nil ? nil : ContinuousClock.now
        roundTrips += 1
        let (preparation, result) = withParameterBuffers(parameters) { values, lengths, formats -> (OpaquePointer?, OpaquePointer?) in
            if let known {
                return (nil, PQexecPrepared(handle, known, count, values, lengths, formats, format))
            }
            if let preparing {
                return prepareAndRun(preparing, sql, count, values, lengths, formats, format)
            }
            return (nil, PQexecParams(handle, sql, count, nil, values, lengths, formats, format))
        }
        do {
            if let preparing {
                do {
                    _ = try checked(preparation, context())
                } catch {
                    if let result { PQclear(result) }
                    throw error
                }
                preparedStatements[sql] = preparing
            }
            let checkedResult = try checked(result, context())
            if let start, let observer {
                let rows = checkedResult.columnCount > 0 ? checkedResult.rowCount : checkedResult.affectedRows
                observer.statement(
                    sql, duration: start.duration(to: .now), rows: rows,
                    values: observer.tracesValues ? parameters.map(Self.describe) : nil)
            }
            return checkedResult
        } catch {
            if let start, let observer {
                observer.statement(sql, duration: start.duration(to: .now), rows: 0, values: nil)
            }
            // A prepared statement that failed is prepared afresh next time (a changed table
            // makes the server refuse a plan whose result type changed).
            if prepared { preparedStatements[sql] = nil }
            throw error
        }
    }

    /// Prepares `sql` as the statement `name` and runs it in one round trip: libpq's pipeline
    /// mode sends the Parse, the Bind and Execute, and a Sync together, then reads both results
    /// (the preparation's, then the statement's). Returns both (either nil when the connection
    /// failed; the statement's is `PGRES_PIPELINE_ABORTED` when the preparation failed).
    private func prepareAndRun(
        _ name: String, _ sql: String, _ count: Int32, _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ lengths: UnsafePointer<Int32>?,
        _ formats: UnsafePointer<Int32>?, _ format: Int32
    ) -> (OpaquePointer?, OpaquePointer?) {
        guard PQenterPipelineMode(handle) == 1 else {
            // Not possible (a command in progress): prepare, then run, in two round trips.
            roundTrips += 1
            let preparation = PQprepare(handle, name, sql, 0, nil)
            guard PQresultStatus(preparation) == PGRES_COMMAND_OK else { return (preparation, nil) }
            return (preparation, PQexecPrepared(handle, name, count, values, lengths, formats, format))
        }
        var results: [OpaquePointer] = []
        if PQsendPrepare(handle, name, sql, 0, nil) == 1, PQsendQueryPrepared(handle, name, count, values, lengths, formats, format) == 1,
            PQpipelineSync(handle) == 1
        {
            // Each statement's results end with a null; the Sync's result ends the pipeline. A
            // third null means the connection failed before the Sync's result came.
            var ends = 0
            while ends < 3 && results.count < 4 {
                guard let next = PQgetResult(handle) else {
                    ends += 1
                    continue
                }
                if PQresultStatus(next) == PGRES_PIPELINE_SYNC {
                    PQclear(next)
                    break
                }
                results.append(next)
            }
        }
        PQexitPipelineMode(handle)
        // Only the first two results are the statements' (a failed connection adds none).
        for extra in results.dropFirst(2) { PQclear(extra) }
        return (results.first, results.count > 1 ? results[1] : nil)
    }

    /// How a bound value reads in the log.
    private static func describe(_ parameter: PostgreSQLParameter) -> String {
        switch parameter {
        case .null: return "NULL"
        case .text(let text): return StoreInstrumentation.describe(text: text)
        case .binary(let data): return "<\(data.count) bytes>"
        }
    }

    /// The SQLSTATE of the last statement the server refused (kept while later ones succeed,
    /// so a transaction's `ROLLBACK` after the failure does not clear it); nil before any.
    private(set) var lastErrorState: String?

    /// Whether the last statement the server refused was cancelled by a hot standby because it
    /// conflicted with the changes the standby replays (SQLSTATE 40001, or 40P01 for a
    /// buffer-pin deadlock): the read did nothing wrong, and the primary can answer it. (The
    /// store drops a replica connection that answered so.)
    var failedInRecoveryConflict: Bool { lastErrorState == "40001" || lastErrorState == "40P01" }

    /// The round trips this connection has made: one per statement run, its preparation
    /// included (one more only when pipeline mode could not be entered). The tests count them.
    private(set) var roundTrips = 0

    /// The most statements one connection keeps prepared; statements past it run unprepared.
    /// The stores prepare only statements they compile from a bounded set of shapes (their
    /// compiled-fetch caches hold 128), so the bound is a safeguard.
    static let maximumPreparedStatements = 512

    /// Names of the statements prepared on this connection, by their text.
    private var preparedStatements: [String: String] = [:]
    /// The number of the next prepared statement's name (names are never reused).
    private var nextPreparedStatement = 1

    /// A name for a statement to prepare (never used before on this connection).
    private func nextName() -> String {
        defer { nextPreparedStatement += 1 }
        return "ps_\(nextPreparedStatement)"
    }

    /// The result of a statement that succeeded; throws the statement's error otherwise (the
    /// result freed).
    private func checked(_ result: OpaquePointer?, _ context: @autoclosure () -> String) throws -> PostgreSQLResult {
        guard let result else {
            throw StoreError(
                .persistentStoreOperation,
                "PostgreSQL at \(endpoint.redactedDescription) failed while \(context()): \(endpoint.redact(Self.message(PQerrorMessage(handle))))")
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            lastErrorState = state
            let message = endpoint.redact(Self.message(PQresultErrorMessage(result)))
            PQclear(result)
            throw Self.error(state: state, message: message, context: context(), endpoint: endpoint)
        }
        return PostgreSQLResult(result)
    }

    /// The store error for a failed statement.
    private static func error(state: String, message: String, context: String, endpoint: PostgreSQLEndpoint) -> StoreError {
        let text = "PostgreSQL error \(state) at \(endpoint.redactedDescription) while \(context): \(message)"
        switch state {
        case "23505": return StoreError(.managedObjectConstraintMerge, text)
        case "57014", "55P03": return StoreError(.persistentStoreTimeout, text)
        default: return StoreError(.persistentStoreOperation, text)
        }
    }

    /// Calls `body` with C arrays of the parameters' bytes, lengths and formats (text 0, binary 1).
    private func withParameterBuffers<T>(
        _ parameters: [PostgreSQLParameter],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> T
    ) -> T {
        if parameters.isEmpty { return body(nil, nil, nil) }
        // Every parameter's bytes, with a terminating zero for text, in one buffer.
        var storage: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        offsets.reserveCapacity(parameters.count)
        lengths.reserveCapacity(parameters.count)
        formats.reserveCapacity(parameters.count)
        for parameter in parameters {
            switch parameter {
            case .null:
                offsets.append(-1)
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                offsets.append(storage.count)
                let start = storage.count
                storage.append(contentsOf: text.utf8)
                lengths.append(Int32(storage.count - start))
                storage.append(0)
                formats.append(0)
            case .binary(let data):
                offsets.append(storage.count)
                storage.append(contentsOf: data)
                lengths.append(Int32(data.count))
                formats.append(1)
            }
        }
        if storage.isEmpty { storage.append(0) }
        return storage.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { buffer in
                let base = buffer.baseAddress
                let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset < 0 ? nil : base.map { $0 + offset } }
                return pointers.withUnsafeBufferPointer { values in
                    lengths.withUnsafeBufferPointer { lengthBuffer in
                        formats.withUnsafeBufferPointer { formatBuffer in
                            body(values.baseAddress, lengthBuffer.baseAddress, formatBuffer.baseAddress)
                        }
                    }
                }
            }
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction; commits when it returns, rolls back when it throws. Nested
    /// calls run inside the outer transaction through a savepoint. `beginning` is the statement
    /// that starts an outer transaction (`BEGIN` with its modes, so they cost no round trip of
    /// their own).
    ///
    /// When the connection is lost while the outer `COMMIT` runs, the transaction may or may
    /// not have been committed: ``commitInDoubt`` says so until the next transaction begins.
    /// `beforeCommit` runs just before the outer `COMMIT` (the stores' fault injection for
    /// tests; nil otherwise).
    @discardableResult
    func transaction<T>(beginning: String = "BEGIN", beforeCommit: (() throws -> Void)? = nil, _ body: () throws -> T) throws -> T {
        let depth = transactionDepth
        if depth == 0 { commitInDoubt = false }
        try execute(depth == 0 ? beginning : "SAVEPOINT s\(depth)", [], "beginning a transaction")
        transactionDepth += 1
        let value: T
        do {
            value = try body()
            if depth == 0, let beforeCommit { try beforeCommit() }
        } catch {
            transactionDepth -= 1
            _ = try? execute(depth == 0 ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT s\(depth)", [], "rolling back a transaction")
            throw error
        }
        transactionDepth -= 1
        do {
            try execute(depth == 0 ? "COMMIT" : "RELEASE SAVEPOINT s\(depth)", [], "committing a transaction")
        } catch {
            if depth == 0 && isBroken {
                commitInDoubt = true
            } else {
                _ = try? execute(depth == 0 ? "ROLLBACK" : "ROLLBACK TO SAVEPOINT s\(depth)", [], "rolling back a transaction")
            }
            throw error
        }
        return value
    }

    /// Whether the connection was lost while the last outer transaction's `COMMIT` ran: the
    /// server may have committed it or not (see `PostgreSQLStore`'s save recovery).
    private(set) var commitInDoubt = false

    /// Marks the last transaction's commit as in doubt (fault injection for tests: a commit
    /// whose acknowledgement is lost).
    func markCommitInDoubt() { commitInDoubt = true }

    /// Whether the connection to the server is lost (libpq's `CONNECTION_BAD`, known once a
    /// statement failed on it): a new connection is needed.
    var isBroken: Bool { PQstatus(handle) == CONNECTION_BAD }

    /// The process ID of the server backend serving this connection.
    var backendProcessID: Int32 { PQbackendPID(handle) }

    // MARK: Notifications

    /// The socket of the connection, to wait on for notifications.
    var socket: Int32 { PQsocket(handle) }

    /// Reads what the server sent and returns the payloads of the notifications that arrived
    /// (`LISTEN`); nil when the connection is lost.
    func receiveNotifications() -> [String]? {
        guard PQconsumeInput(handle) == 1 else { return nil }
        return queuedNotifications()
    }

    /// The payloads of the notifications libpq has already read from the socket and queued,
    /// without reading it: those that arrived while a query's results were being read. The
    /// socket has nothing more to say about them, so a caller that waits on it must take these
    /// first.
    func queuedNotifications() -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(notification.pointee.extra.map { String(cString: $0) } ?? "")
            PQfreemem(notification)
        }
        return payloads
    }

    /// Whether a transaction is open.
    var inTransaction: Bool { transactionDepth > 0 }

    /// Quotes an identifier for SQL (`"name"`, inner quotes doubled). Identifiers come from the
    /// model and the validated schema name only; quoting makes any name safe.
    static func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
