import Foundation
import StoreCore

/// Read replicas: with ``PostgreSQLOptionKey/replicas`` (or a URL asking libpq for a standby),
/// fetches, counts and faults go to a hot standby, and saves, batch requests and key
/// reservations to the primary. Read-your-writes: after each write the store reads the
/// primary's write-ahead-log position, and a replica answers a read only once it has replayed
/// that far (waiting at most ``PostgreSQLOptionKey/replicaWaitTimeout``); otherwise the primary
/// answers. A replica that cannot be reached is left alone for a second, its reads going to the
/// primary meanwhile.
///
/// Reads are monotonic across the two servers: after the primary answered a read (the replica
/// was behind, unreachable, or cancelled the read), the primary's position is read and reads
/// wait for it as for a write's, so no later read sees less than that one did. Remote changes
/// (other instances' saves heard by the listener) raise the position the same way before they
/// are posted, so objects refreshed by a merge are not read from a replica that has not
/// replayed those saves.
extension PostgreSQLStore {
    /// What the store knows of its read replica and where its reads went; nil for a store
    /// without replicas.
    public var replicaStatus: PostgreSQLReplicaStatus? { replication?.status }

    /// The `replicaStatus` of the PostgreSQL store `handle` names in `coordinator`; nil when it
    /// is not such a store or reads no replicas.
    public static func replicaStatus(of handle: StoreHandle, in coordinator: PersistentStoreCoordinator) -> PostgreSQLReplicaStatus? {
        PostgreSQLReplication.registered(key: PostgreSQLReplication.key(coordinator: coordinator, storeIdentifier: handle.identifier))?.status
    }

    /// Runs a write (a save or a batch request) and then, for a store with replicas, reads the
    /// primary's position, so later reads see the write — and, after a conflict, the newer rows
    /// that caused it.
    func afterWriting<T>(_ write: () throws -> T) throws -> T {
        guard replication != nil else { return try write() }
        defer { if let connection { notePrimaryPosition(on: connection) } }
        return try write()
    }

    /// Raises the position reads must see to the primary's current one (read on `connection`);
    /// when it cannot be read, reads go to the primary until a later write's position is read.
    func notePrimaryPosition(on connection: PostgreSQLConnection) {
        guard let replication else { return }
        let position = try? connection.execute("SELECT pg_current_wal_lsn()::text", [], "reading the primary's log position").text(0, 0)
        replication.primaryReached(position.flatMap(PostgreSQLReplication.position))
    }

    /// The connection and schema a read uses: the pinned one, a replica that has replayed the
    /// store's latest write, or else the primary.
    func readable() throws -> (PostgreSQLConnection, SQLSchema) {
        guard let schema else {
            throw StoreError(.persistentStoreOperation, "\(capitalizedPlace) is not open (loadMetadata has not run)")
        }
        if let pinnedRead { return (pinnedRead, schema) }
        return (try readTarget(), schema)
    }

    /// Where the next read goes (see ``readable()``), counted in the replica status.
    func readTarget() throws -> PostgreSQLConnection {
        guard let replication else { return try ready().0 }
        if let replica = freshReplica(replication) {
            replication.countRead(onReplica: true)
            if Self.takeReplicaConflict(forSchema: endpoint.schema) {
                // What a hot standby says of a read it cancels (see `retryingRead`).
                try replica.execute(
                    "DO $$BEGIN RAISE EXCEPTION 'canceling statement due to conflict with recovery' USING ERRCODE = '40001'; END$$", [],
                    "reading (a recovery conflict the tests provoke)")
            }
            return replica
        }
        replication.countRead(onReplica: false)
        primaryAnsweredRead = true
        return try primaryForReading()
    }

    /// The primary connection; a reader of the read pool with replicas opens its own on first
    /// use.
    private func primaryForReading() throws -> PostgreSQLConnection {
        if let connection { return connection }
        let opened = try openSession()
        opened.observer = replication?.instrumentation.flatMap { $0.observesStatements ? $0 : nil }
        connection = opened
        return opened
    }

    /// A replica connection that has replayed the required position (waiting for it, bounded),
    /// or nil: none can be reached, the position is unknown, or it did not catch up in time.
    private func freshReplica(_ replication: PostgreSQLReplication) -> PostgreSQLConnection? {
        guard let required = replication.requiredPosition, let opened = openReplica(replication) else { return nil }
        let (replica, endpoint) = opened
        let start = ContinuousClock.now
        // A position replayed once stays replayed; the lag is measured again once a second.
        if let seen = replicaReplayed, seen.position >= required, seen.at.duration(to: start) < .seconds(1) { return replica }
        var delay = 0.001
        while true {
            let position: PostgreSQLReplication.ReplicaPosition
            do {
                position = try replication.measure(replica, replica: endpoint)
            } catch {
                dropReplica()
                return nil
            }
            // A promoted standby is a primary: it has everything it will ever have.
            let replayed = position.isStandby ? position.replayed : UInt64.max
            replicaReplayed = (replayed, ContinuousClock.now)
            if replayed >= required { return replica }
            guard start.duration(to: .now) + .milliseconds(Int(delay * 1000)) <= .milliseconds(Int(replication.waitTimeout * 1000)) else {
                return nil
            }
            Thread.sleep(forTimeInterval: delay)
            delay = min(delay * 2, 0.05)
        }
    }

    /// The open replica connection, or a new one to the first replica that answers; nil when
    /// none does (then none is tried for a second).
    private func openReplica(_ replication: PostgreSQLReplication) -> (PostgreSQLConnection, PostgreSQLEndpoint)? {
        if let replicaConnection, !replicaConnection.isBroken, let endpoint = replicaEndpoint { return (replicaConnection, endpoint) }
        dropReplica(retryNow: true)
        if let replicaRetryAt, ContinuousClock.now < replicaRetryAt { return nil }
        for endpoint in replication.endpoints {
            guard let opened = try? openSession(to: endpoint, readOnly: true) else { continue }
            opened.observer = replication.instrumentation.flatMap { $0.observesStatements ? $0 : nil }
            replicaConnection = opened
            replicaEndpoint = endpoint
            return (opened, endpoint)
        }
        replicaRetryAt = ContinuousClock.now + .seconds(1)
        return nil
    }

    /// Closes the replica connection; unless `retryNow`, no replica is tried for a second.
    func dropReplica(retryNow: Bool = false) {
        if replicaConnection != nil && !retryNow { replicaRetryAt = ContinuousClock.now + .seconds(1) }
        replicaConnection = nil
        replicaEndpoint = nil
        replicaReplayed = nil
    }
}
