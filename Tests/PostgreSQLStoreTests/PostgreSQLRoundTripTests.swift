import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Round trips dominate the cost of small reads on PostgreSQL: a statement to prepare is
/// prepared in the round trip of its first run (pipeline mode), a count or a fetch is one round
/// trip, the first time as the next, and a statement whose preparation or run fails leaves the
/// connection usable.
@Suite struct PostgreSQLRoundTripTests {
    @Test func aStatementIsPreparedInTheRoundTripOfItsFirstRun() throws {
        let connection = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL("trips")))
        let before = connection.roundTrips
        let first = try connection.execute("SELECT $1::bigint + 1", [.text("41")], prepared: true)
        #expect(first.text(0, 0) == "42")
        #expect(connection.roundTrips - before == 1)
        let second = try connection.execute("SELECT $1::bigint + 1", [.text("1")], binary: true, prepared: true)
        #expect(second.binaryInteger(0, 0) == 2)
        #expect(connection.roundTrips - before == 2)
    }

    @Test func aStatementThatFailsToPrepareOrToRunLeavesTheConnectionUsable() throws {
        let connection = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: try TestPostgreSQLServer.freshStoreURL("trips")))
        let syntax = storeError { try connection.execute("SELEC $1::int", [.text("1")], prepared: true, "running a misspelt statement") }
        #expect(syntax?.code == .persistentStoreOperation)
        #expect(syntax?.message.contains("while running a misspelt statement") == true, "\(syntax?.message ?? "")")
        #expect(try connection.execute("SELECT 7", prepared: true).text(0, 0) == "7")

        try connection.execute("CREATE TEMPORARY TABLE t (k int PRIMARY KEY)")
        let insert = "INSERT INTO t VALUES ($1)"
        try connection.execute(insert, [.text("1")], prepared: true)
        let duplicate = storeError {
            try connection.transaction { _ = try connection.execute(insert, [.text("1")], prepared: true, "inserting a duplicate") }
        }
        #expect(duplicate?.code == .managedObjectConstraintMerge)
        // A first run that fails (its preparation succeeded): prepared again next time, and it runs.
        let fresh = "INSERT INTO t VALUES ($1) RETURNING k"
        #expect(storeError { _ = try connection.execute(fresh, [.text("1")], prepared: true) }?.code == .managedObjectConstraintMerge)
        #expect(try connection.execute(fresh, [.text("2")], prepared: true).text(0, 0) == "2")
        #expect(try connection.execute("SELECT count(*) FROM t").text(0, 0) == "2")
    }

    static func store(_ url: URL) throws -> PostgreSQLStore {
        let model = try ObjectModel {
            Entity("Person") {
                Attribute("name", .string, indexed: true)
                Attribute("age", .integer32)
            }
        }
        let store = try PostgreSQLStore(model: model, configurationName: nil, url: url, options: [:])
        try store.loadMetadata()
        return store
    }

    @Test func aCountAndAFetchWithALimitAreOneRoundTripEach() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("trips")
        let writer = try Self.store(url)
        let ids = try writer.obtainPermanentIDs(for: (0..<300).map { _ in ObjectID.temporary(entityName: "Person") })
        let nodes = ids.enumerated().map { index, id in
            StoreNode(objectID: id, attributes: ["name": .string("\(["Ada", "Bob", "Al"][index % 3]) \(index)"), "age": .int(Int64(index % 60))])
        }
        _ = try writer.save(SaveChangesRequest(insertedObjects: nodes))

        let store = try Self.store(url)
        let connection = try #require(store.connection)
        var count = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age > 40"))
        count.resultType = .count
        var page = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age BETWEEN {20, 40} AND name BEGINSWITH 'A'"))
        page.sortKeys = [SortKey("name")]
        page.fetchLimit = 100
        for _ in 0..<2 {
            var before = connection.roundTrips
            #expect(try store.fetch(count) == .count(95))
            #expect(connection.roundTrips - before == 1)
            before = connection.roundTrips
            guard case .nodes(let rows) = try store.fetch(page) else {
                Issue.record("no rows")
                return
            }
            #expect(connection.roundTrips - before == 1)
            #expect(rows.count == 70)
            let names = rows.compactMap { row -> String? in
                guard case .string(let name)? = row.attributeValue(forKey: "name") else { return nil }
                return name
            }
            #expect(names == names.sorted() && names.allSatisfy { $0.hasPrefix("A") })
        }
    }
}
