import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Losing the server: connections ended as a server restart ends them (`pg_terminate_backend`),
/// refused while the server is "down" (the store's role may not log in), and lost around a
/// save's `COMMIT`. A fetch is run once more on a new connection; a save is never applied
/// twice and never reported saved when it was not; what cannot be recovered fails naming the
/// server (never the password) and the objects.
@Suite struct PostgreSQLReconnectTests {
    static func coordinator(_ url: URL, readConnections: Int, timeout: Double = 10) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try PostgreSQLRemoteChangeTests.model(), registry: registry)
        try coordinator.addPersistentStore(
            type: PostgreSQLStore.storeType, at: url,
            options: [
                PostgreSQLOptionKey.readConnections: .int(Int64(readConnections)), PostgreSQLOptionKey.reconnectTimeout: .double(timeout),
            ])
        return coordinator
    }

    /// The counters a fetch of a new context reads, as "index:count".
    static func counters(_ coordinator: PersistentStoreCoordinator) throws -> [String] {
        var request = FetchRequest(entityName: "Counter")
        request.sortKeys = [SortKey("index")]
        let context = ManagedObjectContext(coordinator: coordinator)
        return try context.fetch(request).map { "\($0.value(forKey: "index")):\($0.value(forKey: "count"))" }
    }

    /// The counters' rows in the server, as "index:count", read on the administrator's
    /// connection (not through the store).
    static func rows(_ server: PostgreSQLTestServerAccess, schema: String) throws -> [String] {
        let rows = try server.admin.execute("SELECT zindex, zcount FROM \(PostgreSQLConnection.quote(schema)).zcounter ORDER BY zindex, z_pk")
        return (0..<rows.rowCount).map { "\(rows.text($0, 0) ?? "nil"):\(rows.text($0, 1) ?? "nil")" }
    }

    @Test(arguments: [0, 2])
    func aFetchAfterTheConnectionsWereLostRunsOnNewOnes(readConnections: Int) throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, _) = try server.newRole(label: "rf")
        defer { server.dropRole(role) }
        let coordinator = try Self.coordinator(url, readConnections: readConnections)
        let context = ManagedObjectContext(coordinator: coordinator)
        for index in 0..<3 { try context.insert(entityName: "Counter").setValue(.int(Int64(index)), forKey: "index") }
        try context.save()
        #expect(try Self.counters(coordinator).count == 3)

        try server.dropConnections(of: role)
        #expect(try server.connectionCount(of: role) == 0)
        #expect(try Self.counters(coordinator) == ["0:0", "1:0", "2:0"])
        #expect(try server.connectionCount(of: role) >= 1)
        // A fault (read on the store's own connection, whatever the read pool) too.
        let id = try #require(context.registeredObjects.first { $0.value(forKey: "index") == .int(2) }?.objectID)
        context.reset()
        try server.dropConnections(of: role)
        let other = ManagedObjectContext(coordinator: coordinator)
        #expect(try other.existingObject(with: id).value(forKey: "index") == .int(2))
    }

    @Test func aFetchWhileTheServerStaysDownFailsNamingTheServerWithoutThePassword() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, _) = try server.newRole(label: "rd", password: "pw-Never-Shown-77")
        defer { server.dropRole(role) }
        let coordinator = try Self.coordinator(url, readConnections: 0, timeout: 0.3)
        try server.setLogin(role, allowed: false)
        try server.dropConnections(of: role)
        let error = storeError { _ = try Self.counters(coordinator) }
        #expect(error?.code == .persistentStoreOperation)
        let message = error?.message ?? ""
        #expect(message.contains("Lost the connection to PostgreSQL at postgresql://"), "\(message)")
        #expect(message.contains("could not connect again"), "\(message)")
        #expect(!message.contains("pw-Never-Shown-77"), "\(message)")
        // Once the server is back, the store is too.
        try server.setLogin(role, allowed: true)
        #expect(try Self.counters(coordinator).isEmpty)
    }

    @Test func aSaveAfterTheConnectionWasLostWhileIdleIsWrittenOnce() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, schema) = try server.newRole(label: "ri")
        defer { server.dropRole(role) }
        let coordinator = try Self.coordinator(url, readConnections: 0)
        let context = ManagedObjectContext(coordinator: coordinator)
        let counter = try context.insert(entityName: "Counter")
        try context.save()
        try server.dropConnections(of: role)
        try counter.setValue(.int(1), forKey: "count")
        _ = try context.insert(entityName: "Counter")
        try context.save()
        #expect(try Self.rows(server, schema: schema) == ["0:1", "0:0"])
    }

    @Test func aSaveWhoseConnectionWasLostAtCommitAndRolledBackIsWrittenOnce() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, schema) = try server.newRole(label: "rb")
        defer { server.dropRole(role) }
        let coordinator = try Self.coordinator(url, readConnections: 0)
        let context = ManagedObjectContext(coordinator: coordinator)
        let counter = try context.insert(entityName: "Counter")
        try context.save()

        // The connection is lost just before COMMIT: the server rolls the save back, the store
        // learns so from the server (txid_status) and writes it once more.
        PostgreSQLStore.commitFaults.withLock { $0[schema] = .dropBeforeCommit }
        try counter.setValue(.int(1), forKey: "count")
        let inserted = try context.insert(entityName: "Counter")
        try inserted.setValue(.int(7), forKey: "index")
        try context.save()
        #expect(PostgreSQLStore.commitFaults.withLock { $0[schema] } == nil, "the fault was injected")
        #expect(try Self.rows(server, schema: schema) == ["0:1", "7:0"])
        // The versions the save reported are the rows': the next save does not conflict.
        try counter.setValue(.int(2), forKey: "count")
        try context.save()
        #expect(try Self.rows(server, schema: schema) == ["0:2", "7:0"])
    }

    @Test func aSaveCommittedWhoseAcknowledgementWasLostIsNotWrittenTwice() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, schema) = try server.newRole(label: "ra")
        defer { server.dropRole(role) }
        let coordinator = try Self.coordinator(url, readConnections: 0)
        let context = ManagedObjectContext(coordinator: coordinator)
        let counter = try context.insert(entityName: "Counter")
        try context.save()

        // COMMIT succeeds, then the connection is lost before the store hears of it: the store
        // learns from the server that it was committed and reports it saved, without writing
        // it again (an increment applied twice would read 2; an insert twice, a duplicate key).
        PostgreSQLStore.commitFaults.withLock { $0[schema] = .dropAfterCommit }
        try counter.setValue(.int(1), forKey: "count")
        _ = try context.insert(entityName: "Counter")
        try context.save()
        #expect(PostgreSQLStore.commitFaults.withLock { $0[schema] } == nil, "the fault was injected")
        #expect(try Self.rows(server, schema: schema) == ["0:1", "0:0"])
        try counter.setValue(.int(2), forKey: "count")
        try context.save()
        #expect(try Self.rows(server, schema: schema) == ["0:2", "0:0"])
    }

    @Test func aSaveInDoubtWhileTheServerStaysDownFailsNamingTheServerAndTheObjects() throws {
        let server = try PostgreSQLTestServerAccess()
        let (role, url, schema) = try server.newRole(label: "rx", password: "pw-Hidden-31")
        defer { server.dropRole(role) }
        let coordinator = try Self.coordinator(url, readConnections: 0, timeout: 0.3)
        let context = ManagedObjectContext(coordinator: coordinator)
        let counter = try context.insert(entityName: "Counter")
        try context.save()

        // New connections are refused from now on; the save's connection is lost at COMMIT.
        try server.setLogin(role, allowed: false)
        PostgreSQLStore.commitFaults.withLock { $0[schema] = .dropBeforeCommit }
        try counter.setValue(.int(1), forKey: "count")
        let error = storeError { try context.save() }
        #expect(error?.code == .persistentStoreIncompleteSave)
        let message = error?.message ?? ""
        #expect(message.contains("may or may not have been committed"), "\(message)")
        #expect(message.contains("postgresql://"), "\(message)")
        #expect(!message.contains("pw-Hidden-31"), "\(message)")
        #expect(error?.objectIDs.contains(counter.objectID) == true)
        // The server rolled it back: nothing was written, and the same save succeeds once the
        // server is back.
        try server.setLogin(role, allowed: true)
        #expect(try Self.rows(server, schema: schema) == ["0:0"])
        try context.save()
        #expect(try Self.rows(server, schema: schema) == ["0:1"])
    }
}
