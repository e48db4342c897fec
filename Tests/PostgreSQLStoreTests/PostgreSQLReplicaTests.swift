import Foundation
import MetricsTestKit
@testable import PostgreSQLStore
import StoreCore
import Testing

extension PostgreSQLClusterTests {
    /// Read replicas on a primary with a hot standby (`scripts/postgres-cluster.sh`): fetches,
    /// counts and faults go to the standby, saves to the primary; after a save the next read sees
    /// it (the standby has replayed it, or the primary answers); the replica's lag is reported.
    ///
    /// The standby's replay is paused (`pg_wal_replay_pause()`) to tell the servers apart: a row
    /// written on the primary behind the store's back is then on the primary only. Serialized:
    /// pausing replay is visible to every test.
    @Suite(.serialized, .enabled(if: PostgreSQLClusterAccess.isAvailable, PostgreSQLClusterAccess.skipReason))
    struct PostgreSQLReplicaTests {
        /// A coordinator on a fresh store on the cluster's primary reading its standby.
        static func coordinator(
            _ cluster: PostgreSQLClusterAccess, schema: String = PostgreSQLClusterAccess.freshSchema("rp"), url: URL? = nil,
            replicas: Bool = true, wait: Double = 10, readConnections: Int = 2, history: Bool = false,
            observability: StoreObservability = StoreObservability()
        ) throws -> (PersistentStoreCoordinator, StoreHandle, schema: String) {
            let registry = StoreRegistry()
            PostgreSQLStore.register(in: registry)
            let coordinator = PersistentStoreCoordinator(
                model: try PostgreSQLRemoteChangeTests.model(), registry: registry, observability: observability)
            var options: StoreOptions = [
                PostgreSQLOptionKey.readConnections: .int(Int64(readConnections)), PostgreSQLOptionKey.replicaWaitTimeout: .double(wait),
            ]
            if replicas { options[PostgreSQLOptionKey.replicas] = .string(cluster.standby) }
            if history { options[StoreOptionKey.persistentHistoryTracking] = .bool(true) }
            let handle = try coordinator.addPersistentStore(
                type: PostgreSQLStore.storeType, at: try url ?? PostgreSQLClusterAccess.url(cluster.primary, [("schema", schema)]),
                options: options)
            return (coordinator, handle, schema)
        }

        /// Saves counters with `indexes` from a new context.
        static func insert(_ indexes: [Int], into coordinator: PersistentStoreCoordinator) throws -> [ObjectID] {
            let context = ManagedObjectContext(coordinator: coordinator)
            let objects = try indexes.map { index in
                let counter = try context.insert(entityName: "Counter")
                try counter.setValue(.int(Int64(index)), forKey: "index")
                return counter
            }
            try context.save()
            return objects.map(\.objectID)
        }

        /// The counters' indexes a fetch of a new context reads.
        static func indexes(_ coordinator: PersistentStoreCoordinator) throws -> [Int64] {
            var request = FetchRequest(entityName: "Counter")
            request.sortKeys = [SortKey("index")]
            // The objects read their values through their context: it lives until they are read.
            let context = ManagedObjectContext(coordinator: coordinator)
            return try context.fetch(request).compactMap {
                if case .int(let index) = $0.value(forKey: "index") { return index }
                return nil
            }
        }

        /// Writes a counter row on the primary behind the store's back (the store does not know of
        /// it, so its reads do not wait for it).
        static func insertBehindTheStore(_ cluster: PostgreSQLClusterAccess, schema: String, index: Int) throws {
            let admin = try PostgreSQLClusterAccess.admin(cluster.primary)
            try admin.execute(
                """
                INSERT INTO \(PostgreSQLConnection.quote(schema)).zcounter (z_pk, z_ent, z_opt, zindex, zcount, ztag)
                SELECT 100000 + $1::bigint, z_ent, 1, $1::bigint, 0, -1 FROM \(PostgreSQLConnection.quote(schema)).z_primarykey WHERE z_name = 'Counter'
                """, [.text(String(index))])
        }

