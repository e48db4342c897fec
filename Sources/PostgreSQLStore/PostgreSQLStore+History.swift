import Foundation
import StoreCore

/// Persistent history, as the SQLite store keeps it: with `StoreOptionKey.persistentHistoryTracking`,
/// each save also writes one row of `ATRANSACTION` (number, time, author, context name) and one
/// row of `ACHANGE` per object, in the save's own transaction, so another process sees a save's
/// history exactly when it sees the save. Transaction numbers come from a sequence (they never
/// go back, also after a purge), and saves that record history take a transaction-level lock
/// first, so numbers follow the order in which saves commit: a process reading the history after
/// the last number it saw never misses a save that committed later with a smaller number.
extension PostgreSQLStore: PersistentHistoryStore {
    /// Whether the store was added with `StoreOptionKey.persistentHistoryTracking`.
    public var recordsHistory: Bool { options[StoreOptionKey.persistentHistoryTracking] == .bool(true) }

    /// The advisory lock saves that record history hold ("PSHIST").
    static let historyLockKey: Int64 = 0x50_53_48_49_53_54

    /// Creates the history tables when the store records history.
    func prepareHistory(_ connection: PostgreSQLConnection) throws {
        guard recordsHistory, !isReadOnly else { return }
        try connection.transaction {
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK bigserial PRIMARY KEY, ZTIMESTAMP double precision, ZAUTHOR text, ZCONTEXTNAME text)",
                [], "creating the history tables")
            try connection.execute(
                "CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK bigserial PRIMARY KEY, ZTRANSACTIONID bigint, ZCHANGETYPE bigint, ZENTITY bigint, ZENTITYPK bigint, ZCOLUMNS text)",
                [], "creating the history tables")
            try connection.execute(
                "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)", [], "creating the history tables")
        }
    }

    /// Writes the history of one save (inside its transaction) and returns its transaction
    /// number. The same statement queues a notification on the store's channel
    /// (``notificationChannel``) with the number as its payload: PostgreSQL delivers it to the
    /// listening instances when, and only when, the save commits.
    @discardableResult
    func recordHistory(of request: SaveChangesRequest, connection: PostgreSQLConnection, schema: SQLSchema) throws -> Int64 {
        try connection.execute("SELECT pg_advisory_xact_lock(\(Self.historyLockKey))", [], "waiting for other saves recording history")
        let inserted = try connection.execute(
            "WITH t AS (INSERT INTO ATRANSACTION (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME) VALUES ($1, $2, $3) RETURNING Z_PK) "
                + "SELECT Z_PK, pg_notify($4, Z_PK::text) FROM t",
            [
                PostgreSQLValueCoder.parameter(.double(Date().timeIntervalSinceReferenceDate)),
                request.transactionAuthor.map { .text(PostgreSQLValueCoder.storable($0)) } ?? .null,
                request.contextName.map { .text(PostgreSQLValueCoder.storable($0)) } ?? .null,
                .text(notificationChannel),
            ], "recording the history of a save")
        guard let number = inserted.int64(0, 0) else {
            throw StoreError(.persistentStoreSave, "\(capitalizedPlace) did not number a history transaction")
        }
        // Before COMMIT: this coordinator's listener must know the transaction as its own
        // however soon the notification arrives (without a listener nobody asks).
        if listener != nil { _ = ownTransactions.withLock { $0.insert(number) } }
        func record(_ id: ObjectID, _ kind: HistoryChange.Kind, _ columns: Set<String>?) throws {
            guard let entity = schema.entityNumbers[id.entityName] else { return }
            let names: PostgreSQLParameter = columns.map { $0.isEmpty ? .null : .text($0.sorted().joined(separator: ",")) } ?? .null
            try connection.execute(
                "INSERT INTO ACHANGE (ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) VALUES ($1, $2, $3, $4, $5)",
                [.text(String(number)), .text(String(kind.rawValue)), .text(String(entity)), .text(String(try primaryKey(of: id))), names],
                "recording the history of a save")
        }
        for node in request.insertedObjects { try record(node.objectID, .insert, nil) }
        for node in request.updatedObjects { try record(node.objectID, .update, request.changedKeys[node.objectID]) }
        for node in request.deletedObjects { try record(node.objectID, .delete, nil) }
        return number
    }

    /// The channel the store's saves are announced on: `ps_` and the store identifier's letters
    /// and digits (a channel name has at most 63 bytes).
    var notificationChannel: String { Self.notificationChannel(storeIdentifier: identifier) }

    /// The channel of the store `storeIdentifier`.
    static func notificationChannel(storeIdentifier: String) -> String {
        "ps_" + String(String.UnicodeScalarView(storeIdentifier.lowercased().unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) }).prefix(60))
    }

    /// Whether the history tables exist (a store added once without the option has none).
    private func hasHistoryTables(_ connection: PostgreSQLConnection) throws -> Bool {
        try connection.execute(
            "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = $1 AND tablename = 'atransaction'", [.text(endpoint.schema)],
            "looking for the history tables").rowCount > 0
    }

    /// The transactions after number `transaction`, each with its changes, in order.
    public func history(after transaction: Int64?) throws -> [HistoryTransaction] {
        try retryingRead {
            let (connection, schema) = try ready()
            guard recordsHistory, try hasHistoryTables(connection) else { return [] }
            return try Self.readHistory(
                after: transaction, on: connection, storeIdentifier: identifier, entityNames: schema.entityNames, place: place)
        }
    }

    /// The transactions after number `transaction` read on `connection` (whose search path
    /// starts with the store's schema), each with its changes, in order: what
    /// ``history(after:)`` and the change listener read.
    static func readHistory(
        after transaction: Int64?, on connection: PostgreSQLConnection, storeIdentifier: String, entityNames: [Int: String], place: String
    ) throws -> [HistoryTransaction] {
        let rows = try connection.execute(
            "SELECT t.Z_PK, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS "
                + "FROM ATRANSACTION t LEFT JOIN ACHANGE c ON c.ZTRANSACTIONID = t.Z_PK WHERE t.Z_PK > $1 ORDER BY t.Z_PK, c.Z_PK",
            [.text(String(transaction ?? 0))], "reading the history")
        var result: [HistoryTransaction] = []
        var current: (number: Int64, timestamp: Date, author: String?, contextName: String?, changes: [HistoryChange])?
        func finish() {
            guard let current else { return }
            result.append(
                HistoryTransaction(
                    storeIdentifier: storeIdentifier, number: current.number, timestamp: current.timestamp, author: current.author,
                    contextName: current.contextName, changes: current.changes))
        }
        for row in 0..<rows.rowCount {
            let number = rows.int64(row, 0) ?? 0
            if current?.number != number {
                finish()
                current = (
                    number, Date(timeIntervalSinceReferenceDate: rows.text(row, 1).flatMap(Double.init) ?? 0),
                    rows.text(row, 2).map(PostgreSQLValueCoder.original), rows.text(row, 3).map(PostgreSQLValueCoder.original), []
                )
            }
            guard let raw = rows.int64(row, 4), let kind = HistoryChange.Kind(rawValue: Int(raw)) else { continue }
            let entityNumber = Int(rows.int64(row, 5) ?? 0)
            let primaryKey = rows.int64(row, 6) ?? 0
            guard let name = entityNames[entityNumber] else {
                throw StoreError(
                    .persistentStoreOpen, "Row \(primaryKey) of \(place) has entity number \(entityNumber), which the model does not have")
            }
            let id = ObjectID(storeIdentifier: storeIdentifier, entityName: name, reference: .int(primaryKey))
            let columns = rows.text(row, 7).map { Set($0.split(separator: ",").map(String.init)) } ?? []
            current?.changes.append(HistoryChange(objectID: id, kind: kind, updatedProperties: columns))
        }
        finish()
        return result
    }

    /// Removes the transactions numbered below `transaction`, with their changes.
    public func deleteHistory(before transaction: Int64) throws {
        let (connection, _) = try ready()
        guard recordsHistory, !isReadOnly, try hasHistoryTables(connection) else { return }
        try connection.transaction {
            try connection.execute("DELETE FROM ACHANGE WHERE ZTRANSACTIONID < $1", [.text(String(transaction))], "purging the history")
            try connection.execute("DELETE FROM ATRANSACTION WHERE Z_PK < $1", [.text(String(transaction))], "purging the history")
        }
    }
}
