import CSQLite
import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

@Suite("SQLite connection")
struct SQLiteConnectionTests {
    @Test("Errors carry code 134180, SQLite's message and extended code, and the SQL")
    func errors() throws {
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        let error = try #require(throws: StoreError.self) { try connection.prepare("SELECT * FROM nowhere") }
        #expect(error.code == .sqlite)
        #expect(error.message.contains("no such table: nowhere"))
        #expect(error.message.contains("SELECT * FROM nowhere"))
        try connection.execute("CREATE TABLE t (a INTEGER PRIMARY KEY)")
        let insert = try connection.cached("INSERT INTO t (a) VALUES (?)")
        insert.bind(int64: 1, at: 1)
        try insert.run()
        let again = try connection.cached("INSERT INTO t (a) VALUES (?)")
        again.bind(int64: 1, at: 1)
        let constraint = try #require(throws: StoreError.self) { try again.run() }
        #expect(constraint.code == .sqlite)
        #expect(constraint.message.contains("SQLite error 1555"))
    }

    @Test("A transaction rolls back when its body throws and commits otherwise")
    func transactions() throws {
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        try connection.execute("CREATE TABLE t (a INTEGER)")
        struct Failure: Error {}
        #expect(throws: Failure.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO t VALUES (1)")
                throw Failure()
            }
        }
        try connection.transaction {
            try connection.execute("INSERT INTO t VALUES (2)")
            // A nested transaction is a savepoint: its failure leaves the outer one intact.
            try? connection.transaction {
                try connection.execute("INSERT INTO t VALUES (3)")
                throw Failure()
            }
        }
        let statement = try connection.prepare("SELECT group_concat(a) FROM t")
        #expect(try statement.step())
        #expect(statement.text(at: 0) == "2")
        #expect(!connection.isInTransaction)
    }

    @Test("Cached statements are prepared once and come back reset")
    func statementCache() throws {
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        let first = try connection.cached("SELECT ? + 1")
        first.bind(int64: 41, at: 1)
        #expect(try first.step())
        #expect(first.int64(at: 0) == 42)
        let second = try connection.cached("SELECT ? + 1")
        #expect(first === second)
        #expect(try second.step())
        #expect(second.isNull(at: 0))  // bindings were cleared
        #expect(connection.cachedStatementCount == 1)
        for n in 0..<(SQLiteConnection.statementCacheLimit + 10) {
            let statement = try connection.cached("SELECT \(n)")
            #expect(try statement.step())
            #expect(statement.int64(at: 0) == Int64(n))
        }
        #expect(connection.cachedStatementCount <= SQLiteConnection.statementCacheLimit)
    }

    static let values: [(AttributeType, StoreValue)] = [
        (.integer16, .int(Int64(Int16.min))), (.integer32, .int(Int64(Int32.max))), (.integer64, .int(.max)),
        (.integer64, .int(.min)), (.double, .double(0)), (.double, .double(-0.0)), (.double, .double(.infinity)),
        (.double, .double(-.infinity)), (.double, .double(.nan)), (.double, .double(.leastNonzeroMagnitude)),
        (.double, .double(3)), (.float, .double(Double(Float(1.1)))),
        (.decimal, .decimal(Decimal(string: "12345678901234567890123456789012345678")!)),
        (.decimal, .decimal(Decimal(string: "0.1")!)), (.decimal, .decimal(Decimal(string: "-42")!)),
        (.decimal, .decimal(Decimal(string: "3.14159265358979323846264338327950288")!)),
        (.string, ""), (.string, "'); DROP TABLE t; --"), (.string, "a\0b|=,\\\"<&\n😀e\u{301}"),
        (.boolean, true), (.boolean, false),
        (.date, .date(Date(timeIntervalSinceReferenceDate: -1_000_000_000.123456))),
        (.date, .date(Date(timeIntervalSince1970: -86_400.5))), (.binaryData, .data(Data())),
        (.binaryData, .data(Data([0, 1, 2, 255]))), (.transformable, .data(Data(repeating: 7, count: 1 << 20))),
        (.uuid, .uuid(UUID())), (.uri, .uri(URL(string: "https://example.com/a?b=c#d")!)),
        (.objectID, .objectID(ObjectID(storeIdentifier: "S", entityName: "E", reference: .int(5)))),
    ]

    @Test("Every attribute type round-trips exactly through a column", arguments: values.indices)
    func valueRoundTrip(index: Int) throws {
        let (type, value) = Self.values[index]
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        try connection.execute("CREATE TABLE t (v \(SQLSchema.columnType(of: type)))")
        let insert = try connection.cached("INSERT INTO t (v) VALUES (?)")
        SQLiteValueCoder.bind(value, to: insert, at: 1)
        try insert.run()
        let select = try connection.cached("SELECT v FROM t")
        #expect(try select.step())
        let read = try SQLiteValueCoder.read(select, at: 0, as: type, describe: { "v" })
        #expect(read == value, "\(type): wrote \(value), read \(read.map(String.init(describing:)) ?? "NULL")")
        if case .double(let written) = value, case .double(let back)? = read {
            #expect(written.sign == back.sign)
        }
    }

    @Test("A value that is not of the attribute's type is an error naming the place")
    func badStoredValue() throws {
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        try connection.execute("CREATE TABLE t (v TIMESTAMP); INSERT INTO t VALUES ('yesterday')")
        let select = try connection.cached("SELECT v FROM t")
        #expect(try select.step())
        let error = try #require(throws: StoreError.self) {
            try SQLiteValueCoder.read(select, at: 0, as: .date, describe: { "Item.when of row 1" })
        }
        #expect(error.message.contains("Item.when of row 1"))
    }
}
