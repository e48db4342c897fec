import Foundation
import StoreCore
import Testing

@testable import SQLiteStore

/// Migrating with the Core Data fixture `BNRTestModel`: its `Sample.xcdatamodeld` has two
/// versions (`TestModel`, which wrote `TestModel.sqlite`, and `TestModel 2`, the current one,
/// which adds Publisher and Book.publisher).
@Suite("Migrating the Core Data fixtures", .enabled(if: Fixtures.available, "the Core Data fixtures are not in ../shared/fixtures"))
struct MigrationFixtureTests {
    static let bundleURL = Fixtures.directory.appendingPathComponent("coredata-sqlite/BNRTestModel/Sample.xcdatamodeld")
    static let automatic: StoreOptions = [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true]

    static func registry() -> StoreRegistry {
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        return registry
    }

    @Test("A store of the first version (written here; the fixture's file is empty) opens with the newest and keeps its rows")
    func oldVersionStoreOpensWithTheNewestVersion() throws {
        let bundle = try XcodeModelBundle(contentsOf: Self.bundleURL)
        let versions = try bundle.allModels()
        let first = try #require(versions["TestModel"])
        let newest = try bundle.currentModel()
        #expect(bundle.currentVersionName == "TestModel 2")
        let directory = try TemporaryDirectory()
        let url = directory.file("Old.sqlite")

        let writer = PersistentStoreCoordinator(model: first, registry: Self.registry())
        let old = try writer.addPersistentStore(type: "SQLite", at: url)
        let context = ManagedObjectContext(coordinator: writer)
        let ada = try context.insert(entityName: "Author")
        try ada.setValue("Ada", forKey: "firstName")
        let alan = try context.insert(entityName: "Author")
        try alan.setValue("Alan", forKey: "firstName")
        var books: [ManagedObject] = []
        for title in ["Notes", "Engines", "Numbers"] {
            let book = try context.insert(entityName: "Book")
            try book.setValue(.string(title), forKey: "title")
            books.append(book)
        }
        try ada.setObjects([books[0], books[1]], forKey: "books")
        try alan.setObjects([books[1], books[2]], forKey: "books")
        try context.save()
        let ids = Set(books.map(\.objectID))
        try writer.remove(old)

        // The store's own hashes pick its version among the bundle's.
        let metadata = try SQLiteStore.metadata(forStoreAt: url, options: [:])
        #expect(MigrationManager.sourceModel(forStoreMetadata: metadata, among: versions.keys.sorted().compactMap { versions[$0] }) == first)
        #expect(!newest.isConfiguration(nil, compatibleWithStoreMetadata: metadata))

        // Automatic migration starts from the bundle's version whose hashes the store has.
        let reader = PersistentStoreCoordinator(model: newest, versions: Array(versions.values), registry: Self.registry())
        let migrated = try reader.addPersistentStore(type: "SQLite", at: url, options: Self.automatic)
        #expect(newest.isConfiguration(nil, compatibleWithStoreMetadata: try reader.metadata(for: migrated)))
        let view = ManagedObjectContext(coordinator: reader)
        let fetched = try view.fetch(FetchRequest(entityName: "Book"))
        #expect(Set(fetched.map(\.objectID)) == ids)
        #expect(fetched.compactMap { $0.value(forKey: "title", as: String.self) }.sorted() == ["Engines", "Notes", "Numbers"])
        #expect(fetched.allSatisfy { $0.object(forKey: "publisher") == nil })
        let engines = try #require(fetched.first { $0.value(forKey: "title", as: String.self) == "Engines" })
        #expect(engines.objects(forKey: "authors").compactMap { $0.value(forKey: "firstName", as: String.self) }.sorted() == ["Ada", "Alan"])
        #expect(try view.count(for: FetchRequest(entityName: "Publisher")) == 0)

        // The new entity works in the migrated store.
        let publisher = try view.insert(entityName: "Publisher")
        try publisher.setValue("Murray", forKey: "name")
        try engines.setObject(publisher, forKey: "publisher")
        try view.save()
        #expect(try ManagedObjectContext(coordinator: reader).count(for: FetchRequest(entityName: "Publisher")) == 1)
    }

    @Test("Core Data's own file migrates to the newest version with MigrationManager")
    func coreDataFileMigrates() throws {
        let bundle = try XcodeModelBundle(contentsOf: Self.bundleURL)
        let first = try bundle.model(version: "TestModel")
        let newest = try bundle.currentModel()
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.bnrStore, into: directory)

        // Core Data's file keeps no model: automatic migration cannot find a source and says so;
        // without the options the newest version is refused as before.
        let refused = try #require(throws: StoreError.self) {
            try PersistentStoreCoordinator(model: newest, registry: Self.registry()).addPersistentStore(type: "SQLite", at: url)
        }
        #expect(refused.code == .persistentStoreIncompatibleVersionHash)
        #expect(refused.message.contains(url.path))
        #expect(refused.message.contains("automatic migration was not requested"))

        let identifier = try SQLiteStore.metadata(forStoreAt: url, options: [:])[MetadataKey.storeUUID]
        #expect(identifier != nil)
        try MigrationManager(sourceModel: first, destinationModel: newest, registry: Self.registry())
            .migrateStore(at: url, type: "SQLite", mapping: try MappingModel.inferred(from: first, to: newest))
        let coordinator = PersistentStoreCoordinator(model: newest, registry: Self.registry())
        let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
        let metadata = try coordinator.metadata(for: store)
        #expect(metadata[MetadataKey.storeUUID] == identifier)
        #expect(metadata["NSPersistenceFrameworkVersion"] != nil)
        let context = ManagedObjectContext(coordinator: coordinator)
        let publisher = try context.insert(entityName: "Publisher")
        try publisher.setValue("Murray", forKey: "name")
        try context.save()
        #expect(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Publisher")) == 1)
    }
}
