import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// A save's inserted rows of one entity go in groups of ``SQLiteStore/rowsPerInsert`` through
/// one INSERT: every row is written with its values and key whether it went in a group, in a
/// group cut short, or alone, and a row that fails inside a group fails the save as it does
/// alone, with nothing written.
@Suite("Rows in groups")
struct GroupInsertTests {
    /// Inserts `count` persons of `team`, named from `first` on.
    static func insertPersons(_ count: Int, from first: Int, team: ManagedObject, in context: ManagedObjectContext) throws {
        for index in first..<(first + count) {
            let person = try context.insert(entityName: "Person")
            try person.setValue(.string("person \(index)"), forKey: "name")
            try person.setValue(.int(Int64(index)), forKey: "age")
            try person.setObject(team, forKey: "team")
        }
    }

    static func insertTeam(_ name: String, in context: ManagedObjectContext) throws -> ManagedObject {
        let team = try context.insert(entityName: "Team")
        try team.setValue(.string(name), forKey: "name")
        return team
    }

    @Test("The INSERT of a group repeats the row's values once per row, and fails rather than aborts")
    func groupStatementText() throws {
        let store = try openStore(try InsertSaveTests.model(), at: nil)
        let mapping = try store.mapping(of: "Team")
        let single = store.insertStatementSQL(for: mapping)
        let group = store.groupInsertStatementSQL(for: mapping, rows: 3)
        let tuple = "(?, ?, 1, ?)"
        #expect(single.hasPrefix("INSERT INTO ") && single.hasSuffix(" VALUES " + tuple))
        #expect(
            group
                == single.replacingOccurrences(of: "INSERT INTO ", with: "INSERT OR FAIL INTO ")
                .replacingOccurrences(of: " VALUES " + tuple, with: " VALUES \(tuple), \(tuple), \(tuple)"))
    }

    @Test("A run of a group's rows in the model's layout is written through the group's INSERT")
    func aRunWritesAGroup() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("store.sqlite")
        let model = try InsertSaveTests.model()
        let store = try openStore(model, at: url)
        let layout = try #require(model.layout(ofEntity: "Person"))
        let count = SQLiteStore.rowsPerInsert + 3
        let ids = try store.obtainPermanentIDs(for: (0..<count).map { _ in ObjectID.temporary(entityName: "Person") })
        let nodes = ids.enumerated().map { index, id in
            var node = StoreNode(objectID: id, layout: layout, version: 0)
            node.setValue(.string("person \(index)"), forAttribute: "name")
            return node
        }
        #expect(store.groupInsertSQL["Person"] == nil)
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: nodes)))
        #expect(store.groupInsertSQL["Person"]?.rows == SQLiteStore.rowsPerInsert, "a group was written")
        #expect(try InsertSaveTests.personRows(at: url).map(\.name) == (0..<count).map { "person \($0)" })
    }

    @Test("An INSERT OR FAIL of several rows that fails keeps the rows before the failing one and counts them in the connection's total")
    func orFailCountsTheRowsBeforeTheFailure() throws {
        let connection = try SQLiteConnection(url: nil, readOnly: false, create: true)
        try connection.prepare("CREATE TABLE T (K INTEGER PRIMARY KEY, V TEXT)").run()
        try connection.prepare("INSERT INTO T VALUES (3, 'taken')").run()
        try connection.transaction {
            let before = connection.totalChanges
            let insert = try connection.prepare("INSERT OR FAIL INTO T VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')")
            #expect(throws: StoreError.self) { try insert.run() }
            #expect(connection.totalChanges - before == 2, "the save goes on one by one from the failing row")
            // A statement that cannot run changes the total by nothing.
            insert.finalize()
            let afterFailure = connection.totalChanges
            #expect(throws: StoreError.self) { try insert.run() }
            #expect(connection.totalChanges == afterFailure)
        }
        let select = try connection.prepare("SELECT K FROM T ORDER BY K")
        var keys: [Int64] = []
        while try select.step() { keys.append(select.int64(at: 0)) }
        #expect(keys == [1, 2, 3])
    }

    @Test("A group's INSERT taken by a full statement cache (which starts over) leaves the run's single-row INSERT usable")
    func aGroupStatementThatStartsTheCacheOver() throws {
        let model = try InsertSaveTests.model()
        let layout = try #require(model.layout(ofEntity: "Person"))
        let count = SQLiteStore.rowsPerInsert + 3
        // Filled to just below the bound by a few more or fewer statements each time, so that in
        // one of the runs the group's statement is the one that starts the cache over.
        for filled in (SQLiteConnection.statementCacheLimit - 5)...SQLiteConnection.statementCacheLimit {
            let store = try openStore(model, at: nil)
            let connection = try #require(store.connection)
            var number = 0
            while connection.cachedStatementCount < filled {
                _ = try connection.cached("SELECT \(number)")
                number += 1
            }
            connection.resetCachedStatements()
            let ids = try store.obtainPermanentIDs(for: (0..<count).map { _ in ObjectID.temporary(entityName: "Person") })
            let nodes = ids.map { id in
                var node = StoreNode(objectID: id, layout: layout, version: 0)
                node.setValue(.string("row"), forAttribute: "name")
                return node
            }
            _ = try store.execute(.save(SaveChangesRequest(insertedObjects: nodes)))
            #expect(try fetchNodes("Person", from: store).count == count, "cache filled to \(filled)")
        }
    }

    @Test("Runs longer than a group, a group cut short by another entity, and the rest of a run are all written in order")
    func everyRowOfEveryRunIsWritten() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("groups.sqlite")
        let coordinator = try InsertSaveTests.coordinator(at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let group = SQLiteStore.rowsPerInsert
        // 20 persons, then a team: a group begins (a person lies a group ahead) and is cut short.
        let first = try Self.insertTeam("first", in: context)
        try Self.insertPersons(20, from: 0, team: first, in: context)
        // Two groups and a remainder that goes one by one.
        let second = try Self.insertTeam("second", in: context)
        try Self.insertPersons(2 * group + 11, from: 20, team: second, in: context)
        try context.save()

        let total = 20 + 2 * group + 11
        let written = try InsertSaveTests.personRows(at: url)
        #expect(written.map(\.key) == (1...Int64(total)).map { $0 }, "keys in insertion order")
        #expect(written.map(\.name) == (0..<total).map { "person \($0)" })
        #expect(written.map(\.team) == Array(repeating: 1, count: 20) + Array(repeating: 2, count: total - 20))
        let ages = try rows("SELECT ZAGE FROM ZPERSON ORDER BY Z_PK", in: url).map { $0[0] }
        #expect(ages == (0..<total).map { String($0) })
        #expect(coordinator.cachedRowCount == total + 2)

        // Z_MAX followed the groups: the next save continues the keys.
        try Self.insertPersons(1, from: total, team: first, in: context)
        try context.save()
        #expect(try InsertSaveTests.personRows(at: url).last.map { [$0.key, $0.team] } == [Int64(total + 1), 1])

        // Another coordinator reads every row back.
        let reader = ManagedObjectContext(coordinator: try InsertSaveTests.coordinator(at: url))
        let persons = try reader.fetch(FetchRequest(entityName: "Person"))
        #expect(persons.count == total + 1)
        let team = try reader.existingObject(with: second.objectID)
        #expect(team.objects(forKey: "players").count == total - 20)
    }

    /// Saves a team and `persons` persons into a store where another writer took the key the
    /// `clashing`-th person gets; returns the save's error and the names of the rows left.
    static func saveOverATakenKey(persons: Int, clashing: Int64, in directory: TemporaryDirectory) throws -> (StoreError?, [String]) {
        let url = directory.file("taken-\(persons).sqlite")
        let coordinator = try InsertSaveTests.coordinator(at: url)
        let writer = try SQLiteConnection(url: url, readOnly: false, create: false)
        try writer.prepare("INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (\(clashing), 1, 1, 'squatter')").run()
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try Self.insertTeam("team", in: context)
        try Self.insertPersons(persons, from: 0, team: team, in: context)
        let error = storeError { try context.save() }
        #expect(context.hasChanges, "a failed save leaves every change pending")
        return (error, try InsertSaveTests.personRows(at: url).map(\.name))
    }

    @Test("A row that fails inside a group fails the save as it fails alone, and nothing of the save is written")
    func aFailingRowInAGroup() throws {
        let directory = try TemporaryDirectory()
        let group = SQLiteStore.rowsPerInsert
        // The clash is in the second group of persons, and in a save too small for a group.
        let (grouped, groupedRows) = try Self.saveOverATakenKey(persons: 3 * group, clashing: Int64(group + 5), in: directory)
        let (alone, aloneRows) = try Self.saveOverATakenKey(persons: 3, clashing: 2, in: directory)
        #expect(grouped != nil)
        #expect(grouped?.code == alone?.code)
        #expect(grouped?.message.contains("UNIQUE constraint failed: ZPERSON.Z_PK") == true)
        #expect(grouped?.message.contains("), (") == false, "the error names the single-row INSERT, not the group's")
        #expect(groupedRows == ["squatter"], "the groups written before the failing one were rolled back")
        #expect(aloneRows == ["squatter"])
    }
}
