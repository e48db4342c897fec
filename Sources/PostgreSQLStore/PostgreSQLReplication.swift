import Foundation
import StoreCore

/// The read replicas of one PostgreSQL store, shared by the store and its read pool's readers:
/// where the replicas are, the write-ahead-log position a read must see (read-your-writes), and
/// what the store reports of the replicas (``PostgreSQLReplicaStatus``, the lag gauge).
///
/// Positions are log sequence numbers (LSNs) as 64-bit integers. After each save (and batch
/// request, and when the store is added) the store reads the primary's position
/// (`pg_current_wal_lsn()`, after `COMMIT`, so it is at or past the save's commit record) and
/// raises ``requiredPosition`` to it; a replica answers a read only once it has replayed that
/// far (`pg_last_wal_replay_lsn()`).
final class PostgreSQLReplication: Sendable {
    /// The replicas, tried in order.
    let endpoints: [PostgreSQLEndpoint]
    /// How long a read waits for a replica to replay ``requiredPosition``, in seconds.
    let waitTimeout: Double

    private struct State {
        /// The position every read must see; nil when unknown (a save's position could not be
        /// read): reads go to the primary until a later save's position is read.
        var required: UInt64? = 0
        /// The newest primary position read.
        var primary: UInt64 = 0
        var status = PostgreSQLReplicaStatus()
        var instrumentation: StoreInstrumentation?
    }

    private let state = Locked(State())

    /// The default of ``PostgreSQLOptionKey/replicaWaitTimeout``, in seconds.
    static let defaultWaitTimeout = 1.0

    /// The replicas the options and the URL name, or nil for a store without any.
    ///
    /// - Parameters:
    ///   - given: the store's URL as given; a URL asking for a standby (`target_session_attrs`
    ///     `prefer-standby`, `standby` or `read-only`) is the first replica.
    ///   - options: the store's options (``PostgreSQLOptionKey/replicas``, the wait timeout, and
    ///     the schema, user, password and TLS options the replicas share with the primary).
    /// - Throws: 134080 for a replica that is not a `postgresql://` URI, or an option of the
    ///   wrong kind.
    static func make(given: PostgreSQLEndpoint, options: StoreOptions) throws -> PostgreSQLReplication? {
        var texts: [String] = []
        switch options[PostgreSQLOptionKey.replicas] {
        case nil: break
        case .string(let list)?: texts = list.split(whereSeparator: \.isWhitespace).map(String.init)
        case .array(let values)?:
            for value in values {
                guard case .string(let text) = value else {
                    throw StoreError(.persistentStoreOpen, "The \(PostgreSQLOptionKey.replicas) option lists connection URIs (strings)")
                }
                texts.append(text)
            }
        default:
            throw StoreError(
                .persistentStoreOpen, "The \(PostgreSQLOptionKey.replicas) option is a string of connection URIs or an array of them")
        }
        var endpoints: [PostgreSQLEndpoint] = []
        if prefersStandby(given) { endpoints.append(given) }
        // Host and port are each replica's own; the rest of the options apply to every server.
        var shared = options
        shared[PostgreSQLOptionKey.host] = nil
        shared[PostgreSQLOptionKey.port] = nil
        shared[PostgreSQLOptionKey.schema] = .string(given.schema)
        for text in texts { endpoints.append(try PostgreSQLEndpoint(text: text, options: shared)) }
        guard !endpoints.isEmpty else { return nil }
        let seconds: Double?
        switch options[PostgreSQLOptionKey.replicaWaitTimeout] {
        case nil: seconds = defaultWaitTimeout
        case .double(let value)?: seconds = value
        case .int(let value)?: seconds = Double(value)
        case .string(let text)?: seconds = Double(text)
        default: seconds = nil
        }
        guard let seconds, seconds.isFinite, seconds >= 0 else {
            throw StoreError(.persistentStoreOpen, "The \(PostgreSQLOptionKey.replicaWaitTimeout) option must be a number of seconds, 0 or more")
        }
        return PostgreSQLReplication(endpoints: endpoints, waitTimeout: min(seconds, 60))
    }

