import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// The stores Core Data wrote (`fixtures/coredata-sqlite`), each copied to a temporary folder
/// first so the fixture is never written.
@Suite("Core Data fixtures", .enabled(if: Fixtures.available, "the Core Data fixtures are not in ../shared/fixtures"))
struct CoreDataFixtureTests {
    static let todoItems: [(key: Int64, name: String, date: Double)] = [
        (1, "call landlord", 541369085.083766), (2, "phone mum", 541369085.083452), (3, "send letter", 541196285.082651),
        (4, "get party food!", 541282685.083296), (5, "clean flat", 541369085.083576), (6, "fix bike", 541282685.083056),
    ]

    @Test("EasyLife: metadata, entity numbers and the six to-do items with their names and dates")
    func readEasyLife() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: directory)
        let store = try openStore(ObjectModel(contentsOf: Fixtures.easyLifeModel), at: url)
        #expect(store.identifier == "F76F1F4C-F2BC-41B5-A4BF-799AB57815F1")
        #expect(store.metadata[MetadataKey.storeType] == "SQLite")
        #expect(store.metadata["NSPersistenceFrameworkVersion"] == 849)
        #expect(store.metadata["_NSAutoVacuumLevel"] == "2")
        #expect(store.metadata[MetadataKey.versionHashesVersion] == 3)
        let hashes = store.metadata[MetadataKey.versionHashes]?.dictionaryValue
        #expect(hashes?.keys.sorted() == ["Project", "TodoItem"])
        #expect(hashes?["TodoItem"]?.dataValue?.count == 32)
        #expect(store.schema?.entityNumbers == ["Project": 1, "TodoItem": 2])

        let items = try fetchNodes("TodoItem", from: store)
        #expect(items.count == 6)
        for (node, expected) in zip(items, Self.todoItems) {
            #expect(node.objectID.referenceObject == .int(expected.key))
            #expect(node.attributes["name"] == .string(expected.name))
            guard case .date(let date)? = node.attributes["date"] else {
                Issue.record("item \(expected.key) has no date")
                continue
            }
            #expect(abs(date.timeIntervalSinceReferenceDate - expected.date) < 0.000_001)
            #expect(node.attributes["repeats"] == 0)
            #expect(node.attributes["done"] == nil)
            #expect(node.attributes["notes"] == nil)
            #expect(node.toOne["project"] == nil)
            #expect(node.version == 1)
        }
        #expect(try store.execute(.fetch(FetchRequest(entityName: "Project").with(\.resultType, .count))) == .count(0))
        let first = try #require(items.first?.objectID)
        #expect(first.uriRepresentation.absoluteString == "x-coredata://F76F1F4C-F2BC-41B5-A4BF-799AB57815F1/TodoItem/p1")
        #expect(try store.newValue(forRelationship: "blocking", forObjectWith: first) == [])

        let metadata = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        #expect(metadata[MetadataKey.storeUUID] == "F76F1F4C-F2BC-41B5-A4BF-799AB57815F1")
    }

    @Test("EasyLife: new rows get Z_MAX + 1 and Z_OPT 1, updates Z_OPT + 1, as Core Data expects")
    func writeEasyLife() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: directory)
        let store = try openStore(ObjectModel(contentsOf: Fixtures.easyLifeModel), at: url)
        let item1 = ObjectID(storeIdentifier: store.identifier, entityName: "TodoItem", reference: .int(1))
        let ids = try store.obtainPermanentIDs(for: [.temporary(entityName: "TodoItem"), .temporary(entityName: "Project")])
        #expect(ids.map(\.referenceObject) == [.int(7), .int(1)])
        let when = Date(timeIntervalSinceReferenceDate: 541_400_000.25)
        _ = try store.execute(.save(SaveChangesRequest(
            insertedObjects: [
                StoreNode(
                    objectID: ids[0], attributes: ["name": "water plants", "date": .date(when), "repeats": 0, "done": false],
                    toOne: ["project": ids[1]], toMany: ["blockedBy": [item1], "blocking": []], version: 0),
                StoreNode(objectID: ids[1], attributes: ["name": "Home", "priority": 1], toMany: ["todoItem": [ids[0]]], version: 0),
            ],
            updatedObjects: [
                StoreNode(
                    objectID: item1, attributes: ["name": "call landlord", "done": true], toMany: ["blocking": [ids[0]]], version: 1)
            ],
            changedKeys: [item1: ["done", "blocking"]])))

        #expect(try rows("SELECT Z_ENT, Z_NAME, Z_SUPER, Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: url) == [
            ["1", "Project", "0", "1"], ["2", "TodoItem", "0", "7"],
        ])
        #expect(try rows("SELECT Z_PK, Z_ENT, Z_OPT, ZDONE, ZREPEATS, ZPROJECT, ZDATE, ZNAME FROM ZTODOITEM WHERE Z_PK IN (1, 7) ORDER BY Z_PK", in: url) == [
            ["1", "2", "2", "1", "0", "", "541369085.083766", "call landlord"],
            ["7", "2", "1", "0", "0", "1", "541400000.25", "water plants"],
        ])
        #expect(try rows("SELECT Z_PK, Z_ENT, Z_OPT, ZPRIORITY, ZNAME FROM ZPROJECT", in: url) == [["1", "1", "1", "1", "Home"]])
        #expect(try rows("SELECT Z_2BLOCKEDBY, Z_2BLOCKING FROM Z_2BLOCKING", in: url) == [["1", "7"]])
        #expect(try rows("PRAGMA integrity_check", in: url) == [["ok"]])

        let reopened = try openStore(ObjectModel(contentsOf: Fixtures.easyLifeModel), at: url)
        #expect(try fetchNodes("TodoItem", from: reopened).count == 7)
        #expect(try reopened.newValue(forRelationship: "todoItem", forObjectWith: ids[1]) == [ids[0]])
        #expect(try reopened.newValue(forRelationship: "blockedBy", forObjectWith: ids[0]) == [item1])
        #expect(try reopened.newValues(forObjectWith: item1).attributes["done"] == true)
        #expect(try reopened.newValues(forObjectWith: ids[0]).attributes["date"] == .date(when))
    }

    @Test("BNRTestModel: an empty store opens, its version hashes read, and many-to-many rows land in Z_1BOOKS")
    func bnr() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.bnrStore, into: directory)
        let store = try openStore(ObjectModel(contentsOf: Fixtures.bnrModel), at: url)
        #expect(store.identifier == "E7350B5D-5058-46F7-90B9-DCA517BBAF92")
        let hashes = store.metadata[MetadataKey.versionHashes]?.dictionaryValue
        #expect(hashes?["Book"]?.dataValue == Data(base64Encoded: "KSySPkjCy+6loRO7doX7xjq4AMC7wkKtF6Dy4qHgj1w="))
        #expect(hashes?["Author"]?.dataValue == Data(base64Encoded: "y8H1wnTr9BRHTE41D3OxSx3TVsIngq50iIENWXGIxG0="))
        #expect(store.metadata["NSPersistenceFrameworkVersion"] == 637)
        #expect(try fetchNodes("Author", from: store).isEmpty)

        let ids = try store.obtainPermanentIDs(for: [.temporary(entityName: "Author"), .temporary(entityName: "Book")])
        _ = try store.execute(.save(SaveChangesRequest(insertedObjects: [
            StoreNode(objectID: ids[0], attributes: ["firstName": "Aaron", "lastName": "Hillegass"], toMany: ["books": [ids[1]]], version: 0),
            StoreNode(objectID: ids[1], attributes: ["title": "Cocoa Programming"], toMany: ["authors": [ids[0]]], version: 0),
        ])))
        #expect(try rows("SELECT * FROM Z_1BOOKS", in: url) == [["1", "1"]])
        #expect(try rows("SELECT Z_MAX FROM Z_PRIMARYKEY ORDER BY Z_ENT", in: url) == [["1"], ["1"]])
        #expect(try rows("SELECT Z_PK, Z_ENT, Z_OPT, ZFIRSTNAME, ZLASTNAME FROM ZAUTHOR", in: url) == [["1", "1", "1", "Aaron", "Hillegass"]])
        let reopened = try openStore(ObjectModel(contentsOf: Fixtures.bnrModel), at: url)
        #expect(try reopened.newValue(forRelationship: "authors", forObjectWith: ids[1]) == [ids[0]])
    }

    @Test("The Xcode models describe the same entities as the models written in code")
    func xcodeModels() throws {
        #expect(try ObjectModel(contentsOf: Fixtures.easyLifeModel).entityNames.sorted() == Models.easyLife().entityNames.sorted())
        #expect(try SQLSchema(model: ObjectModel(contentsOf: Fixtures.easyLifeModel)) == SQLSchema(model: Models.easyLife()))
        #expect(try SQLSchema(model: ObjectModel(contentsOf: Fixtures.bnrModel)) == SQLSchema(model: Models.bnr()))
    }

    @Test("Both fixtures are added through a coordinator with their Xcode models (structural compatibility)")
    func coordinator() throws {
        let directory = try TemporaryDirectory()
        for (store, model) in [(Fixtures.easyLifeStore, Fixtures.easyLifeModel), (Fixtures.bnrStore, Fixtures.bnrModel)] {
            let url = try Fixtures.copy(store, into: directory)
            let registry = StoreRegistry()
            registry.register(SQLiteStore.self)
            let coordinator = PersistentStoreCoordinator(model: try ObjectModel(contentsOf: model), registry: registry)
            let handle = try coordinator.addPersistentStore(type: "SQLite", at: url)
            #expect(!handle.identifier.isEmpty)
        }
        // A model that lacks an attribute the file has is refused.
        let other = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: other)
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        let trimmed = try ObjectModel {
            Entity("Project") {
                Attribute("name", .string)
                Relationship("todoItem", to: "TodoItem", inverse: "project", toMany: true)
            }
            Entity("TodoItem") {
                Attribute("date", .date)
                Attribute("done", .boolean)
                Attribute("name", .string)
                Attribute("notes", .string)
                Attribute("repeats", .integer16)
                Relationship("blockedBy", to: "TodoItem", inverse: "blocking", toMany: true)
                Relationship("blocking", to: "TodoItem", inverse: "blockedBy", toMany: true)
                Relationship("project", to: "Project", inverse: "todoItem")
            }
        }
        let error = try #require(throws: StoreError.self) {
            try PersistentStoreCoordinator(model: trimmed, registry: registry).addPersistentStore(type: "SQLite", at: url)
        }
        #expect(error.code == .persistentStoreIncompatibleVersionHash, "\(error)")
        #expect(error.message.contains("ZPRIORITY"), "\(error)")
    }

    @Test("Opening a fixture read-only leaves the copy byte for byte as it was")
    func readOnlyFixture() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.easyLifeStore, into: directory)
        let before = try Data(contentsOf: url)
        let store = try openStore(ObjectModel(contentsOf: Fixtures.easyLifeModel), at: url, options: [StoreOptionKey.readOnly: true])
        #expect(try fetchNodes("TodoItem", from: store).count == 6)
        #expect(try Data(contentsOf: url) == before)
    }
}