        /// Runs `body` with the standby's replay paused, resuming it afterwards whatever happens.
        static func withReplayPaused<T>(_ cluster: PostgreSQLClusterAccess, _ body: () throws -> T) throws -> T {
            let standby = try PostgreSQLClusterAccess.admin(cluster.standby)
            // Records replayed after this returns wait (the startup process checks before each).
            try standby.execute("SELECT pg_wal_replay_pause()")
            defer { _ = try? standby.execute("SELECT pg_wal_replay_resume()") }
            return try body()
        }

        static func status(_ handle: StoreHandle, _ coordinator: PersistentStoreCoordinator) throws -> PostgreSQLReplicaStatus {
            try #require(PostgreSQLStore.replicaStatus(of: handle, in: coordinator))
        }

        @Test(arguments: [0, 2])
        func fetchesCountsAndFaultsAreAnsweredByTheStandby(readConnections: Int) throws {
            let cluster = try PostgreSQLClusterAccess()
            let (coordinator, handle, schema) = try Self.coordinator(cluster, readConnections: readConnections)
            let ids = try Self.insert([0, 1, 2], into: coordinator)
            // The standby replays the save (read-your-writes) and answers.
            #expect(try Self.indexes(coordinator) == [0, 1, 2])
            #expect(try Self.status(handle, coordinator).replicaReads >= 1)
            #expect(try Self.status(handle, coordinator).primaryReads == 0)

            try Self.withReplayPaused(cluster) {
                try Self.insertBehindTheStore(cluster, schema: schema, index: 9)
                let primaryRows = try PostgreSQLClusterAccess.admin(cluster.primary).execute(
                    "SELECT count(*) FROM \(PostgreSQLConnection.quote(schema)).zcounter")
                #expect(primaryRows.int64(0, 0) == 4)
                // The row written behind the store is on the primary only: the reads do not see it.
                #expect(try Self.indexes(coordinator) == [0, 1, 2])
                let count = FetchRequest(entityName: "Counter")
                #expect(try ManagedObjectContext(coordinator: coordinator).count(for: count) == 3)
                let context = ManagedObjectContext(coordinator: coordinator)
                #expect(try context.existingObject(with: ids[1]).value(forKey: "index") == .int(1))
                withExtendedLifetime(context) {}
                let missing = try ObjectID(storeIdentifier: #require(ids.first?.storeIdentifier), entityName: "Counter", reference: .int(100_009))
                #expect(throws: StoreError.self) { try ManagedObjectContext(coordinator: coordinator).existingObject(with: missing) }
                #expect(try Self.status(handle, coordinator).primaryReads == 0)
            }
            // Replay resumed: a save, then a read that sees both it and the row written meanwhile.
            _ = try Self.insert([3], into: coordinator)
            #expect(try Self.indexes(coordinator) == [0, 1, 2, 3, 9])
            #expect(try Self.status(handle, coordinator).primaryReads == 0)
        }

        @Test func aFetchAfterASaveSeesItThroughTheStandbyOrElseThePrimary() throws {
            let cluster = try PostgreSQLClusterAccess()
            let (coordinator, handle, _) = try Self.coordinator(cluster, wait: 10)
            for round in 0..<5 {
                _ = try Self.insert([round], into: coordinator)
                #expect(try Self.indexes(coordinator) == Array(0...Int64(round)))
            }
            let before = try Self.status(handle, coordinator)
            #expect(before.primaryReads == 0, "every read after a save waited for the standby, which caught up")
            #expect(before.replicaReads >= 5)

            // A standby that does not catch up within the wait: the primary answers.
            let (slow, slowHandle, _) = try Self.coordinator(cluster, wait: 0.2)
            try Self.withReplayPaused(cluster) {
                let id = try #require(Self.insert([7], into: slow).first)
                #expect(try Self.indexes(slow) == [7])
                #expect(try Self.status(slowHandle, slow).primaryReads >= 1)
                // A fault of the object just saved, in a new context.
                let context = ManagedObjectContext(coordinator: slow)
                #expect(try context.existingObject(with: id).value(forKey: "index") == .int(7))
                withExtendedLifetime(context) {}
            }
        }

        @Test func aConflictingSaveRereadsTheNewerRowsFromAReplicaThatHasThem() throws {
            let cluster = try PostgreSQLClusterAccess()
            let (coordinator, _, schema) = try Self.coordinator(cluster)
            let id = try #require(Self.insert([1], into: coordinator).first)
            let context = ManagedObjectContext(coordinator: coordinator)
            context.mergePolicy = .mergeByPropertyObjectTrump
            let counter = try context.existingObject(with: id)
            _ = counter.value(forKey: "count")
            // Another instance changes the row on the primary.
            try PostgreSQLClusterAccess.admin(cluster.primary).execute(
                "UPDATE \(PostgreSQLConnection.quote(schema)).zcounter SET zcount = 40, z_opt = z_opt + 1")
            try counter.setValue(.int(5), forKey: "tag")
            try context.save()
            let rows = try PostgreSQLClusterAccess.admin(cluster.primary).execute(
                "SELECT zcount, ztag FROM \(PostgreSQLConnection.quote(schema)).zcounter")
            #expect(rows.text(0, 0) == "40")
            #expect(rows.text(0, 1) == "5")
        }

        @Test func oneMultiHostURIPreferringAStandbyWritesThePrimaryAndReadsTheStandby() throws {
            let cluster = try PostgreSQLClusterAccess()
            let schema = PostgreSQLClusterAccess.freshSchema("rp")
            let url = try cluster.multiHostURL("prefer-standby", schema: schema)
            let (coordinator, handle, _) = try Self.coordinator(cluster, schema: schema, url: url, replicas: false)
            _ = try Self.insert([0, 1], into: coordinator)
            #expect(try Self.indexes(coordinator) == [0, 1])
            let status = try Self.status(handle, coordinator)

            #expect(status.replicaReads >= 1)
            #expect(status.replica?.contains("prefer-standby") == true)
            try Self.withReplayPaused(cluster) {
                try Self.insertBehindTheStore(cluster, schema: schema, index: 9)
                #expect(try Self.indexes(coordinator) == [0, 1])
            }
        }

        @Test func theLagIsReportedAsAPropertyAndAGauge() throws {
            let cluster = try PostgreSQLClusterAccess()
            let metrics = TestMetrics()
            let (coordinator, handle, _) = try Self.coordinator(
                cluster, wait: 0.1, observability: StoreObservability(metricsFactory: metrics, name: "Replicated"))
            _ = try Self.insert([0], into: coordinator)
            _ = try Self.indexes(coordinator)
            let status = try Self.status(handle, coordinator)
            #expect(status.lagBytes != nil)
            #expect(status.measuredAt != nil)
            #expect(status.replica != nil)
            let dimensions = [("store.type", "PostgreSQL"), ("store.name", "Replicated")]
            let gauge = try metrics.expectGauge("persistence.replica.lag_bytes", dimensions)
            #expect(!gauge.values.isEmpty)

            // Behind: a save the paused standby has not replayed.
            try Self.withReplayPaused(cluster) {
                _ = try Self.insert([1], into: coordinator)
                _ = try Self.indexes(coordinator)
                let behind = try Self.status(handle, coordinator)
                #expect((behind.lagBytes ?? 0) > 0)
                #expect((gauge.lastValue ?? 0) > 0)
            }
        }

        @Test func aStoreWithoutReplicasReportsNone() throws {
            let cluster = try PostgreSQLClusterAccess()
            let (coordinator, handle, _) = try Self.coordinator(cluster, replicas: false)
            _ = try Self.insert([0], into: coordinator)
            #expect(PostgreSQLStore.replicaStatus(of: handle, in: coordinator) == nil)
        }

        /// The PostgreSQL store `handle` names, for `body` to look at or set up.
        static func withStore(_ handle: StoreHandle, of coordinator: PersistentStoreCoordinator, _ body: (PostgreSQLStore) -> Void) throws {
            try coordinator.withStore(handle) { store in body(try #require(store as? PostgreSQLStore)) }
        }

        /// Reads are monotonic across the servers: once the primary has answered a read (the
        /// replica could not), a later read does not go back to a replica that has not replayed
        /// what that read saw.
        @Test func aReadAfterThePrimaryAnsweredSeesNoLessOnTheReplica() throws {
            let cluster = try PostgreSQLClusterAccess()
            let (coordinator, handle, schema) = try Self.coordinator(cluster, wait: 0.2, readConnections: 0)
            _ = try Self.insert([0], into: coordinator)
            #expect(try Self.indexes(coordinator) == [0])
            try Self.withReplayPaused(cluster) {
                try Self.insertBehindTheStore(cluster, schema: schema, index: 9)
                #expect(try Self.indexes(coordinator) == [0], "the standby answers, without the row written behind the store")
                // The replica cannot be reached for a moment: the primary answers, with the row.
                try Self.withStore(handle, of: coordinator) { $0.dropReplica() }
                #expect(try Self.indexes(coordinator) == [0, 9])
                // The replica is back, still without the row: the read waits for it in vain, and
                // the primary answers again.
                try Self.withStore(handle, of: coordinator) { $0.replicaRetryAt = nil }
                let before = try Self.status(handle, coordinator).primaryReads
                #expect(try Self.indexes(coordinator) == [0, 9], "no read sees less than the one before")
                #expect(try Self.status(handle, coordinator).primaryReads == before + 1)
            }
        }

        /// Another instance's save, heard as a remote change, raises the position reads wait
        /// for: what it names is read from the replica only once the replica has replayed it.
        @Test func aRemoteChangeIsReadFromTheReplicaOnlyOnceItHasReplayedIt() throws {
            let cluster = try PostgreSQLClusterAccess()
            let schema = PostgreSQLClusterAccess.freshSchema("rp")
            let (reader, handle, _) = try Self.coordinator(cluster, schema: schema, wait: 0.2, readConnections: 0, history: true)
            let (writer, _, _) = try Self.coordinator(cluster, schema: schema, replicas: false, history: true)
            let heard = DispatchSemaphore(value: 0)
            let observer = reader.addRemoteChangeObserver { _ in heard.signal() }
            defer { withExtendedLifetime(observer) {} }
            try Self.withReplayPaused(cluster) {
                _ = try Self.insert([5], into: writer)
                #expect(heard.wait(timeout: .now() + 60) == .success, "the reader hears of the save")
                #expect(try Self.indexes(reader) == [5], "the paused standby has not replayed the save: the primary answers")
                #expect(try Self.status(handle, reader).primaryReads >= 1)
            }
        }

        /// A read the standby cancels because it conflicts with the changes it replays
        /// (SQLSTATE 40001) is answered by the primary, not failed.
        @Test(arguments: [0, 2])
        func aReadCancelledInARecoveryConflictIsAnsweredByThePrimary(readConnections: Int) throws {
            let cluster = try PostgreSQLClusterAccess()
            let (coordinator, handle, schema) = try Self.coordinator(cluster, readConnections: readConnections)
            _ = try Self.insert([0, 1], into: coordinator)
            #expect(try Self.indexes(coordinator) == [0, 1])
            let before = try Self.status(handle, coordinator).primaryReads
            PostgreSQLStore.replicaConflicts.withLock { _ = $0.insert(schema) }
            #expect(try Self.indexes(coordinator) == [0, 1])
            #expect(PostgreSQLStore.replicaConflicts.withLock { !$0.contains(schema) }, "the replica read was cancelled")
            #expect(try Self.status(handle, coordinator).primaryReads == before + 1)
        }
    }
}
