import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// A fault fired on its own reads its row with a SELECT made once per entity and prepared once
/// per connection (found by number, its text not rebuilt); statements kept by number survive
/// the statement cache starting over; compiled fetches find their statements the same way.
@Suite struct SQLiteFaultQueryTests {
    @Test func aSingleFaultReusesItsEntitysPreparedSelect() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        let ids = try insert((0..<5).map { ("Player", ["firstName": .string("f\($0)"), "lastName": .string("l\($0)")]) }, into: store)
        let team = try insert([("Team", ["name": .string("Crew")])], into: store)
        let connection = try #require(store.connection)
        let first = try store.newValues(forObjectWith: ids[0])
        #expect(first.attributes["firstName"] == .string("f0"))
        let statements = connection.cachedStatementCount
        let queries = store.queryCount
        for (index, id) in ids.enumerated() {
            let node = try store.newValues(forObjectWith: id)
            #expect(node.objectID == id)
            #expect(node.attributes["lastName"] == .string("l\(index)"))
        }
        #expect(store.queryCount == queries + ids.count, "one query per fault")
        #expect(connection.cachedStatementCount == statements, "no statement prepared again")
        #expect(store.faultQueries.count == 1)
        #expect(try store.newValues(forObjectWith: team[0]).attributes["name"] == .string("Crew"))
        #expect(store.faultQueries.count == 2, "one query per entity")
        #expect(connection.cachedStatementCount == statements + 1)
    }

    @Test func faultsOfRowsThatDoNotExistFailAsBefore() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        let ids = try insert([("Player", ["firstName": .string("f")])], into: store)
        let gone = ObjectID(storeIdentifier: store.identifier, entityName: "Player", reference: .int(99))
        #expect(throws: StoreError.self) { try store.newValues(forObjectWith: gone) }
        do {
            _ = try store.newValues(forObjectWith: gone)
        } catch let error as StoreError {
            #expect(error.code == .managedObjectReferentialIntegrity)
        }
        // A Player key read as a Team: the row is of another entity, so the object does not exist.
        let asTeam = ObjectID(storeIdentifier: store.identifier, entityName: "Team", reference: ids[0].referenceObject ?? .int(1))
        do {
            _ = try store.newValues(forObjectWith: asTeam)
            Issue.record("a Player row was read as a Team")
        } catch let error as StoreError {
            #expect(error.code == .managedObjectReferentialIntegrity)
        }
        let unknownEntity = ObjectID(storeIdentifier: store.identifier, entityName: "Stadium", reference: .int(1))
        do {
            _ = try store.newValues(forObjectWith: unknownEntity)
            Issue.record("an entity the store does not hold was read")
        } catch let error as StoreError {
            #expect(error.code == .persistentStoreOperation)
        }
        let otherStore = ObjectID(storeIdentifier: "another store", entityName: "Player", reference: .int(1))
        do {
            _ = try store.newValues(forObjectWith: otherStore)
            Issue.record("an ID of another store was read")
        } catch let error as StoreError {
            #expect(error.code == .managedObjectReferentialIntegrity)
        }
        #expect(try store.newValues(forObjectWith: ids[0]).attributes["firstName"] == .string("f"))
    }

    @Test func statementsKeptByNumberSurviveTheCacheStartingOver() throws {
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        var built = 0
        let sql = {
            built += 1
            return "SELECT ? * 2"
        }
        let first = try connection.cached(number: 7, sql: sql)
        #expect(first === (try connection.cached("SELECT ? * 2")), "the statement its text names")
        first.bind(int64: 21, at: 1)
        #expect(try first.step() && first.int64(at: 0) == 42)
        let again = try connection.cached(number: 7, sql: sql)
        #expect(again === first && built == 1)
        #expect(try again.step() && again.isNull(at: 0), "reset, bindings cleared")
        for n in 0..<(SQLiteConnection.statementCacheLimit + 1) { _ = try connection.cached("SELECT \(n)") }
        let remade = try connection.cached(number: 7, sql: sql)
        #expect(built == 2, "prepared again after the cache started over")
        remade.bind(int64: 5, at: 1)
        #expect(try remade.step() && remade.int64(at: 0) == 10)
        #expect(connection.cachedStatementCount <= SQLiteConnection.statementCacheLimit)
    }

    @Test func aKeptCompilationRunsAfterTheStatementCacheStartedOver() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(try Models.league(), at: directory.file("league.sqlite"))
        try insert((0..<3).map { ("Player", ["firstName": .string("f\($0)"), "lastName": .string("l")]) }, into: store)
        let request = FetchRequest(entityName: "Player", predicate: try FetchPredicate(format: "lastName == 'l'"), sortKeys: [SortKey("firstName")])
        #expect(SQLiteCompiledFetchTests.firstNames(try store.execute(.fetch(request))) == ["f0", "f1", "f2"])
        let connection = try #require(store.connection)
        for n in 0..<(SQLiteConnection.statementCacheLimit + 1) { _ = try connection.cached("SELECT \(n)") }
        #expect(SQLiteCompiledFetchTests.firstNames(try store.execute(.fetch(request))) == ["f0", "f1", "f2"])
        #expect(store.compiledFetches.hits == 1)
        #expect(store.lastQuery?.hasPrefix("SELECT") == true)
    }
}
