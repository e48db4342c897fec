import Foundation
import StoreCore

/// Hears of other processes' saves to a PostgreSQL store and posts them to the coordinator as
/// ``RemoteChange``s (Core Data's `NSPersistentStoreRemoteChange`).
///
/// Every save that records persistent history also queues a `NOTIFY` on the store's channel,
/// its payload the history transaction number (PostgreSQL delivers it at commit, and never for
/// a save that rolled back). The listener runs on a thread of its own with one connection of
/// its own (not the store's, which is used under the coordinator's lock, nor the read pool's):
/// it `LISTEN`s, waits on the connection's socket, and on each notification reads the history
/// after the last transaction it posted — the history, not the notification, is the truth, so
/// notifications that were merged by the server, arrived late, or were lost with a connection
/// take nothing away. Transactions this coordinator saved itself are left out (its contexts
/// hear of them through the coordinator's saves).
///
/// A lost connection is connected again (backoff from 50 ms to 1 s, for as long as the
/// listener runs); once listening again the listener reads the history it missed. A connection
/// that died silently (a partition) is noticed by TCP keepalives (`PostgreSQLEndpoint.connectionDefaults`). It stops
/// when the store is removed or deallocated, or its coordinator is gone.
final class PostgreSQLChangeListener: Sendable {
    /// Set to stop the thread.
    private let stopped = Locked(false)
    /// How often the thread looks at `stopped` while no notification arrives, in milliseconds.
    private static let pollInterval: Int32 = 200

    /// What the listener's thread needs of the store, copied: the thread never touches the
    /// store, which belongs to the coordinator's lock.
    struct Source: Sendable {
        let endpoint: PostgreSQLEndpoint
        let channel: String
        let storeIdentifier: String
        let entityNames: [Int: String]
        let place: String
        /// The transaction numbers this coordinator's saves recorded, not posted as remote.
        let ownTransactions: Locked<Set<Int64>>
        /// The store's read replicas: before a remote change is posted, the position reads
        /// wait for is raised to the primary's, so what the change names is read from a
        /// replica only once it has replayed it. Nil for a store without replicas.
        let replication: PostgreSQLReplication?
    }

    /// Starts listening for saves after history transaction `lastSeen` (nil: after the last
    /// one committed when the listener first connects), posting them to `coordinator`. The
    /// first connection is made here, so the listener listens when the store has been added
    /// (when it cannot connect, its thread keeps trying).
    init(source: Source, after lastSeen: Int64?, coordinator: PersistentStoreCoordinator) {
        let stopped = stopped
        // Handed to the thread, which alone uses it from then on.
        let first = Locked(try? Self.listen(source))
        let thread = Thread { [weak coordinator] in
            let connection = first.withLock { opened in
                defer { opened = nil }
                return opened
            }
            Self.run(source: source, connection: connection, after: lastSeen, stopped: stopped) { change in
                guard let coordinator else { return false }
                coordinator.postRemoteChange(change)
                return true
            }
        }
        thread.name = "PersistentStores.PostgreSQLChangeListener"
        thread.start()
    }

    /// Stops the thread (within ``pollInterval``); it closes its connection.
    func stop() {
        stopped.withLock { $0 = true }
    }

    deinit { stop() }

    /// The thread's loop. `post` returns false once the coordinator is gone.
    private static func run(
        source: Source, connection first: PostgreSQLConnection?, after start: Int64?, stopped: Locked<Bool>, post: (RemoteChange) -> Bool
    ) {
        var lastSeen = start
        var connection = first
        if let first, lastSeen == nil { lastSeen = try? latestTransaction(on: first) }
        var delay = 0.05
        while !stopped.withLock({ $0 }) {
            if connection == nil {
                do {
                    let opened = try listen(source)
                    connection = opened
                    delay = 0.05
                    if lastSeen == nil {
                        lastSeen = try latestTransaction(on: opened)
                    } else {
                        // Whatever was committed while no connection listened.
                        guard catchUp(source, on: opened, after: &lastSeen, post: post) else { return }
                    }
                } catch {
                    connection = nil
                    Thread.sleep(forTimeInterval: delay)
                    delay = min(delay * 2, 1)
                    continue
                }
            }
            guard let listening = connection else { continue }
            // A notification that arrived while the last query's results were read (the history
            // just read, the catch-up after connecting) is in libpq's queue already, and the
            // socket will not wake `poll` for it: take those first.
            var payloads = listening.queuedNotifications()
            if payloads.isEmpty {
                var descriptor = pollfd(fd: listening.socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, pollInterval)
                if ready < 0 && errno != EINTR {
                    connection = nil
                    continue
                }
                guard ready > 0 else { continue }
                guard let received = listening.receiveNotifications() else {
                    connection = nil
                    continue
                }
                payloads = received
            }
            guard !payloads.isEmpty else { continue }
            // A payload names a transaction; one already read needs no query.
            let newest = payloads.compactMap { Int64($0) }.max()
            if let newest, let seen = lastSeen, newest <= seen { continue }
            guard catchUp(source, on: listening, after: &lastSeen, post: post) else { return }
            if listening.isBroken { connection = nil }
        }
    }

    /// Connects and listens on the store's channel.
    private static func listen(_ source: Source) throws -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(endpoint: source.endpoint)
        try connection.execute("SET search_path TO \(PostgreSQLConnection.quote(source.endpoint.schema))", [], "choosing the schema")
        try connection.execute("LISTEN \(PostgreSQLConnection.quote(source.channel))", [], "listening for other processes' saves")
        return connection
    }

    /// The number of the last history transaction committed (0 for none or no history tables).
    static func latestTransaction(on connection: PostgreSQLConnection) throws -> Int64 {
        let rows = try connection.execute(
            "SELECT CASE WHEN to_regclass('atransaction') IS NULL THEN 0 ELSE (SELECT COALESCE(max(Z_PK), 0) FROM ATRANSACTION) END",
            [], "reading the last history transaction")
        return rows.int64(0, 0) ?? 0
    }

    /// Reads the history after `lastSeen`, posts the transactions other coordinators saved and
    /// advances `lastSeen`; false once the coordinator is gone. A failed read leaves `lastSeen`
    /// where it was: the next notification or reconnection reads it again.
    private static func catchUp(_ source: Source, on connection: PostgreSQLConnection, after lastSeen: inout Int64?, post: (RemoteChange) -> Bool)
        -> Bool
    {
        guard
            let transactions = try? PostgreSQLStore.readHistory(
                after: lastSeen ?? 0, on: connection, storeIdentifier: source.storeIdentifier, entityNames: source.entityNames,
                place: source.place)
        else { return true }
        guard let last = transactions.last?.number else { return true }
        lastSeen = last
        let remote = source.ownTransactions.withLock { own in
            transactions.filter { own.remove($0.number) == nil }
        }
        guard !remote.isEmpty else { return true }
        if let replication = source.replication {
            // Read after the history, so at or past every commit it holds; unknown (nil) sends
            // reads to the primary until a later position is read.
            let position = try? connection.execute("SELECT pg_current_wal_lsn()::text", [], "reading the primary's log position").text(0, 0)
            replication.primaryReached(position.flatMap(PostgreSQLReplication.position))
        }
        return post(RemoteChange(storeIdentifier: source.storeIdentifier, transactions: remote))
    }
}
