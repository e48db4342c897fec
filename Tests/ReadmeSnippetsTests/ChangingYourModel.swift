import Foundation
import PersistentStores
import Testing

@Test func changingYourModel() throws {
    PersistentStores.registerBuiltInStoreTypes()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let url = folder.appendingPathComponent("Books.sqlite")

    // Version 1 of the app writes a store.
    let v1 = try ObjectModel {
        Entity("Book") { Attribute("title", .string) }
    }
    let first = PersistentStoreCoordinator(model: v1)
    try first.addPersistentStore(type: "SQLite", at: url)
    let context = ManagedObjectContext(coordinator: first)
    try context.insert(entityName: "Book").setValue("Emma", forKey: "title")
    try context.save()

    // Version 2 renames `title`, adds a required attribute with a default and a new entity.
    let v2 = try ObjectModel {
        Entity("Book") {
            Attribute("name", .string, renamingIdentifier: "title")
            Attribute("pages", .integer32, optional: false, defaultValue: 0)
        }
        Entity("Shelf") { Attribute("label", .string) }
    }
    let second = PersistentStoreCoordinator(model: v2, versions: [v1])   // the versions it may migrate from
    try second.addPersistentStore(type: "SQLite", at: url, options: [
        StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true,   // lightweight migration
    ])
    let view = ManagedObjectContext(coordinator: second)
    let book = try #require(try view.fetch(FetchRequest(entityName: "Book")).first)
    #expect(book.value(forKey: "name") == "Emma")
    #expect(book.value(forKey: "pages") == 0)

    // Move the store to another backend: every object, relationship and metadata key.
    let store = try #require(second.persistentStores.first)
    try second.migratePersistentStore(store, to: folder.appendingPathComponent("Books.xml"), type: "XML")
    #expect(try ManagedObjectContext(coordinator: second).count(for: FetchRequest(entityName: "Book")) == 1)
}
