import Foundation
import StoreCore

/// Persistent history: with `StoreOptionKey.persistentHistoryTracking`, each save also
/// writes one row of `ATRANSACTION` (number, time, author, context name) and one row of
/// `ACHANGE` per object (insert, update with the changed properties, delete), in the save's own
/// transaction — so a reader sees a save's history exactly when it sees the save, in this
/// process or another. Transaction numbers only grow (`AUTOINCREMENT`), also after a purge.
extension SQLiteStore: PersistentHistoryStore {
    /// Whether the store was added with `StoreOptionKey.persistentHistoryTracking`.
    public var recordsHistory: Bool { options[StoreOptionKey.persistentHistoryTracking] == .bool(true) }

    /// The history tables (created when the store is added with the option, unless read-only).
    static let historyTableStatements = [
        "CREATE TABLE IF NOT EXISTS ATRANSACTION (Z_PK INTEGER PRIMARY KEY AUTOINCREMENT, ZTIMESTAMP FLOAT, ZAUTHOR VARCHAR, ZCONTEXTNAME VARCHAR)",
        "CREATE TABLE IF NOT EXISTS ACHANGE (Z_PK INTEGER PRIMARY KEY, ZTRANSACTIONID INTEGER, ZCHANGETYPE INTEGER, ZENTITY INTEGER, ZENTITYPK INTEGER, ZCOLUMNS VARCHAR)",
        "CREATE INDEX IF NOT EXISTS ACHANGE_ZTRANSACTIONID_INDEX ON ACHANGE (ZTRANSACTIONID)",
    ]

    /// Creates the history tables when the store records history.
    func prepareHistory(_ connection: SQLiteConnection) throws {
        guard recordsHistory, !isReadOnly else { return }
        try connection.transaction {
            for statement in Self.historyTableStatements { try connection.execute(statement) }
        }
    }

    /// Writes the history of one save (inside its transaction).
    func recordHistory(of request: SaveChangesRequest, connection: SQLiteConnection, schema: SQLSchema) throws {
        let transaction = try connection.cached("INSERT INTO ATRANSACTION (ZTIMESTAMP, ZAUTHOR, ZCONTEXTNAME) VALUES (?, ?, ?)")
        transaction.bind(double: Date().timeIntervalSinceReferenceDate, at: 1)
        SQLiteValueCoder.bind(request.transactionAuthor.map(StoreValue.string) ?? .null, to: transaction, at: 2)
        SQLiteValueCoder.bind(request.contextName.map(StoreValue.string) ?? .null, to: transaction, at: 3)
        try transaction.run()
        let number = connection.lastInsertRowID
        let change = try connection.cached(
            "INSERT INTO ACHANGE (ZTRANSACTIONID, ZCHANGETYPE, ZENTITY, ZENTITYPK, ZCOLUMNS) VALUES (?, ?, ?, ?, ?)")
        func record(_ id: ObjectID, _ kind: HistoryChange.Kind, _ columns: Set<String>?) throws {
            guard let entity = schema.entityNumbers[id.entityName] else { return }
            change.bind(int64: number, at: 1)
            change.bind(int64: Int64(kind.rawValue), at: 2)
            change.bind(int64: Int64(entity), at: 3)
            change.bind(int64: try primaryKey(of: id), at: 4)
            if let columns, !columns.isEmpty {
                change.bind(text: columns.sorted().joined(separator: ","), at: 5)
            } else {
                change.bindNull(at: 5)
            }
            try change.run()
        }
        for index in request.insertedObjects.indices { try record(request.insertedObjects[index].objectID, .insert, nil) }
        for index in request.updatedObjects.indices {
            let id = request.updatedObjects[index].objectID
            try record(id, .update, request.changedKeys[id])
        }
        for index in request.deletedObjects.indices { try record(request.deletedObjects[index].objectID, .delete, nil) }
    }

    /// The transactions after number `transaction`, each with its changes, in order.
    public func history(after transaction: Int64?) throws -> [HistoryTransaction] {
        let (connection, schema) = try ready()
        guard recordsHistory, try connection.tableNames().contains("ATRANSACTION") else { return [] }
        let statement = try connection.prepare(
            "SELECT t.Z_PK, t.ZTIMESTAMP, t.ZAUTHOR, t.ZCONTEXTNAME, c.ZCHANGETYPE, c.ZENTITY, c.ZENTITYPK, c.ZCOLUMNS "
                + "FROM ATRANSACTION t LEFT JOIN ACHANGE c ON c.ZTRANSACTIONID = t.Z_PK WHERE t.Z_PK > ? ORDER BY t.Z_PK, c.Z_PK")
        defer { statement.finalize() }
        statement.bind(int64: transaction ?? 0, at: 1)
        var result: [HistoryTransaction] = []
        var current: (number: Int64, timestamp: Date, author: String?, contextName: String?, changes: [HistoryChange])?
        func finish() {
            guard let current else { return }
            result.append(
                HistoryTransaction(
                    storeIdentifier: identifier, number: current.number, timestamp: current.timestamp, author: current.author,
                    contextName: current.contextName, changes: current.changes))
        }
        while try statement.step() {
            let number = statement.int64(at: 0)
            if current?.number != number {
                finish()
                current = (
                    number, Date(timeIntervalSinceReferenceDate: statement.double(at: 1)),
                    statement.isNull(at: 2) ? nil : statement.text(at: 2), statement.isNull(at: 3) ? nil : statement.text(at: 3), []
                )
            }
            guard !statement.isNull(at: 4), let kind = HistoryChange.Kind(rawValue: Int(statement.int64(at: 4))) else { continue }
            let id = try objectID(entityNumber: Int(statement.int64(at: 5)), primaryKey: statement.int64(at: 6), schema: schema, store: identifier)
            let columns = statement.isNull(at: 7) ? [] : Set(statement.text(at: 7).split(separator: ",").map(String.init))
            current?.changes.append(HistoryChange(objectID: id, kind: kind, updatedProperties: columns))
        }
        finish()
        return result
    }

    /// Removes the transactions numbered below `transaction`, with their changes.
    public func deleteHistory(before transaction: Int64) throws {
        let (connection, _) = try ready()
        guard recordsHistory, !isReadOnly, try connection.tableNames().contains("ATRANSACTION") else { return }
        try connection.transaction {
            let changes = try connection.cached("DELETE FROM ACHANGE WHERE ZTRANSACTIONID < ?")
            changes.bind(int64: transaction, at: 1)
            try changes.run()
            let transactions = try connection.cached("DELETE FROM ATRANSACTION WHERE Z_PK < ?")
            transactions.bind(int64: transaction, at: 1)
            try transactions.run()
        }
    }
}
