import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Names longer than PostgreSQL keeps (63 bytes): a model whose tables or columns would need
/// one is refused before anything is created, naming the entity and property; names at the
/// limit work, and index names past it stay distinct.
@Suite struct PostgreSQLIdentifierTests {
    static func coordinator(_ model: ObjectModel, _ url: URL) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
        return coordinator
    }

    /// Attribute names whose column (`Z` and the name in capitals) is over 63 bytes: 100
    /// characters, and 32 two-byte letters (65 bytes).
    @Test(arguments: [String(repeating: "a", count: 100), String(repeating: "é", count: 32)])
    func aLongAttributeNameIsRefusedBeforeAnythingIsCreated(_ name: String) throws {
        let url = try TestPostgreSQLServer.freshStoreURL("long")
        let model = try ObjectModel { Entity("Item") { Attribute(name, .string) } }
        let error = storeError { _ = try Self.coordinator(model, url) }
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.entityName == "Item")
        #expect(error?.propertyName == name)
        #expect(error?.message.contains("property \(name) of entity Item") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("63") == true)
        #expect(try !PostgreSQLStore.storeExists(at: url, options: [:]))
    }

    @Test func aLongEntityNameIsRefused() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("long")
        let name = "E" + String(repeating: "x", count: 99)
        let model = try ObjectModel { Entity(name) { Attribute("title", .string) } }
        let error = storeError { _ = try Self.coordinator(model, url) }
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.entityName == name)
        #expect(error?.propertyName == nil)
        #expect(error?.message.contains("entity \(name)") == true)
        #expect(try !PostgreSQLStore.storeExists(at: url, options: [:]))
    }

    /// Two names sharing their first 62 characters would be one column once cut short.
    @Test func twoLongNamesSharingTheirBeginningAreRefused() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("long")
        let stem = String(repeating: "b", count: 62)
        let model = try ObjectModel {
            Entity("Item") {
                Attribute(stem + "One", .string)
                Attribute(stem + "Two", .string)
            }
        }
        let error = storeError { _ = try Self.coordinator(model, url) }
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.propertyName?.hasPrefix(stem) == true)
        #expect(try !PostgreSQLStore.storeExists(at: url, options: [:]))
    }

    @Test func aLongRelationshipNameIsRefused() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("long")
        let name = String(repeating: "r", count: 80)
        let model = try ObjectModel {
            Entity("Item") { Relationship(name, to: "Owner", inverse: "items") }
            Entity("Owner") { Relationship("items", to: "Item", inverse: name, toMany: true) }
        }
        let error = storeError { _ = try Self.coordinator(model, url) }
        #expect(error?.entityName == "Item")
        #expect(error?.propertyName == name)
    }

    /// Names of 62 characters (63-byte columns) are kept; the indexes of two to-one
    /// relationships whose names share their first 58 characters get distinct names (cut short
    /// by PostgreSQL they were one, and the store could not be created).
    @Test func namesAtTheLimitSaveAndOpenAgain() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("limit")
        let attribute = String(repeating: "c", count: 62)
        let first = String(repeating: "d", count: 58) + "Left"
        let second = String(repeating: "d", count: 58) + "Righ"
        let model = try ObjectModel {
            Entity("Item") {
                Attribute(attribute, .string)
                Relationship(first, to: "Owner", inverse: "lefts")
                Relationship(second, to: "Owner", inverse: "rights")
            }
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("lefts", to: "Item", inverse: first, toMany: true)
                Relationship("rights", to: "Item", inverse: second, toMany: true)
            }
        }
        let context = ManagedObjectContext(coordinator: try Self.coordinator(model, url))
        let owner = try context.insert(entityName: "Owner")
        let item = try context.insert(entityName: "Item")
        try item.setValue(.string("kept"), forKey: attribute)
        try item.setValue(.objectID(owner.objectID), forKey: first)
        try item.setValue(.objectID(owner.objectID), forKey: second)
        try context.save()

        let reader = ManagedObjectContext(coordinator: try Self.coordinator(model, url))
        let items = try reader.fetch(FetchRequest(entityName: "Item"))
        #expect(items.count == 1)
        #expect(items.first?.value(forKey: attribute) == .string("kept"))
        #expect(items.first?.value(forKey: first) != .null)
    }

    @Test func longIndexNamesAreShortenedAndStayDistinct() {
        let a = PostgreSQLSchema.identifier("ZITEM_" + String(repeating: "x", count: 70) + "_ONE_INDEX")
        let b = PostgreSQLSchema.identifier("ZITEM_" + String(repeating: "x", count: 70) + "_TWO_INDEX")
        #expect(a.utf8.count <= 63)
        #expect(b.utf8.count <= 63)
        #expect(a != b)
        #expect(PostgreSQLSchema.identifier("ZITEM_ZNAME_INDEX") == "ZITEM_ZNAME_INDEX")
        #expect(PostgreSQLSchema.identifier(String(repeating: "é", count: 40)).utf8.count <= 63)
    }
}
