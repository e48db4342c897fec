import Foundation

/// What a PostgreSQL store with read replicas (``PostgreSQLOptionKey/replicas``) knows of the
/// replica it reads, and where its reads went.
///
/// ```swift
/// let handle = try coordinator.addPersistentStore(
///     type: "PostgreSQL", at: primaryURL, options: [PostgreSQLOptionKey.replicas: .string(standbyURI)])
/// if let status = PostgreSQLStore.replicaStatus(of: handle, in: coordinator), let lag = status.lagBytes {
///     print("the replica is \(lag) bytes of WAL behind")
/// }
/// ```
///
/// The lag is measured whenever the store reads the replica's replay position: before the first
/// read after each of this store's saves, and at most once a second otherwise. The same figure
/// goes to the `persistence.replica.lag_bytes` gauge.
public struct PostgreSQLReplicaStatus: Sendable, Hashable {
    /// The replica last read, as its URI without a password; nil before one answered.
    public var replica: String?
    /// How far, in bytes of write-ahead log, the replica's replayed position was behind the
    /// newest primary position known at the last measurement: the one this store last read on
    /// the primary (after its saves) or the one the replica had received, whichever is later. 0
    /// when the replica had replayed both, or when it is no longer a standby (promoted); nil
    /// before a measurement.
    public var lagBytes: UInt64?
    /// Seconds since the primary committed the last transaction the replica replayed, 0 when
    /// the replica had replayed all it received (an idle primary is not lag); nil before a
    /// measurement or when the replica has replayed no transaction since it started.
    public var lagSeconds: Double?
    /// When the lag was measured.
    public var measuredAt: Date?
    /// Reads (fetches, counts, faults) answered by a replica.
    public var replicaReads: Int = 0
    /// Reads answered by the primary: no replica could be reached, or it had not replayed this
    /// store's latest save within ``PostgreSQLOptionKey/replicaWaitTimeout``.
    public var primaryReads: Int = 0
}
