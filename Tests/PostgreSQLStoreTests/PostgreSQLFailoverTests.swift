import Foundation
@testable import PostgreSQLStore
import StoreCore
import Testing

extension PostgreSQLClusterTests {
    /// Failover on a primary with a hot standby (`scripts/postgres-cluster.sh`, started afresh by
    /// each test, which stops or kills its primary and promotes its standby): a store whose URL is
    /// one multi-host URI with `target_session_attrs=read-write` follows the promoted standby, and
    /// under synchronous commit no acknowledged save is lost when the primary is killed mid-save.
    @Suite(
        .serialized,
        .enabled(if: PostgreSQLClusterAccess.isAvailable, PostgreSQLClusterAccess.skipReason),
        .enabled(if: PostgreSQLClusterAccess.script != nil, PostgreSQLClusterAccess.failoverSkipReason))
    struct PostgreSQLFailoverTests {
        /// A fresh cluster (synchronous commit with `synchronous`), a store on it through one
        /// multi-host URI asking for the server that takes writes, reading the standby.
        static func freshCluster(synchronous: Bool) throws -> (PostgreSQLClusterAccess, PersistentStoreCoordinator, schema: String) {
            try PostgreSQLClusterAccess.run("stop")
            try PostgreSQLClusterAccess.run("start", environment: ["PERSISTENTSTORES_CLUSTER_SYNCHRONOUS": synchronous ? "1" : "0"])
            let cluster = try PostgreSQLClusterAccess()
            let schema = PostgreSQLClusterAccess.freshSchema("fo")
            let registry = StoreRegistry()
            PostgreSQLStore.register(in: registry)
            let coordinator = PersistentStoreCoordinator(model: try PostgreSQLRemoteChangeTests.model(), registry: registry)
            try coordinator.addPersistentStore(
                type: PostgreSQLStore.storeType, at: try cluster.multiHostURL("read-write", schema: schema),
                options: [
                    PostgreSQLOptionKey.replicas: .string(cluster.standby), PostgreSQLOptionKey.reconnectTimeout: .double(60),
                    PostgreSQLOptionKey.readConnections: .int(1),
                ])
            return (cluster, coordinator, schema)
        }

        /// The counters' indexes on the server that takes writes now, read on an administrator's
        /// connection (not through the store).
        static func rows(_ cluster: PostgreSQLClusterAccess, schema: String) throws -> [Int64] {
            let admin = try PostgreSQLClusterAccess.admin(cluster.multiHostURL("read-write", schema: schema).absoluteString)
            let rows = try admin.execute("SELECT zindex FROM \(PostgreSQLConnection.quote(schema)).zcounter ORDER BY zindex")
            return (0..<rows.rowCount).compactMap { rows.int64($0, 0) }
        }

        @Test func aStoreFollowsAPromotedStandbyAndSavesAgain() throws {
            let (cluster, coordinator, schema) = try Self.freshCluster(synchronous: false)
            defer { _ = try? PostgreSQLClusterAccess.run("stop") }
            _ = try PostgreSQLReplicaTests.insert([0, 1], into: coordinator)
            #expect(try PostgreSQLReplicaTests.indexes(coordinator) == [0, 1])

            try PostgreSQLClusterAccess.run("stop-primary")
            try PostgreSQLClusterAccess.run("promote")
            let promoted = try PostgreSQLClusterAccess.admin(cluster.standby)
            #expect(try promoted.execute("SELECT pg_is_in_recovery()").text(0, 0) == "f")

            // The next save finds its connection gone, connects to the promoted server and runs.
            _ = try PostgreSQLReplicaTests.insert([2], into: coordinator)
            #expect(try PostgreSQLReplicaTests.indexes(coordinator) == [0, 1, 2])
            #expect(try Self.rows(cluster, schema: schema) == [0, 1, 2])
            let context = ManagedObjectContext(coordinator: coordinator)
            let first = try #require(context.fetch(FetchRequest(entityName: "Counter")).first)
            try first.setValue(.int(3), forKey: "count")
            try context.save()
            #expect(try Self.rows(cluster, schema: schema).count == 3)
        }

