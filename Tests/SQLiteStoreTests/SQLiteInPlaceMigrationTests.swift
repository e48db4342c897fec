import CSQLite
import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// Lightweight migration that only adds attributes runs in place on SQLite: new columns by
/// `ALTER TABLE … ADD COLUMN`, defaults filled into the rows of their entity only, metadata and
/// model cache rewritten, the file itself kept (same inode); anything else is written anew.
@Suite struct SQLiteInPlaceMigrationTests {
    static let automatic: StoreOptions = [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true]

    static func registry() -> StoreRegistry {
        let registry = StoreRegistry()
        registry.register(SQLiteStore.self)
        return registry
    }

    static func v1() throws -> ObjectModel {
        try ObjectModel {
            Entity("Animal") { Attribute("name", .string) }
            Entity("Dog", parent: "Animal") { Attribute("breed", .string) }
        }
    }

    static func inode(_ url: URL) throws -> UInt64 {
        try #require((try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? NSNumber)?.uint64Value)
    }

    static func columns(_ url: URL, _ table: String) throws -> [String] {
        let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
        return try connection.columnNames(of: table)
    }

    /// A store of `v1` with two animals and one dog.
    static func makeStore(_ url: URL) throws {
        let coordinator = PersistentStoreCoordinator(model: try v1(), registry: registry())
        let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for name in ["Cat", "Cow"] { try context.insert(entityName: "Animal").setValue(.string(name), forKey: "name") }
        let dog = try context.insert(entityName: "Dog")
        try dog.setValue("Rex", forKey: "name")
        try dog.setValue("Collie", forKey: "breed")
        try context.save()
        try coordinator.remove(store)
    }

    @Test func addedAttributesAreAddedInPlace() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Zoo.sqlite")
            try Self.makeStore(url)
            let before = try Self.inode(url)
            var entities = try Self.v1().entities
            for index in entities.indices where entities[index].name == "Dog" {
                entities[index].attributes.append(Attribute("age", .integer16, optional: false, defaultValue: 3))
                entities[index].attributes.append(Attribute("chip", .uuid))
            }
            let v2 = try ObjectModel(entities: entities)
            let reports = Locked<[MigrationProgress]>([])
            try MigrationManager(sourceModel: try Self.v1(), destinationModel: v2, registry: Self.registry()).migrateStore(
                at: url, type: "SQLite", mapping: try MappingModel.inferred(from: try Self.v1(), to: v2),
                progress: { value in reports.withLock { $0.append(value) } })
            #expect(try Self.inode(url) == before)
            #expect(reports.withLock { $0 } == [MigrationProgress(done: 3, total: 3)])
            #expect(try Self.columns(url, "ZANIMAL").contains("ZAGE"))

            let coordinator = PersistentStoreCoordinator(model: v2, registry: Self.registry())
            let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
            #expect(v2.isConfiguration(nil, compatibleWithStoreMetadata: try coordinator.metadata(for: store)))
            let context = ManagedObjectContext(coordinator: coordinator)
            let dog = try #require(try context.fetch(FetchRequest(entityName: "Dog")).first)
            #expect(dog.value(forKey: "age") == 3)
            #expect(dog.value(forKey: "chip") == .null)
            #expect(dog.value(forKey: "breed") == "Collie")
            var request = FetchRequest(entityName: "Animal")
            request.includesSubentities = false
            #expect(try context.fetch(request).compactMap { $0.value(forKey: "name", as: String.self) }.sorted() == ["Cat", "Cow"])
            // The rows of the parent entity in the shared table keep NULL in the child's column.
            let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
            let statement = try connection.cached("SELECT COUNT(*) FROM ZANIMAL WHERE ZAGE IS NULL")
            #expect(try statement.step())
            #expect(statement.int64(at: 0) == 2)
            statement.reset()
        }
    }

    @Test func aRenameIsWrittenAnewAndKeepsTheRows() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Zoo.sqlite")
            try Self.makeStore(url)
            let before = try Self.inode(url)
            let v2 = try ObjectModel {
                Entity("Animal") { Attribute("label", .string, renamingIdentifier: "name") }
                Entity("Dog", parent: "Animal") { Attribute("breed", .string) }
            }
            let coordinator = PersistentStoreCoordinator(model: v2, registry: Self.registry())
            try coordinator.addPersistentStore(type: "SQLite", at: url, options: Self.automatic)
            #expect(try Self.inode(url) != before)
            let context = ManagedObjectContext(coordinator: coordinator)
            #expect(try context.fetch(FetchRequest(entityName: "Animal")).compactMap { $0.value(forKey: "label", as: String.self) }.sorted() == ["Cat", "Cow", "Rex"])
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.contains("migrating") }
            #expect(leftovers.isEmpty)
        }
    }
}
