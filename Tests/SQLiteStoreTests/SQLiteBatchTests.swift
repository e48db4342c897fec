import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Batch update, delete and insert requests run in SQL: the statements, what they leave in the
/// file, and the cleanup of relationship storage.
@Suite("SQLite batch requests")
struct SQLiteBatchTests {
    /// A league store with teams Crew and Fire and players, saved through the store.
    struct League {
        let store: SQLiteStore
        let url: URL
        let teams: [ObjectID]
        let players: [ObjectID]
    }

    static func league(in directory: TemporaryDirectory) throws -> League {
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        let teams = try store.obtainPermanentIDs(for: [.temporary(entityName: "Team"), .temporary(entityName: "Team")])
        let players = try store.obtainPermanentIDs(for: (0..<4).map { _ in .temporary(entityName: "Player") })
        let names = ["Jordan", "Pat", "Bailey", "Terry"]
        var nodes = [
            StoreNode(objectID: teams[0], attributes: ["name": "Crew"], version: 0),
            StoreNode(objectID: teams[1], attributes: ["name": "Fire"], version: 0),
        ]
        for (index, id) in players.enumerated() {
            nodes.append(StoreNode(
                objectID: id, attributes: ["firstName": .string(names[index]), "email": .string("\(index)@x")],
                toOne: ["team": teams[index < 3 ? 0 : 1]], version: 0))
        }
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: nodes)))
        return League(store: store, url: url, teams: teams, players: players)
    }

    @Test("A batch update is one UPDATE that binds its values, adds one to Z_OPT and returns IDs")
    func updateStatement() throws {
        let directory = try TemporaryDirectory()
        let league = try Self.league(in: directory)
        let request = BatchUpdateRequest(
            entityName: "Player", predicate: try FetchPredicate(format: "firstName BEGINSWITH 'J' OR firstName == 'Terry'"),
            propertiesToUpdate: ["email": "secret@example.com"], resultType: .objectIDs)
        let result = try league.store.execute(.batchUpdate(request))
        #expect(result == .batch(.objectIDs([league.players[0], league.players[3]])))
        let sql = try #require(league.store.lastQuery)
        #expect(sql.hasPrefix("UPDATE ZPLAYER AS t0 SET Z_OPT = Z_OPT + 1"))
        #expect(sql.hasSuffix("RETURNING Z_PK, Z_ENT"))
        for literal in ["secret", "Terry", "'J'"] { #expect(!sql.contains(literal), "\(literal) is bound, not in \(sql)") }
        #expect(try rows("SELECT Z_PK, Z_OPT, ZEMAIL FROM ZPLAYER ORDER BY Z_PK", in: league.url) == [
            ["1", "2", "secret@example.com"], ["2", "1", "1@x"], ["3", "1", "2@x"], ["4", "2", "secret@example.com"],
        ])
    }

    @Test("Key paths through to-ones in the predicate and the values select and compute through joins")
    func updateThroughJoins() throws {
        let directory = try TemporaryDirectory()
        let league = try Self.league(in: directory)
        let request = BatchUpdateRequest(
            entityName: "Player", predicate: try FetchPredicate(format: "team.name == 'Crew' AND firstName != 'Pat'"),
            propertiesToUpdate: ["lastName": FetchExpression.keyPath("team.name"), "email": .constant(.null)], resultType: .count)
        #expect(try league.store.execute(.batchUpdate(request)) == .batch(.count(2)))
        #expect(try rows("SELECT Z_PK, Z_OPT, ZLASTNAME, ZEMAIL FROM ZPLAYER ORDER BY Z_PK", in: league.url) == [
            ["1", "2", "Crew", ""], ["2", "1", "", "1@x"], ["3", "2", "Crew", ""], ["4", "1", "", "3@x"],
        ])
    }

    @Test("A batch update sets a to-one to another object or to nil; objects of another store are refused")
    func updateToOne() throws {
        let directory = try TemporaryDirectory()
        let league = try Self.league(in: directory)
        let moved = BatchUpdateRequest(
            entityName: "Player", predicate: try FetchPredicate(format: "firstName == 'Pat'"),
            propertiesToUpdate: ["team": .objectID(league.teams[1])])
        #expect(try league.store.execute(.batchUpdate(moved)) == .batch(.status(true)))
        let released = BatchUpdateRequest(
            entityName: "Player", predicate: try FetchPredicate(format: "firstName == 'Bailey'"), propertiesToUpdate: ["team": .null])
        _ = try league.store.execute(.batchUpdate(released))
        #expect(try rows("SELECT Z_PK, ZTEAM FROM ZPLAYER ORDER BY Z_PK", in: league.url) == [["1", "1"], ["2", "2"], ["3", ""], ["4", "2"]])
        #expect(try league.store.newValue(forRelationship: "players", forObjectWith: league.teams[1]) == [league.players[1], league.players[3]])
        let stranger = ObjectID(storeIdentifier: "elsewhere", entityName: "Team", reference: .int(1))
        let error = #expect(throws: StoreError.self) {
            try league.store.execute(.batchUpdate(BatchUpdateRequest(entityName: "Player", propertiesToUpdate: ["team": .objectID(stranger)])))
        }
        #expect(error?.code == .managedObjectExternalRelationship)
        #expect(error?.propertyName == "team")
    }

    @Test("Sub-entities share the root's table: the entity numbers restrict the rows")
    func updateSubentities() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Shapes.sqlite")
        let store = try openStore(Models.shapes(), at: url)
        try insert([("Circle", ["color": "red", "radius": 8]), ("Polygon", ["color": "red"]), ("Circle", ["color": "blue", "radius": 8])], into: store)
        var circles = BatchUpdateRequest(entityName: "Circle", propertiesToUpdate: ["color": "green"], resultType: .count)
        #expect(try store.execute(.batchUpdate(circles)) == .batch(.count(2)))
        #expect(try rows("SELECT Z_PK, ZCOLOR FROM ZSHAPE ORDER BY Z_PK", in: url) == [["1", "green"], ["2", "red"], ["3", "green"]])
        let shapes = BatchUpdateRequest(entityName: "Shape", propertiesToUpdate: ["color": "black"], resultType: .count)
        #expect(try store.execute(.batchUpdate(shapes)) == .batch(.count(3)))
        circles.includesSubentities = false
        circles.propertiesToUpdate = ["radius": .arithmetic(.add, .keyPath("radius"), .constant(1))]
        #expect(try store.execute(.batchUpdate(circles)) == .batch(.count(2)))
        #expect(try rows("SELECT ZRADIUS FROM ZSHAPE WHERE Z_ENT = (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Circle')", in: url) == [["9.0"], ["9.0"]])
    }

    @Test("Expressions of another kind than the attribute are refused before anything runs")
    func updateExpressionKinds() throws {
        let directory = try TemporaryDirectory()
        let league = try Self.league(in: directory)
        let error = #expect(throws: StoreError.self) {
            try league.store.execute(.batchUpdate(BatchUpdateRequest(
                entityName: "Player", propertiesToUpdate: ["email": .arithmetic(.add, .keyPath("firstName"), .constant(1))])))
        }
        #expect(error?.code == .coreData)
        #expect(error?.propertyName == "email")
        #expect(try rows("SELECT MAX(Z_OPT) FROM ZPLAYER", in: league.url) == [["1"]])
    }

    @Test("A batch delete removes join rows on either side of a reflexive many-to-many")
    func deleteManyToMany() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("EasyLife.sqlite")
        let store = try openStore(Models.easyLife(), at: url)
        let ids = try insert((0..<3).map { ("TodoItem", ["name": .string("t\($0)")]) }, into: store)
        // t0 blocks t1, t1 blocks t2.
        let links = SaveChangesRequest(
            updatedObjects: [
                StoreNode(objectID: ids[0], attributes: ["name": "t0"], toMany: ["blocking": [ids[1]]], version: 1),
                StoreNode(objectID: ids[1], attributes: ["name": "t1"], toMany: ["blocking": [ids[2]], "blockedBy": [ids[0]]], version: 1),
                StoreNode(objectID: ids[2], attributes: ["name": "t2"], toMany: ["blockedBy": [ids[1]]], version: 1),
            ])
        _ = try store.execute(.save(links))
        let join = try #require(try rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'Z\\_%' ESCAPE '\\' AND name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE')", in: url).first?.first)
        #expect(try rows("SELECT COUNT(*) FROM \(join)", in: url) == [["2"]])
        let result = try store.execute(.batchDelete(BatchDeleteRequest(entityName: "TodoItem", predicate: try FetchPredicate(format: "name == 't1'"), resultType: .objectIDs)))
        #expect(result == .batch(.objectIDs([ids[1]])))
        #expect(try rows("SELECT COUNT(*) FROM \(join)", in: url) == [["0"]])
        #expect(try store.newValue(forRelationship: "blocking", forObjectWith: ids[0]).isEmpty)
        #expect(try store.newValue(forRelationship: "blockedBy", forObjectWith: ids[2]).isEmpty)
    }

    @Test("A batch delete clears the inverse-less to-many keys that point at the deleted rows")
    func deleteInverseLessToMany() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("OrgChart.sqlite")
        let store = try openStore(Models.orgChart(), at: url)
        let people = try insert((0..<3).map { ("Person", ["id": .int(Int64($0)), "name": .string("p\($0)")]) }, into: store)
        let boss = SaveChangesRequest(updatedObjects: [
            StoreNode(objectID: people[0], attributes: ["id": 0, "name": "p0"], toMany: ["employees": [people[1], people[2]]], version: 1)
        ])
        _ = try store.execute(.save(boss))
        let column = try #require(try rows("SELECT name FROM pragma_table_info('ZPERSON') WHERE name LIKE 'Z%EMPLOYEES'", in: url).first?.first)
        #expect(try rows("SELECT Z_PK, \(column) FROM ZPERSON ORDER BY Z_PK", in: url) == [["1", ""], ["2", "1"], ["3", "1"]])
        let result = try store.execute(.batchDelete(BatchDeleteRequest(objectIDs: [people[0]], resultType: .count)))
        #expect(result == .batch(.count(1)))
        #expect(try rows("SELECT Z_PK, \(column) FROM ZPERSON ORDER BY Z_PK", in: url) == [["2", ""], ["3", ""]])
    }

    @Test("A batch delete through a to-one key path; delete rules are not applied")
    func deleteThroughJoin() throws {
        let directory = try TemporaryDirectory()
        let league = try Self.league(in: directory)
        let players = BatchDeleteRequest(entityName: "Player", predicate: try FetchPredicate(format: "team.name == 'Crew'"), resultType: .count)
        #expect(try league.store.execute(.batchDelete(players)) == .batch(.count(3)))
        #expect(league.store.lastQuery?.contains("IN (SELECT t0.Z_PK FROM ZPLAYER t0 LEFT JOIN") == true)
        // Team.players cascades in a context; a batch delete of the team leaves Terry in place.
        #expect(try league.store.execute(.batchDelete(BatchDeleteRequest(entityName: "Team"))) == .batch(.status(true)))
        #expect(try rows("SELECT Z_PK, ZTEAM FROM ZPLAYER", in: league.url) == [["4", "2"]])
        #expect(try rows("SELECT COUNT(*) FROM ZTEAM", in: league.url) == [["0"]])
    }

    @Test("A batch insert continues after Z_MAX of the root, writes Z_OPT 1 and raises Z_MAX")
    func insertKeys() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Shapes.sqlite")
        let store = try openStore(Models.shapes(), at: url)
        try insert([("Polygon", ["color": "red"])], into: store)
        _ = try store.obtainPermanentIDs(for: [.temporary(entityName: "Circle")])  // key 2 handed out, not saved
        let request = BatchInsertRequest(entityName: "Circle", objects: [["color": "a"], ["color": "b", "radius": 2.5]], resultType: .objectIDs)
        let result = try store.execute(.batchInsert(request))
        let ids = (3...4).map { ObjectID(storeIdentifier: store.identifier, entityName: "Circle", reference: .int(Int64($0))) }
        #expect(result == .batch(.objectIDs(ids)))
        #expect(try rows("SELECT Z_PK, Z_OPT, ZCOLOR, ZRADIUS FROM ZSHAPE WHERE Z_PK > 1 ORDER BY Z_PK", in: url) == [
            ["3", "1", "a", "8.0"], ["4", "1", "b", "2.5"],
        ])
        #expect(try rows("SELECT Z_NAME, Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME IN ('Shape', 'Circle') ORDER BY Z_NAME", in: url) == [
            ["Circle", "0"], ["Shape", "4"],
        ])
        let next = try store.obtainPermanentIDs(for: [.temporary(entityName: "Polygon")])
        #expect(next.first?.referenceObject == .int(5))
    }

    @Test("A failed batch insert writes nothing; an abstract entity is refused")
    func insertFailure() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Shapes.sqlite")
        let store = try openStore(Models.shapes(), at: url)
        let error = #expect(throws: StoreError.self) {
            try store.execute(.batchInsert(BatchInsertRequest(entityName: "Circle", objects: [["x": 1], ["x": "left"]])))
        }
        #expect(error?.code == .managedObjectValidation)
        #expect(error?.propertyName == "x")
        #expect(error?.position == 1)
        #expect(try rows("SELECT COUNT(*) FROM ZSHAPE", in: url) == [["0"]])
        #expect(try rows("SELECT MAX(Z_MAX) FROM Z_PRIMARYKEY", in: url) == [["0"]])
        #expect(throws: StoreError.self) {
            try store.execute(.batchInsert(BatchInsertRequest(entityName: "Shape", objects: [["color": "red"]])))
        }
    }

    @Test("A read-only store refuses batch requests")
    func readOnly() throws {
        let directory = try TemporaryDirectory()
        let league = try Self.league(in: directory)
        let store = try openStore(Models.league(), at: league.url, options: [StoreOptionKey.readOnly: true])
        for request: StoreRequest in [
            .batchUpdate(BatchUpdateRequest(entityName: "Team", propertiesToUpdate: ["name": "x"])),
            .batchDelete(BatchDeleteRequest(entityName: "Team")),
            .batchInsert(BatchInsertRequest(entityName: "Team", objects: [["name": "x"]])),
        ] {
            let error = #expect(throws: StoreError.self) { try store.execute(request) }
            #expect(error?.code == .persistentStoreOperation)
        }
        #expect(try rows("SELECT ZNAME FROM ZTEAM ORDER BY Z_PK", in: league.url) == [["Crew"], ["Fire"]])
    }

    @Test("Date arithmetic in a compiled predicate adds seconds to the stored date")
    func dateArithmeticInPredicates() throws {
        let directory = try TemporaryDirectory()
        let store = try openStore(Models.easyLife(), at: directory.file("EasyLife.sqlite"))
        let start = Date(timeIntervalSinceReferenceDate: 0)
        try insert([("TodoItem", ["name": "a", "date": .date(start)]), ("TodoItem", ["name": "b", "date": .date(start + 10)])], into: store)
        let found = try fetchNodes("TodoItem", from: store) {
            $0.predicate = try? FetchPredicate(format: "date + 5 > %@", start + 8)
        }
        #expect(found.map { $0.attributes["name"] } == ["b"])
    }
}
