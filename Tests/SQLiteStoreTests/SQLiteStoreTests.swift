import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test("A new file gets Core Data's system tables, metadata as a binary plist, WAL and the model")
    func newStore() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        #expect(store.metadata[MetadataKey.storeType] == "SQLite")
        #expect(store.identifier == store.metadata[MetadataKey.storeUUID]?.stringValue)
        #expect(!store.identifier.isEmpty)
        #expect(try rows("SELECT Z_VERSION, Z_UUID, substr(Z_PLIST, 1, 8) FROM Z_METADATA", in: url) == [["1", store.identifier, "bplist00"]])
        #expect(try rows("SELECT * FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: url) == [["1", "Player", "0", "0"], ["2", "Team", "0", "0"]])
        #expect(try rows("PRAGMA journal_mode", in: url) == [["wal"]])
        #expect(try rows("PRAGMA auto_vacuum", in: url) == [["2"]])
        let cached = try rows("SELECT Z_CONTENT FROM Z_MODELCACHE", in: url)
        #expect(try ObjectModel(jsonData: Data((cached.first?.first ?? "").utf8)) == Models.league())
        let metadata = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        #expect(metadata[MetadataKey.storeUUID]?.stringValue == store.identifier)
        #expect(metadata[MetadataKey.modelJSON] != nil)
    }

    @Test("Inserted rows read back by fetch, by primary key and by relationship, also after reopening")
    func insertAndRead() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        var store = try openStore(Models.league(), at: url)
        let teams = try store.obtainPermanentIDs(for: [.temporary(entityName: "Team"), .temporary(entityName: "Team")])
        let players = try store.obtainPermanentIDs(for: (0..<3).map { _ in .temporary(entityName: "Player") })
        #expect(teams.map(\.referenceObject) == [.int(1), .int(2)])
        #expect(players.map(\.referenceObject) == [.int(1), .int(2), .int(3)])
        let request = SaveChangesRequest(insertedObjects: [
            StoreNode(objectID: teams[0], attributes: ["name": "Crew", "uniformColor": "Blue"], toMany: ["players": [players[0], players[1]]], version: 0),
            StoreNode(objectID: teams[1], attributes: ["name": "Fire"], toMany: ["players": [players[2]]], version: 0),
            StoreNode(objectID: players[0], attributes: ["firstName": "Jordan", "lastName": "Gordon"], toOne: ["team": teams[0]], version: 0),
            StoreNode(objectID: players[1], attributes: ["firstName": "Pat", "lastName": "Sprat"], toOne: ["team": teams[0]], version: 0),
            StoreNode(objectID: players[2], attributes: ["firstName": "Terry", "lastName": "Gary"], toOne: ["team": teams[1]], version: 0),
        ])
        guard case .saved(let versions) = try store.execute(.save(request)) else {
            Issue.record("save did not answer .saved")
            return
        }
        // Inserted rows are at version 1, left implied in the store's answer (`StoreResult.saved`).
        #expect(versions.isEmpty)
        #expect(try rows("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZUNIFORMCOLOR FROM ZTEAM ORDER BY Z_PK", in: url) == [
            ["1", "2", "1", "Crew", "Blue"], ["2", "2", "1", "Fire", ""],
        ])
        #expect(try rows("SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: url) == [["3"], ["2"]])

        for reopen in [false, true] {
            if reopen { store = try openStore(Models.league(), at: url) }
            let fetched = try fetchNodes("Team", from: store)
            #expect(fetched.map { $0.attributes["name"] } == ["Crew", "Fire"])
            #expect(fetched.first?.attributes["uniformColor"] == "Blue")
            #expect(fetched.last?.attributes["uniformColor"] == nil)
            #expect(fetched.first?.toMany["players"] == nil)  // a fault until asked
            let player = try store.newValues(forObjectWith: players[2])
            #expect(player.attributes["firstName"] == "Terry")
            #expect(player.toOne["team"] == teams[1])
            #expect(player.version == 1)
            #expect(try store.newValue(forRelationship: "players", forObjectWith: teams[0]) == [players[0], players[1]])
            #expect(try store.newValue(forRelationship: "team", forObjectWith: players[1]) == [teams[0]])
            #expect(try store.execute(.fetch(FetchRequest(entityName: "Player").with(\.resultType, .count))) == .count(3))
            #expect(try store.execute(.fetch(FetchRequest(entityName: "Player").with(\.resultType, .objectIDs))) == .objectIDs(players))
            var window = FetchRequest(entityName: "Player")
            window.fetchOffset = 1
            window.fetchLimit = 1
            #expect(try fetchNodes("Player", from: store) { $0 = window }.map(\.objectID) == [players[1]])
            window.resultType = .count
            #expect(try store.execute(.fetch(window)) == .count(1))
            window.fetchOffset = 5
            #expect(try store.execute(.fetch(window)) == .count(0))
        }
        let missing = ObjectID(storeIdentifier: store.identifier, entityName: "Player", reference: .int(99))
        let error = try #require(throws: StoreError.self) { try store.newValues(forObjectWith: missing) }
        #expect(error.code == .managedObjectReferentialIntegrity)
    }

    @Test("An update writes only the changed columns, increments Z_OPT and returns the new version")
    func update() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        let ids = try insert([("Player", ["firstName": "Pat", "lastName": "Sprat", "email": "pat@example.com"])], into: store)
        var node = StoreNode(objectID: ids[0], attributes: ["firstName": "Patricia", "lastName": "IGNORED"], version: 1)
        let result = try store.execute(.save(SaveChangesRequest(updatedObjects: [node], changedKeys: [ids[0]: ["firstName"]])))
        #expect(result == .saved(versions: [ids[0]: 2]))
        #expect(try rows("SELECT Z_OPT, ZFIRSTNAME, ZLASTNAME, ZEMAIL FROM ZPLAYER", in: url) == [["2", "Patricia", "Sprat", "pat@example.com"]])
        node.version = 2
        node.attributes["email"] = nil
        for _ in 0..<9 {
            _ = try store.execute(.save(SaveChangesRequest(updatedObjects: [node], changedKeys: [ids[0]: ["email"]])))
            node.version += 1
        }
        #expect(try rows("SELECT Z_OPT, ZEMAIL IS NULL FROM ZPLAYER", in: url) == [["11", "1"]])
    }

    @Test("A stale version is a 133020 conflict listing the objects, and nothing of the save is written")
    func optimisticLocking() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        let ids = try insert([("Team", ["name": "Crew"]), ("Team", ["name": "Fire"])], into: store)
        _ = try store.execute(.save(SaveChangesRequest(
            updatedObjects: [StoreNode(objectID: ids[0], attributes: ["name": "Crew 2"], version: 1)], changedKeys: [ids[0]: ["name"]])))
        let newTeam = try store.obtainPermanentIDs(for: [.temporary(entityName: "Team")])[0]
        let stale = SaveChangesRequest(
            insertedObjects: [StoreNode(objectID: newTeam, attributes: ["name": "Revolution"], version: 0)],
            updatedObjects: [StoreNode(objectID: ids[0], attributes: ["name": "Crew 3"], version: 1)],
            deletedObjects: [StoreNode(objectID: ids[1], version: 7)], changedKeys: [ids[0]: ["name"]])
        let error = try #require(throws: StoreError.self) { try store.execute(.save(stale)) }
        #expect(error.code == .managedObjectMerge)
        #expect(Set(error.objectIDs) == [ids[0], ids[1]])
        #expect(try rows("SELECT ZNAME, Z_OPT FROM ZTEAM ORDER BY Z_PK", in: url) == [["Crew 2", "2"], ["Fire", "1"]])
    }

    @Test("Deleting rows removes them and their join rows")
    func delete() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Books.sqlite")
        let store = try openStore(Models.bnr(), at: url)
        let authors = try store.obtainPermanentIDs(for: [.temporary(entityName: "Author"), .temporary(entityName: "Author")])
        let books = try store.obtainPermanentIDs(for: [.temporary(entityName: "Book"), .temporary(entityName: "Book")])
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: [
            StoreNode(objectID: authors[0], attributes: ["lastName": "Hillegass"], toMany: ["books": books], version: 0),
            StoreNode(objectID: authors[1], attributes: ["lastName": "Conway"], toMany: ["books": [books[0]]], version: 0),
            StoreNode(objectID: books[0], attributes: ["title": "Cocoa"], toMany: ["authors": authors], version: 0),
            StoreNode(objectID: books[1], attributes: ["title": "iOS"], toMany: ["authors": [authors[0]]], version: 0),
        ])))
        #expect(try rows("SELECT Z_1AUTHORS, Z_2BOOKS FROM Z_1BOOKS ORDER BY 1, 2", in: url) == [["1", "1"], ["1", "2"], ["2", "1"]])
        #expect(try store.newValue(forRelationship: "authors", forObjectWith: books[0]) == authors)
        #expect(try store.newValue(forRelationship: "books", forObjectWith: authors[1]) == [books[0]])
        // Remove book 2 from author 1 (both sides, as a context does), then delete author 2.
        _ = try store.execute(.save(SaveChangesRequest(
            updatedObjects: [
                StoreNode(objectID: authors[0], attributes: ["lastName": "Hillegass"], toMany: ["books": [books[0]]], version: 1),
                StoreNode(objectID: books[1], attributes: ["title": "iOS"], toMany: ["authors": []], version: 1),
                StoreNode(objectID: books[0], attributes: ["title": "Cocoa"], toMany: ["authors": [authors[0]]], version: 1),
            ],
            deletedObjects: [StoreNode(objectID: authors[1], version: 1)],
            changedKeys: [authors[0]: ["books"], books[1]: ["authors"], books[0]: ["authors"]])))
        #expect(try rows("SELECT Z_1AUTHORS, Z_2BOOKS FROM Z_1BOOKS", in: url) == [["1", "1"]])
        #expect(try rows("SELECT Z_PK FROM ZAUTHOR", in: url) == [["1"]])
        #expect(try store.execute(.fetch(FetchRequest(entityName: "Author").with(\.resultType, .count))) == .count(1))
    }

    @Test("Self-referencing many-to-many, ordered relationships and relationships without inverse")
    func relationshipKinds() throws {
        let directory = try TemporaryDirectory()
        // Self many-to-many.
        let easy = try openStore(Models.easyLife(), at: directory.file("Easy.sqlite"))
        let items = try easy.obtainPermanentIDs(for: (0..<3).map { _ in .temporary(entityName: "TodoItem") })
        _ = try easy.execute(.save(SaveChangesRequest(insertedObjects: [
            StoreNode(objectID: items[0], attributes: ["name": "a"], toMany: ["blocking": [items[1], items[2]], "blockedBy": []], version: 0),
            StoreNode(objectID: items[1], attributes: ["name": "b"], toMany: ["blocking": [], "blockedBy": [items[0]]], version: 0),
            StoreNode(objectID: items[2], attributes: ["name": "c"], toMany: ["blocking": [], "blockedBy": [items[0]]], version: 0),
        ])))
        #expect(try rows("SELECT Z_2BLOCKEDBY, Z_2BLOCKING FROM Z_2BLOCKING ORDER BY 2", in: directory.file("Easy.sqlite")) == [["1", "2"], ["1", "3"]])
        #expect(try easy.newValue(forRelationship: "blocking", forObjectWith: items[0]) == [items[1], items[2]])
        #expect(try easy.newValue(forRelationship: "blockedBy", forObjectWith: items[2]) == [items[0]])
        #expect(try easy.newValue(forRelationship: "blockedBy", forObjectWith: items[0]) == [])

        // Ordered to-many through the inverse, ordered many-to-many, to-one to an abstract parent.
        let shapesURL = directory.file("Shapes.sqlite")
        let shapes = try openStore(Models.shapes(), at: shapesURL)
        let ids = try shapes.obtainPermanentIDs(for: [
            .temporary(entityName: "Canvas"), .temporary(entityName: "Circle"), .temporary(entityName: "Polygon"),
            .temporary(entityName: "Vertex"), .temporary(entityName: "Vertex"), .temporary(entityName: "Vertex"),
        ])
        let (canvas, circle, polygon) = (ids[0], ids[1], ids[2])
        let vertices = Array(ids[3...])
        #expect(circle.referenceObject == .int(1) && polygon.referenceObject == .int(2))  // one key space per table
        _ = try shapes.execute(.save(SaveChangesRequest(insertedObjects: [
            StoreNode(objectID: canvas, toOne: ["favorite": polygon], toMany: ["shapes": [polygon, circle]], version: 0),
            StoreNode(objectID: circle, attributes: ["radius": 8.0], toMany: ["canvases": [canvas]], version: 0),
            StoreNode(objectID: polygon, toMany: ["canvases": [canvas], "vertices": [vertices[2], vertices[0], vertices[1]]], version: 0),
        ] + vertices.enumerated().map { offset, id in
            StoreNode(objectID: id, attributes: ["index": .int(Int64(offset))], toOne: ["polygon": polygon], version: 0)
        })))
        #expect(try rows("SELECT Z_PK, Z_ENT FROM ZSHAPE ORDER BY Z_PK", in: shapesURL) == [["1", "2"], ["2", "3"]])
        #expect(try rows("SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: shapesURL) == [["1"], ["0"], ["0"], ["2"], ["3"]])
        let reopened = try openStore(Models.shapes(), at: shapesURL)
        #expect(try reopened.newValue(forRelationship: "shapes", forObjectWith: canvas) == [polygon, circle])
        #expect(try reopened.newValue(forRelationship: "vertices", forObjectWith: polygon) == [vertices[2], vertices[0], vertices[1]])
        #expect(try reopened.newValue(forRelationship: "canvases", forObjectWith: circle) == [canvas])
        #expect(try reopened.newValues(forObjectWith: canvas).toOne["favorite"] == polygon)
        #expect(try fetchNodes("Shape", from: reopened).map(\.objectID) == [circle, polygon])
        #expect(try fetchNodes("Shape", from: reopened) { $0.includesSubentities = false }.isEmpty)
        #expect(try fetchNodes("Circle", from: reopened).first?.attributes["radius"] == .double(8))

        // Relationships without an inverse.
        let orgURL = directory.file("Org.sqlite")
        let org = try openStore(Models.orgChart(), at: orgURL)
        let people = try org.obtainPermanentIDs(for: (0..<3).map { _ in .temporary(entityName: "Person") })
        let company = try org.obtainPermanentIDs(for: [.temporary(entityName: "Organization")])[0]
        _ = try org.execute(.save(SaveChangesRequest(insertedObjects: [
            StoreNode(objectID: company, attributes: ["name": "Acme"], toOne: ["leader": people[0]], version: 0),
            StoreNode(objectID: people[0], attributes: ["name": "Boss"], toMany: ["employees": [people[1], people[2]]], version: 0),
            StoreNode(objectID: people[1], attributes: ["name": "A"], toMany: ["employees": []], version: 0),
            StoreNode(objectID: people[2], attributes: ["name": "B"], toMany: ["employees": []], version: 0),
        ])))
        #expect(try rows("SELECT Z_PK, Z2EMPLOYEES FROM ZPERSON ORDER BY Z_PK", in: orgURL) == [["1", ""], ["2", "1"], ["3", "1"]])
        #expect(try org.newValue(forRelationship: "employees", forObjectWith: people[0]) == [people[1], people[2]])
        #expect(try org.newValue(forRelationship: "leader", forObjectWith: company) == [people[0]])
        _ = try org.execute(.save(SaveChangesRequest(
            updatedObjects: [StoreNode(objectID: people[0], attributes: ["name": "Boss"], toMany: ["employees": [people[2]]], version: 1)],
            changedKeys: [people[0]: ["employees"]])))
        #expect(try org.newValue(forRelationship: "employees", forObjectWith: people[0]) == [people[2]])
    }

    @Test("A file of another type fails with 134010 and is left as it was", arguments: ["text", "sqlite", "short"])
    func typeMismatch(kind: String) throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Other.store")
        switch kind {
        case "text": try Data("<?xml version=\"1.0\"?><database/>\n".utf8 + Data(repeating: 32, count: 200)).write(to: url)
        case "short": try Data("SQLite format 3\0".utf8).write(to: url)
        default:
            let connection = try SQLiteConnection(url: url, readOnly: false, create: true)
            try connection.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
        }
        let before = try Data(contentsOf: url)
        let error = try #require(throws: StoreError.self) { try openStore(Models.league(), at: url) }
        #expect(error.code == .persistentStoreTypeMismatch)
        #expect(try Data(contentsOf: url) == before)
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(throws: StoreError.self) { try SQLiteStore.metadata(forStoreAt: url, options: [:]) }
    }

    @Test("A zero-length file is a new store")
    func emptyFile() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Empty.sqlite")
        #expect(FileManager.default.createFile(atPath: url.path, contents: Data()))
        let store = try openStore(Models.league(), at: url)
        #expect(try rows("SELECT count(*) FROM Z_PRIMARYKEY", in: url) == [["2"]])
        #expect(!store.identifier.isEmpty)
    }

    @Test("A model whose tables the file lacks fails with 134100 and the file is unchanged")
    func incompatibleModel() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        _ = try openStore(Models.league(), at: url)
        let before = try rows("SELECT sql FROM sqlite_master", in: url)
        let changed = try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("founded", .date)
            }
        }
        let error = try #require(throws: StoreError.self) { try openStore(changed, at: url) }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.message.contains("Team (not in the store: founded)"), "\(error)")
        #expect(try rows("SELECT sql FROM sqlite_master", in: url) == before)
    }

    @Test("A read-only store reads, refuses saves with 134070 and never writes the file")
    func readOnly() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let writer = try openStore(Models.league(), at: url, options: [SQLiteOptionKey.pragmas: .dictionary(["journal_mode": "DELETE"])])
        let ids = try insert([("Team", ["name": "Crew"])], into: writer)
        let before = try Data(contentsOf: url)
        let store = try openStore(Models.league(), at: url, options: [StoreOptionKey.readOnly: true])
        #expect(store.isReadOnly)
        #expect(try fetchNodes("Team", from: store).map(\.objectID) == ids)
        let save = SaveChangesRequest(updatedObjects: [StoreNode(objectID: ids[0], attributes: ["name": "X"], version: 1)])
        let error = try #require(throws: StoreError.self) { try store.execute(.save(save)) }
        #expect(error.code == .persistentStoreOperation)
        #expect(throws: StoreError.self) { try store.obtainPermanentIDs(for: [.temporary(entityName: "Team")]) }
        store.metadata["user"] = "value"
        #expect(try store.execute(.save(SaveChangesRequest())) == .saved(versions: [:]))
        #expect(try Data(contentsOf: url) == before)
        let missing = try #require(throws: StoreError.self) {
            try openStore(Models.league(), at: directory.file("Missing.sqlite"), options: [StoreOptionKey.readOnly: true])
        }
        #expect(missing.code == .persistentStoreOperation)
        #expect(!FileManager.default.fileExists(atPath: directory.file("Missing.sqlite").path))
    }

    @Test("Metadata: user keys survive save and reopen; read and written without adding the store")
    func metadata() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        let store = try openStore(Models.league(), at: url)
        let identifier = store.identifier
        let date = Date(timeIntervalSinceReferenceDate: 12345.5)
        let user: StoreMetadata = [
            "string": "text", "number": 42, "double": .double(2.5), "date": .date(date), "data": .data(Data([1, 2])),
            "array": .array(["a", 1]), "dictionary": .dictionary(["k": true]),
        ]
        store.metadata.merge(user) { _, new in new }
        _ = try store.execute(.save(SaveChangesRequest()))
        let reopened = try openStore(Models.league(), at: url)
        #expect(reopened.identifier == identifier)
        for (key, value) in user { #expect(reopened.metadata[key] == value, "\(key)") }

        var outside = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        #expect(outside["string"] == "text")
        outside["string"] = "changed"
        outside[MetadataKey.storeUUID] = "ignored"
        try SQLiteStore.setMetadata(outside, forStoreAt: url, options: [:])
        let again = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        #expect(again["string"] == "changed")
        #expect(again[MetadataKey.storeUUID]?.stringValue == identifier)
        #expect(throws: StoreError.self) { try SQLiteStore.metadata(forStoreAt: directory.file("none.sqlite"), options: [:]) }
    }

    @Test("Pragmas from the options run; anything but a plain name and value is refused")
    func pragmas() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("League.sqlite")
        _ = try openStore(Models.league(), at: url, options: [
            SQLiteOptionKey.pragmas: .dictionary(["journal_mode": "DELETE", "user_version": 7]), SQLiteOptionKey.timeout: 1,
        ])
        #expect(try rows("PRAGMA journal_mode", in: url) == [["delete"]])
        #expect(try rows("PRAGMA user_version", in: url) == [["7"]])
        let error = try #require(throws: StoreError.self) {
            try openStore(Models.league(), at: url, options: [SQLiteOptionKey.pragmas: .dictionary(["user_version": "1; DROP TABLE ZTEAM"])])
        }
        #expect(error.code == .persistentStoreOperation)
        #expect(try rows("SELECT count(*) FROM sqlite_master WHERE name = 'ZTEAM'", in: url) == [["1"]])
    }

    @Test("Values containing SQL are stored and read back as text")
    func sqlInValues() throws {
        let store = try openStore(Models.league(), at: nil)
        let hostile = "'); DROP TABLE ZTEAM; --"
        let ids = try insert([("Team", ["name": .string(hostile)])], into: store)
        #expect(try store.newValues(forObjectWith: ids[0]).attributes["name"] == .string(hostile))
        #expect(try fetchNodes("Team", from: store).count == 1)
    }

    @Test("Every attribute type round-trips through save and reopen; unknown keys and wrong types are refused")
    func allTypes() throws {
        let directory = try TemporaryDirectory()
        let url = directory.file("Types.sqlite")
        let store = try openStore(Models.allTypes(), at: url)
        let values: [String: StoreValue] = [
            "int16": .int(Int64(Int16.max)), "int32": .int(Int64(Int32.min)), "int64": .int(.max),
            "decimal": .decimal(Decimal(string: "1234567890.1234567890123456789")!), "double": .double(-0.0),
            "float": .double(Double(Float(0.1))), "string": "x\ny", "boolean": true,
            "date": .date(Date(timeIntervalSinceReferenceDate: -0.000_001)), "binary": .data(Data()),
            "uuid": .uuid(UUID()), "uri": .uri(URL(string: "file:///tmp/a%20b")!), "transformable": .data(Data([9])),
            "objectID": .objectID(ObjectID(storeIdentifier: "X", entityName: "Item", reference: .int(3))), "scratch": "transient",
        ]
        let ids = try insert([("Item", values)], into: store)
        let empty = try insert([("Item", [:])], into: store)
        let reopened = try openStore(Models.allTypes(), at: url)
        var expected = values
        expected["scratch"] = nil
        #expect(try reopened.newValues(forObjectWith: ids[0]).attributes == expected)
        #expect(try reopened.newValues(forObjectWith: empty[0]).attributes.isEmpty)
        let unknown = try #require(throws: StoreError.self) { try insert([("Item", ["colour": "red"])], into: reopened) }
        #expect(unknown.propertyName == "colour")
        let wrongType = try #require(throws: StoreError.self) { try insert([("Item", ["int16": .int(70_000)])], into: reopened) }
        #expect(wrongType.code == .managedObjectValidation)
        #expect(wrongType.propertyName == "int16")
    }

    @Test("Without a URL the store lives in memory")
    func inMemory() throws {
        let store = try openStore(Models.league(), at: nil)
        let ids = try insert([("Team", ["name": "Crew"])], into: store)
        #expect(try fetchNodes("Team", from: store).map(\.objectID) == ids)
    }

    @Test("Added through a coordinator by its type name")
    func coordinator() throws {
        let directory = try TemporaryDirectory()
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let coordinator = PersistentStoreCoordinator(model: try Models.league(), registry: registry)
        let url = directory.file("League.sqlite")
        let handle = try coordinator.addPersistentStore(type: "SQLite", at: url)
        #expect(handle.type == "SQLite")
        let ids = try coordinator.obtainPermanentIDs(for: [.temporary(entityName: "Team")])
        #expect(ids[0].storeIdentifier == handle.identifier)
        let versions = try coordinator.save(SaveChangesRequest(insertedObjects: [StoreNode(objectID: ids[0], attributes: ["name": "Crew"], version: 0)]))
        #expect(versions == [ids[0]: 1])
        try coordinator.remove(handle)
        let again = try coordinator.addPersistentStore(type: "SQLite", at: url)
        #expect(again.identifier == handle.identifier)
        #expect(try coordinator.node(for: ids[0]).attributes["name"] == "Crew")
        #expect(try coordinator.metadataForPersistentStore(type: "SQLite", at: url)[MetadataKey.storeUUID]?.stringValue == handle.identifier)
    }
}

extension FetchRequest {
    /// A copy with one property changed.
    func with<Value>(_ keyPath: WritableKeyPath<FetchRequest, Value>, _ value: Value) -> FetchRequest {
        var copy = self
        copy[keyPath: keyPath] = value
        return copy
    }
}