    /// Whether `endpoint` asks libpq for a standby.
    static func prefersStandby(_ endpoint: PostgreSQLEndpoint) -> Bool {
        ["prefer-standby", "standby", "read-only"].contains(endpoint.targetSessionAttributes?.lowercased() ?? "")
    }

    private init(endpoints: [PostgreSQLEndpoint], waitTimeout: Double) {
        self.endpoints = endpoints
        self.waitTimeout = waitTimeout
    }

    /// The position a read must see (nil: unknown, read the primary).
    var requiredPosition: UInt64? { state.withLock { $0.required } }

    /// What the store reports of its replicas now.
    var status: PostgreSQLReplicaStatus { state.withLock { $0.status } }

    /// The instrumentation lag measurements are reported to.
    var instrumentation: StoreInstrumentation? {
        get { state.withLock { $0.instrumentation } }
        set { state.withLock { $0.instrumentation = newValue } }
    }

    /// Raises the required position to the primary's `position`, read after a write (nil: it
    /// could not be read, so reads go to the primary until a later one is).
    func primaryReached(_ position: UInt64?) {
        state.withLock { state in
            guard let position else {
                state.required = nil
                return
            }
            state.required = max(state.required ?? 0, position)
            state.primary = max(state.primary, position)
        }
    }

    /// Counts a read answered by a replica (`true`) or by the primary.
    func countRead(onReplica: Bool) {
        state.withLock { state in
            if onReplica { state.status.replicaReads += 1 } else { state.status.primaryReads += 1 }
        }
    }

    /// What a replica said of its position.
    struct ReplicaPosition {
        /// Whether it is a standby (in recovery); a promoted server is not.
        var isStandby: Bool
        var replayed: UInt64
        var received: UInt64
        var secondsBehind: Double?
    }

    /// Reads `connection`'s position (one statement) and records the lag.
    func measure(_ connection: PostgreSQLConnection, replica: PostgreSQLEndpoint) throws -> ReplicaPosition {
        let row = try connection.execute(
            """
            SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text, pg_last_wal_receive_lsn()::text,
                CASE WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
                    ELSE EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()) END
            """, [], "reading the replica's replay position")
        let position = ReplicaPosition(
            isStandby: row.text(0, 0) == "t", replayed: row.text(0, 1).flatMap(Self.position) ?? 0,
            received: row.text(0, 2).flatMap(Self.position) ?? 0, secondsBehind: row.text(0, 3).flatMap(Double.init))
        let (lag, instrumentation) = state.withLock { state in
            let newest = max(state.primary, position.received)
            let lag = position.isStandby && newest > position.replayed ? newest - position.replayed : 0
            state.status.replica = replica.redactedDescription
            state.status.lagBytes = lag
            state.status.lagSeconds = position.isStandby ? (lag == 0 ? 0 : position.secondsBehind) : 0
            state.status.measuredAt = Date()
            return (lag, state.instrumentation)
        }
        instrumentation?.replicaLag(bytes: Int64(clamping: lag))
        return position
    }

    /// A position in PostgreSQL's text form (`16/B374D848`: the high and low 32 bits in hex).
    static func position(_ text: String) -> UInt64? {
        let halves = text.split(separator: "/")
        guard halves.count == 2, let high = UInt64(halves[0], radix: 16), let low = UInt64(halves[1], radix: 16),
            high <= UInt64(UInt32.max), low <= UInt64(UInt32.max)
        else { return nil }
        return high << 32 | low
    }

    // MARK: Finding a store's replicas

    /// The replication of each added store with replicas, by coordinator and store identifier.
    private static let added = Locked<[String: PostgreSQLReplication]>([:])

    /// The key of a store added to `coordinator`.
    static func key(coordinator: PersistentStoreCoordinator, storeIdentifier: String) -> String {
        "\(UInt(bitPattern: ObjectIdentifier(coordinator).hashValue)):\(storeIdentifier)"
    }

    /// Records (or, with nil, forgets) the replication of the store under `key`.
    static func register(_ replication: PostgreSQLReplication?, key: String) {
        added.withLock { $0[key] = replication }
    }

    /// The replication of the store under `key`.
    static func registered(key: String) -> PostgreSQLReplication? {
        added.withLock { $0[key] }
    }
}
