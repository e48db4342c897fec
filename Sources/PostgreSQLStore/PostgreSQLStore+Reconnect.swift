import Foundation
import StoreCore

/// Losing the server: a connection that breaks (a server restart, a network cut, an idle
/// timeout, `pg_terminate_backend`) is noticed by the statement that fails on it (libpq's
/// `CONNECTION_BAD`); the store then connects again, trying for at most
/// ``PostgreSQLOptionKey/reconnectTimeout`` with a backoff, and
///
/// - runs a read (a fetch, a fault, a key reservation, the history) once more on the new
///   connection;
/// - runs a save once more when the connection broke before its `COMMIT` was sent (the server
///   rolls back a transaction whose connection is gone, so nothing of it was applied);
/// - resolves a save whose connection broke during `COMMIT` from the server's own record of the
///   save's transaction (`txid_status`) and, when that is unknown, from the rows it inserted:
///   committed, it is reported saved (never written twice); rolled back, it is run once more;
///   otherwise it fails with 134040 naming the server and the objects.
extension PostgreSQLStore {
    /// The default of ``PostgreSQLOptionKey/reconnectTimeout``, in seconds.
    static let defaultReconnectTimeout = 10.0

    /// How long to keep reconnecting (the option, else ``defaultReconnectTimeout``), at most an
    /// hour (so it converts to a duration whatever the option says).
    var reconnectTimeout: Double {
        let seconds: Double?
        switch options[PostgreSQLOptionKey.reconnectTimeout] {
        case .double(let value)?: seconds = value
        case .int(let value)?: seconds = Double(value)
        case .string(let text)?: seconds = Double(text)
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds >= 0 else { return Self.defaultReconnectTimeout }
        return min(seconds, 3600)
    }

    /// A new connection set up as the store's: its schema first on the search path, read-only
    /// for a read-only store and for a read connection.
    func openSession() throws -> PostgreSQLConnection {
        try openSession(to: endpoint, readOnly: isReadOnly || isReadConnection)
    }

    /// A new connection to `server` with the store's schema first on the search path, refusing
    /// writes with `readOnly`.
    func openSession(to server: PostgreSQLEndpoint, readOnly: Bool) throws -> PostgreSQLConnection {
        let opened = try PostgreSQLConnection(endpoint: server)
        try opened.execute("SET search_path TO \(PostgreSQLConnection.quote(server.schema))", [], "choosing the schema")
        if readOnly {
            try opened.execute("SET default_transaction_read_only = on", [], "making the connection read-only")
        }
        return opened
    }

    /// Replaces the lost connection with a new one, trying until ``reconnectTimeout`` has
    /// passed (50 ms between the first attempts, doubling up to 1 s); throws 134070 naming the
    /// server (never the password) and what was lost when no attempt succeeds.
    func reconnect(after error: StoreError) throws {
        let observer = connection?.observer
        let start = ContinuousClock.now
        let timeout = reconnectTimeout
        var delay = 0.05
        var attempts = 0
        var last = error.message
        while true {
            attempts += 1
            do {
                let replacement = try openSession()
                replacement.observer = observer
                connection = replacement
                return
            } catch let failure as StoreError {
                last = failure.message
            }
            let elapsed = start.duration(to: .now)
            guard elapsed + .milliseconds(Int(delay * 1000)) <= .milliseconds(Int(timeout * 1000)) else {
                throw StoreError(
                    .persistentStoreOperation,
                    "Lost the connection to PostgreSQL at \(endpoint.redactedDescription) and could not connect again (\(attempts) attempt(s) in \(String(format: "%.1f", timeout)) s): \(endpoint.redact(last))")
            }
            Thread.sleep(forTimeInterval: delay)
            delay = min(delay * 2, 1)
        }
    }

    /// Runs `body`, a read; when the connection is lost, connects again and runs it once more.
    /// A read a replica could not answer (its connection lost, or the read cancelled in a
    /// recovery conflict) runs once more on the primary. After a read the primary answered, the
    /// primary's position is noted, so later reads see what it saw (monotonic reads).
    func retryingRead<T>(_ body: () throws -> T) throws -> T {
        let value: T
        do {
            value = try body()
        } catch is StoreError where replicaConnection.map({ $0.isBroken || $0.failedInRecoveryConflict }) == true {
            // The replica went away, or cancelled the read because it conflicted with the
            // changes it replays: the read goes to the primary, the replica is left alone for a
            // second.
            dropReplica()
            return try retryingRead(body)
        } catch let error as StoreError where connection?.isBroken == true {
            try reconnect(after: error)
            value = try body()
        }
        // Inside a pinned read (a read-only transaction) the outermost read notes it.
        if primaryAnsweredRead, pinnedRead == nil, let connection {
            primaryAnsweredRead = false
            notePrimaryPosition(on: connection)
        }
        return value
    }

    // MARK: Saves

    /// What the server says of a save's transaction after its connection was lost.
    enum CommitOutcome {
        case committed, rolledBack, unknown
    }

    /// Recovers a save whose connection was lost (`error`): reconnects, then returns the saved
    /// versions of a save that was committed (`versions`, what the lost attempt wrote), runs a
    /// save that was not once more, and otherwise throws 134040 (in doubt) or 134030 (not
    /// saved) naming the server and the objects.
    func recoverSave(
        _ request: SaveChangesRequest, lost error: StoreError, inDoubt: Bool, transactionID: Int64?, versions: [ObjectID: Int64],
        apply: () throws -> [ObjectID: Int64]
    ) throws -> [ObjectID: Int64] {
        let objects = request.insertedObjects.map(\.objectID) + request.updatedObjects.map(\.objectID) + request.deletedObjects.map(\.objectID)
        do {
            try reconnect(after: error)
        } catch let failure as StoreError {
            throw StoreError(
                inDoubt ? .persistentStoreIncompleteSave : .persistentStoreSave,
                (inDoubt
                    ? "The save of \(objects.count) object(s) may or may not have been committed: the connection was lost during COMMIT. "
                    : "The save of \(objects.count) object(s) was not committed. ") + failure.message,
                objectIDs: objects)
        }
        let outcome = inDoubt ? try commitOutcome(of: request, transactionID: transactionID) : .rolledBack
        switch outcome {
        case .committed:
            return versions
        case .rolledBack:
            do {
                return try apply()
            } catch let again as StoreError where connection?.isBroken == true {
                throw StoreError(
                    .persistentStoreSave,
                    "The save of \(objects.count) object(s) was not committed: the connection to PostgreSQL at \(endpoint.redactedDescription) was lost twice (\(again.message))",
                    objectIDs: objects)
            }
        case .unknown:
            throw StoreError(
                .persistentStoreIncompleteSave,
                "The save of \(objects.count) object(s) may or may not have been committed: the connection to PostgreSQL at \(endpoint.redactedDescription) was lost during COMMIT and the server does not know the transaction's outcome; fetch the objects to see",
                objectIDs: objects)
        }
    }

    /// Whether the save's transaction was committed: PostgreSQL's record of it
    /// (`txid_status`, kept until the transaction ID wraps around; an ID the server never
    /// assigned — after a failover to a standby the transaction did not reach — was not
    /// committed there), waiting a bounded time
    /// while it is still in progress (its old connection not yet gone); when the server does
    /// not know, the rows the save inserted decide (keys are reserved for one store
    /// coordinator only, so a row with such a key was written by this save).
    func commitOutcome(of request: SaveChangesRequest, transactionID: Int64?) throws -> CommitOutcome {
        let (connection, schema) = try ready()
        if let transactionID {
            let start = ContinuousClock.now
            var delay = 0.01
            while true {
                // A server that never assigned the ID (a promoted standby the transaction did not
                // reach) cannot have committed it; txid_status would refuse it as "in the future".
                let status = try connection.execute(
                    """
                    SELECT CASE WHEN $1::bigint >= txid_snapshot_xmax(txid_current_snapshot()) THEN 'unassigned'
                        ELSE txid_status($1::bigint) END
                    """, [.text(String(transactionID))], "reading the outcome of a save whose connection was lost"
                ).text(0, 0)
                switch status {
                case "committed":
                    // After a failover the promoted server may have given the same ID to another
                    // transaction: a save that inserted rows is committed only if they are there.
                    return try insertedRowsExist(of: request, connection: connection, schema: schema) == false ? .rolledBack : .committed
                case "aborted", "unassigned": return .rolledBack
                case "in progress":
                    // Its old connection is not gone yet (a network cut): wait, bounded; a
                    // transaction still running then may commit later, so nothing is retried.
                    guard start.duration(to: .now) < .milliseconds(Int(reconnectTimeout * 1000)) else { return .unknown }
                    Thread.sleep(forTimeInterval: delay)
                    delay = min(delay * 2, 0.5)
                    continue
                default: break
                }
                break
            }
        }
        guard let exists = try insertedRowsExist(of: request, connection: connection, schema: schema) else { return .unknown }
        return exists ? .committed : .rolledBack
    }

    /// Whether the first row the save inserted is in the store (keys are reserved for one
    /// coordinator only, so such a row was written by this save); nil for a save that inserted
    /// nothing.
    private func insertedRowsExist(of request: SaveChangesRequest, connection: PostgreSQLConnection, schema: SQLSchema) throws -> Bool? {
        guard let first = request.insertedObjects.first, let mapping = schema.entities[first.entityName] else { return nil }
        let found = try connection.execute(
            "SELECT count(*) FROM \(SQLSchema.sql(mapping.table)) WHERE Z_PK = $1", [.text(String(try primaryKey(of: first.objectID)))],
            "reading the rows of a save whose connection was lost")
        return found.int64(0, 0) == 1
    }

    // MARK: Fault injection

    /// A lost connection the tests provoke at the next save of a store in a schema.
    enum CommitFault: Sendable {
        /// The connection is lost just before `COMMIT` is sent: the commit is in doubt, and the
        /// server rolled the transaction back.
        case dropBeforeCommit
        /// The connection is lost just after `COMMIT` succeeded, before the store hears of it:
        /// the commit is in doubt, and the server committed it.
        case dropAfterCommit
    }

    /// Faults to inject, by the schema of the store they are for (each taken by one save).
    static let commitFaults = Locked<[String: CommitFault]>([:])

    /// The fault to inject into this save of a store in `schema`, if the tests asked for one.
    static func takeCommitFault(forSchema schema: String) -> CommitFault? {
        commitFaults.withLock { faults in faults.isEmpty ? nil : faults.removeValue(forKey: schema) }
    }

    /// Schemas of stores whose next read on a replica the tests have cancelled, as a hot
    /// standby cancels a read that conflicts with the changes it replays.
    static let replicaConflicts = Locked<Set<String>>([])

    /// Whether the tests asked for the next replica read of a store in `schema` to be cancelled
    /// (each request taken by one read).
    static func takeReplicaConflict(forSchema schema: String) -> Bool {
        replicaConflicts.withLock { schemas in schemas.isEmpty ? false : schemas.remove(schema) != nil }
    }

    /// Ends the server process of `connection`, as a server restart would.
    static func dropConnection(_ connection: PostgreSQLConnection) {
        _ = try? connection.execute("SELECT pg_terminate_backend(pg_backend_pid())", [], "dropping the connection")
    }
}