        /// Saves one new counter per save from a thread of their own, recording which were
        /// acknowledged and which failed, until told to stop.
        final class Saver: Sendable {
            struct Outcomes {
                var acknowledged: [Int64] = []
                var failed: [(index: Int64, code: StoreError.Code, message: String)] = []
                var stop = false
            }
            let outcomes = Locked(Outcomes())
            let condition = NSCondition()

            func run(_ coordinator: PersistentStoreCoordinator) {
                var index: Int64 = 0
                while !outcomes.withLock({ $0.stop }) {
                    index += 1
                    let context = ManagedObjectContext(coordinator: coordinator)
                    do {
                        try context.insert(entityName: "Counter").setValue(.int(index), forKey: "index")
                        try context.save()
                        outcomes.withLock { $0.acknowledged.append(index) }
                    } catch let error as StoreError {
                        outcomes.withLock { $0.failed.append((index, error.code, error.message)) }
                    } catch {
                        outcomes.withLock { $0.failed.append((index, .coreData, "\(error)")) }
                    }
                    condition.lock()
                    condition.broadcast()
                    condition.unlock()
                }
            }

            /// Waits until `count` saves were acknowledged (at most `seconds`); false when not.
            func waitForAcknowledged(_ count: Int, seconds: Double = 120) -> Bool {
                let deadline = Date(timeIntervalSinceNow: seconds)
                condition.lock()
                defer { condition.unlock() }
                while outcomes.withLock({ $0.acknowledged.count }) < count {
                    guard condition.wait(until: deadline) else { return false }
                }
                return true
            }
        }

        @Test func noAcknowledgedSaveIsLostWhenThePrimaryIsKilledUnderSynchronousCommit() throws {
            let (cluster, coordinator, schema) = try Self.freshCluster(synchronous: true)
            defer { _ = try? PostgreSQLClusterAccess.run("stop") }
            let saver = Saver()
            let finished = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                saver.run(coordinator)
                finished.signal()
            }
            #expect(saver.waitForAcknowledged(30))
            // kill -9 while saves run, then promote the standby.
            try PostgreSQLClusterAccess.run("kill-primary")
            let atKill = saver.outcomes.withLock { $0.acknowledged.count }
            try PostgreSQLClusterAccess.run("promote")
            // Saves go on, on the promoted server.
            #expect(saver.waitForAcknowledged(atKill + 20))
            saver.outcomes.withLock { $0.stop = true }
            finished.wait()

            let outcomes = saver.outcomes.withLock { $0 }
            let rows = try Self.rows(cluster, schema: schema)
            let stored = Set(rows)
            #expect(rows.count == stored.count, "a save was applied twice: \(rows)")
            let lost = outcomes.acknowledged.filter { !stored.contains($0) }
            #expect(lost.isEmpty, "acknowledged saves lost: \(lost)")
            // A failed save left nothing, unless it failed saying it may have been committed.
            for (index, code, _) in outcomes.failed where stored.contains(index) {
                #expect(code == .persistentStoreIncompleteSave, "save \(index) failed with \(code) but was committed")
            }
            #expect(stored.isSubset(of: Set(outcomes.acknowledged + outcomes.failed.map(\.index))))
            // One line of counts (scripts/failover-kills.sh reads it), then the failures.
            let inDoubt = outcomes.failed.filter { $0.code == .persistentStoreIncompleteSave }
            print(
                "kill -9 of the primary under synchronous commit: acknowledged=\(outcomes.acknowledged.count) before-kill=\(atKill) "
                    + "failed=\(outcomes.failed.count) in-doubt=\(inDoubt.count) in-doubt-committed=\(inDoubt.filter { stored.contains($0.index) }.count) "
                    + "rows=\(rows.count) duplicates=\(rows.count - stored.count) lost=\(lost.count) network=\(PostgreSQLClusterAccess.network)")
            print("failures: \(outcomes.failed.map { "\($0.index): \($0.code) \($0.message)" })")
        }
    }
}
