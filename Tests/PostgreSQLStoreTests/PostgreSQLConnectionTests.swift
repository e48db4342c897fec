import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// The libpq layer: connecting, bound parameters of every form, transactions, and errors that
/// name the server without its password.
@Suite struct PostgreSQLConnectionTests {
    @Test func boundParametersRoundTripAndNothingIsSplicedIntoSQL() throws {
        let endpoint = try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL())
        let connection = try PostgreSQLConnection(endpoint: endpoint)
        let hostile = "x'); DROP TABLE t; --\u{0}"
        let bytes = Data((0...255).map(UInt8.init))
        let row = try connection.execute(
            "SELECT $1::text, $2::bigint, $3::bytea, $4::text IS NULL, length($5::text)",
            [.text("héllo ✓"), .text("-9223372036854775808"), .binary(bytes), .null, .text(String(hostile.dropLast()))])
        #expect(row.rowCount == 1)
        #expect(row.text(0, 0) == "héllo ✓")
        #expect(row.int64(0, 1) == Int64.min)
        #expect(row.bytes(0, 2) == bytes)
        #expect(row.text(0, 3) == "t")
        #expect(row.int64(0, 4) == Int64(hostile.count - 1))
    }

    /// A notification that arrives while a query's results are read is queued by libpq and
    /// leaves nothing on the socket: a listener that only waits on the socket never sees it
    /// (the change listener takes the queued ones first).
    @Test func aNotificationReadWithAQuerysResultsIsQueuedNotOnTheSocket() throws {
        let endpoint = try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL())
        let listener = try PostgreSQLConnection(endpoint: endpoint)
        let sender = try PostgreSQLConnection(endpoint: endpoint)
        let channel = "queued_\(UInt32.random(in: 0...UInt32.max))"
        try listener.execute("LISTEN \(channel)", [], "listening")
        try sender.execute("SELECT pg_notify($1, 'first')", [.text(channel)], "notifying")
        // The listener's next query reads the notification along with its own results.
        _ = try listener.execute("SELECT 1", [], "a query")
        var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
        #expect(poll(&descriptor, 1, 300) == 0, "nothing is left on the socket")
        #expect(listener.queuedNotifications() == ["first"])
        #expect(listener.queuedNotifications().isEmpty)
    }

    @Test func aTransactionThatThrowsLeavesNothingBehind() throws {
        let endpoint = try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL())
        let connection = try PostgreSQLConnection(endpoint: endpoint)
        let schema = PostgreSQLConnection.quote(endpoint.schema)
        try connection.execute("CREATE SCHEMA \(schema)")
        try connection.execute("CREATE TABLE \(schema).t (v bigint PRIMARY KEY)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO \(schema).t VALUES (1)")
                try connection.transaction { try connection.execute("INSERT INTO \(schema).t VALUES (2)") }
                throw Stop()
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM \(schema).t").int64(0, 0) == 0)
        try connection.transaction {
            try connection.execute("INSERT INTO \(schema).t VALUES (3)")
            _ = try? connection.transaction { try connection.execute("INSERT INTO \(schema).t VALUES (3)") }
        }
        #expect(try connection.execute("SELECT count(*) FROM \(schema).t").int64(0, 0) == 1)
        let duplicate = storeError { try connection.execute("INSERT INTO \(schema).t VALUES (3)", [], "inserting a row") }
        #expect(duplicate?.code == .managedObjectConstraintMerge)
        #expect(duplicate?.message.contains("23505") == true)
        #expect(duplicate?.message.contains("while inserting a row") == true)
        try connection.execute("DROP SCHEMA \(schema) CASCADE")
    }

    @Test func aPasswordNeverAppearsInAnError() throws {
        let url = try #require(URL(string: "postgresql://someone:s3cret-pw@127.0.0.1:1/nowhere?connect_timeout=2&password=s3cret-too"))
        let error = storeError { _ = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url)) }
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("s3cret") == false, "\(error?.message ?? "")")
        #expect(error?.message.contains("127.0.0.1") == true)
        let notPostgres = storeError { _ = try PostgreSQLEndpoint(url: URL(fileURLWithPath: "/tmp/x.sqlite")) }
        #expect(notPostgres?.message.contains("postgresql://") == true)
        let badSchema = try #require(URL(string: "postgresql://u:pw-secret@h/db?schema=a;drop"))
        let schemaError = storeError { _ = try PostgreSQLEndpoint(url: badSchema) }
        #expect(schemaError?.message.contains("a;drop") == true)
        #expect(schemaError?.message.contains("pw-secret") == false)
    }

    @Test func optionsOverrideTheURLAndAPasswordOptionNeverShows() throws {
        let base = try #require(URLComponents(string: try TestPostgreSQLServer.uri()))
        let host = try #require(base.queryItems?.first { $0.name == "host" }?.value)
        // The URL names another host, database and user: the options win.
        let url = try #require(URL(string: "postgresql://nobody@unreachable.invalid:1/nothing?schema=opts_\(UUID().uuidString.prefix(8).lowercased())"))
        let options: StoreOptions = [
            PostgreSQLOptionKey.host: .string(host), PostgreSQLOptionKey.port: .int(5432), PostgreSQLOptionKey.database: "postgres",
            PostgreSQLOptionKey.user: "postgres", PostgreSQLOptionKey.password: "p&ss=w+rd",
        ]
        let connection = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url, options: options))
        #expect(try connection.execute("SELECT current_user").text(0, 0) == "postgres")
        // A password given as an option is never shown, even when the connection fails.
        var failing = options
        failing[PostgreSQLOptionKey.host] = "127.0.0.1"
        failing[PostgreSQLOptionKey.port] = "1"
        let error = storeError { _ = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url, options: failing)) }
        #expect(error?.message.contains("p&ss") == false, "\(error?.message ?? "")")
        #expect(error?.message.contains("w+rd") == false)
    }
}
