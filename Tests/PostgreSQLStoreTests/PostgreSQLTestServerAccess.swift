import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// What the tests of notifications and lost connections do to the test server: connect as its
/// administrator, make a role of their own (whose connections they can end and refuse without
/// touching other tests' connections), end connections, and wait until they are gone.
struct PostgreSQLTestServerAccess {
    /// A connection as the server's administrator.
    let admin: PostgreSQLConnection

    init() throws {
        admin = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL()))
        // The `unaccent` extension is made by the administrator before any test role exists
        // (under the lock stores are created with). Made by the first store's role instead, it
        // would belong to that role, and `dropRole` (`DROP OWNED BY … CASCADE`) would drop it —
        // with the functions of every other test's store, failing stores created meanwhile.
        try admin.execute("SELECT pg_advisory_lock(\(PostgreSQLSchema.creationLockKey))")
        defer { _ = try? admin.execute("SELECT pg_advisory_unlock(\(PostgreSQLSchema.creationLockKey))") }
        try admin.execute("CREATE EXTENSION IF NOT EXISTS unaccent SCHEMA public")
    }

    /// A new superuser role (so it may create a store's schema, functions and extensions) and a
    /// URL of a fresh store connecting as it, with `password` in the URL (the test server trusts
    /// local connections, so it is never checked, only carried).
    func newRole(label: String, password: String = "pw-s3cret-Zq") throws -> (role: String, url: URL, schema: String) {
        let role = "\(label)_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(12).lowercased())"
        try admin.execute("CREATE ROLE \(PostgreSQLConnection.quote(role)) SUPERUSER LOGIN")
        let url = try TestPostgreSQLServer.freshStoreURL(label)
        var components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        var items = (components.queryItems ?? []).filter { $0.name != "user" }
        items.append(URLQueryItem(name: "user", value: role))
        items.append(URLQueryItem(name: "password", value: password))
        components.queryItems = items
        let schema = try #require(items.first { $0.name == "schema" }?.value)
        return (role, try #require(components.url), schema)
    }

    /// Refuses (or allows again) new connections of `role`.
    func setLogin(_ role: String, allowed: Bool) throws {
        try admin.execute("ALTER ROLE \(PostgreSQLConnection.quote(role)) \(allowed ? "LOGIN" : "NOLOGIN")")
    }

    /// Ends every connection of `role`, as a server restart would, waiting until each server
    /// process has exited (`pg_terminate_backend` with a timeout, at most 10 s).
    func dropConnections(of role: String) throws {
        let ended = try admin.execute(
            "SELECT bool_and(pg_terminate_backend(pid, 10000)) FROM pg_stat_activity WHERE usename = $1", [.text(role)])
        #expect(ended.text(0, 0) != "f", "a connection of \(role) did not end within 10 s")
    }

    /// The number of connections of `role`.
    func connectionCount(of role: String) throws -> Int64 {
        try admin.execute("SELECT count(*) FROM pg_stat_activity WHERE usename = $1", [.text(role)]).int64(0, 0) ?? -1
    }

    /// Removes the role (its connections ended first).
    func dropRole(_ role: String) {
        _ = try? admin.execute("SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity WHERE usename = $1", [.text(role)])
        _ = try? admin.execute("DROP OWNED BY \(PostgreSQLConnection.quote(role)) CASCADE")
        _ = try? admin.execute("DROP ROLE \(PostgreSQLConnection.quote(role))")
    }
}

/// Collects the remote changes a coordinator posts and waits for them (bounded), so tests wait
/// for the event itself rather than for time to pass.
final class RemoteChangeRecorder: Sendable {
    private let changes = Locked<[RemoteChange]>([])
    private let condition = NSCondition()
    private let token: ObserverToken
    private let coordinator: PersistentStoreCoordinator

    init(_ coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        let changes = changes
        let condition = condition
        token = coordinator.addRemoteChangeObserver { change in
            condition.lock()
            changes.withLock { $0.append(change) }
            condition.broadcast()
            condition.unlock()
        }
    }

    deinit { coordinator.removeRemoteChangeObserver(token) }

    /// Every change posted so far.
    var received: [RemoteChange] { changes.withLock { $0 } }
    /// Every transaction posted so far, in order.
    var transactions: [HistoryTransaction] { received.flatMap(\.transactions) }

    /// Waits until `done` holds for the transactions received (at most `seconds`); false when
    /// it never did.
    @discardableResult
    func wait(seconds: Double = 20, until done: ([HistoryTransaction]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !done(transactions) {
            guard condition.wait(until: deadline) else { return done(transactions) }
        }
        return true
    }
}
