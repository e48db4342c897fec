import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// Automatic migration starts only from a model version the application supplies (Core Data's
/// rule): an application's older release never migrates its newer release's store down, a
/// container pointed at another program's store never "migrates" it, and both are refused with
/// 134130 leaving every file byte-identical. And a store of another model version is refused with
/// 134100 from its metadata, before any store type parses its objects.
@Suite struct MigrationSourceTests {
    static let fileTypes = ["SQLite", "Binary", "XML", "PipeCSV"]

    /// Version 1: tasks with a title.
    static func version1() throws -> ObjectModel {
        try ObjectModel { Entity("Task") { Attribute("title", .string) } }
    }

    /// Version 2: tasks gain notes; tags are new.
    static func version2() throws -> ObjectModel {
        try ObjectModel {
            Entity("Task") {
                Attribute("title", .string)
                Attribute("notes", .string)
            }
            Entity("Tag") { Attribute("name", .string) }
        }
    }

    /// Another program's model: nothing in common with the tasks.
    static func foreignModel() throws -> ObjectModel {
        try ObjectModel {
            Entity("Invoice") { Attribute("amount", .double) }
            Entity("Customer") { Attribute("name", .string) }
        }
    }

    /// A store of `type` at `url` written with `model`, holding one object per entity with
    /// every string attribute set.
    static func writeStore(_ type: String, at url: URL, model: ObjectModel) throws {
        PersistentStores.registerBuiltInStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: model)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        for entity in model.entities {
            let object = try context.insert(entityName: entity.name)
            for attribute in entity.attributes where attribute.type == .string {
                try object.setValue(.string("\(entity.name).\(attribute.name)"), forKey: attribute.name)
            }
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// Every file in `folder` with its bytes (the store's companions included).
    static func files(in folder: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) {
            result[name] = try Data(contentsOf: folder.appendingPathComponent(name))
        }
        return result
    }

    /// Whether the files in `folder` are still `before`: every file byte-identical, none
    /// removed; the only new files allowed are the companions SQLite's read-only open of a WAL
    /// database creates (an empty `-wal` and a `-shm`), which hold no data.
    static func unchanged(_ folder: URL, since before: [String: Data]) throws -> Bool {
        let after = try files(in: folder)
        for (name, data) in before where after[name] != data { return false }
        for (name, data) in after where before[name] == nil {
            guard name.hasSuffix("-shm") || (name.hasSuffix("-wal") && data.isEmpty) else { return false }
        }
        return true
    }

    /// Adds the store as a container does (automatic migration and inferred mapping on).
    static func load(_ type: String, at url: URL, model: ObjectModel, versions: [ObjectModel] = [], options: StoreOptions = [:]) throws
        -> PersistentContainer
    {
        let container = PersistentContainer(name: "Tasks", model: model, versions: versions)
        container.persistentStoreDescriptions = [StoreDescription(type: type, url: url, options: options)]
        try container.loadPersistentStores()
        return container
    }

    @Test("An older release refuses its newer release's store with 134130, every file unchanged", arguments: fileTypes)
    func downgradeIsRefused(type: String) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("tasks.\(type.lowercased())")
            let v2 = try Self.version2()
            try Self.writeStore(type, at: url, model: v2)
            let before = try Self.files(in: folder)

            // The older release knows only version 1 (as its current model and as a version).
            for versions in [[], [try Self.version1()]] {
                let error = try #require(throws: StoreError.self) { _ = try Self.load(type, at: url, model: try Self.version1(), versions: versions) }
                #expect(error.code == .migrationMissingSourceModel, "\(error)")
                #expect(error.message.contains("Can't find model for source store"), "\(error.message)")
                #expect(error.message.contains(url.path), "\(error.message)")
                let tagHash = try #require(v2.versionHash(ofEntity: "Tag")).base64EncodedString()
                #expect(error.message.contains("Tag \(tagHash)"), "the store's version hashes: \(error.message)")
                #expect(error.fileURL == url)
                #expect(try Self.unchanged(folder, since: before), "the store's files were written")
            }

            // The newer release still reads everything.
            let newer = try Self.load(type, at: url, model: v2)
            let task = try #require(try newer.viewContext.fetch(FetchRequest(entityName: "Task")).first)
            #expect(task.value(forKey: "notes") == "Task.notes")
            #expect(try newer.viewContext.count(for: FetchRequest(entityName: "Tag")) == 1)
        }
    }

    @Test("A store of another program is refused with 134130, not migrated", arguments: fileTypes)
    func foreignStoreIsRefused(type: String) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("books.\(type.lowercased())")
            try Self.writeStore(type, at: url, model: try Self.foreignModel())
            let before = try Self.files(in: folder)
            let error = try #require(throws: StoreError.self) {
                _ = try Self.load(type, at: url, model: try Self.version2(), versions: [try Self.version1()])
            }
            #expect(error.code == .migrationMissingSourceModel, "\(error)")
            #expect(error.message.contains("Invoice"), "\(error.message)")
            #expect(error.message.contains("none of the 1 supplied versions matches"), "\(error.message)")
            #expect(try Self.unchanged(folder, since: before))
            // Its own program still finds its objects.
            let own = try Self.load(type, at: url, model: try Self.foreignModel())
            #expect(try own.viewContext.count(for: FetchRequest(entityName: "Invoice")) == 1)
        }
    }

    @Test("A store of a supplied older version is migrated", arguments: fileTypes)
    func upgradeFromASuppliedVersion(type: String) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("tasks.\(type.lowercased())")
            try Self.writeStore(type, at: url, model: try Self.version1())
            let container = try Self.load(type, at: url, model: try Self.version2(), versions: [try Self.version1()])
            let task = try #require(try container.viewContext.fetch(FetchRequest(entityName: "Task")).first)
            #expect(task.value(forKey: "title") == "Task.title")
            #expect(task.value(forKey: "notes") == .null)
            let metadata = try container.persistentStoreCoordinator.metadata(for: try #require(container.persistentStoreCoordinator.persistentStores.first))
            #expect(try Self.version2().isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        }
    }

    @Test("Only the current model given: a store of an earlier version is refused with 134130", arguments: fileTypes)
    func currentModelAloneDoesNotMigrate(type: String) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("tasks.\(type.lowercased())")
            try Self.writeStore(type, at: url, model: try Self.version1())
            let before = try Self.files(in: folder)
            let error = try #require(throws: StoreError.self) { _ = try Self.load(type, at: url, model: try Self.version2()) }
            #expect(error.code == .migrationMissingSourceModel, "\(error)")
            #expect(error.message.contains("no earlier version was supplied"), "\(error.message)")
            #expect(try Self.unchanged(folder, since: before))
        }
    }

    @Test("The opt-in migrates from the model the store keeps", arguments: fileTypes)
    func optInMigratesFromTheStoredModel(type: String) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("tasks.\(type.lowercased())")
            try Self.writeStore(type, at: url, model: try Self.version1())
            let container = try Self.load(
                type, at: url, model: try Self.version2(), options: [StoreOptionKey.migrateFromStoredModel: true])
            let task = try #require(try container.viewContext.fetch(FetchRequest(entityName: "Task")).first)
            #expect(task.value(forKey: "title") == "Task.title")
        }
    }

    @Test("A store of another version without migration options: 134100 from the metadata, before parsing", arguments: fileTypes)
    func incompatibleStoreGives134100(type: String) throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("tasks.\(type.lowercased())")
            try Self.writeStore(type, at: url, model: try Self.version2())
            let before = try Self.files(in: folder)
            let coordinator = PersistentStoreCoordinator(model: try Self.version1())
            let error = try #require(throws: StoreError.self) { try coordinator.addPersistentStore(type: type, at: url) }
            #expect(error.code == .persistentStoreIncompatibleVersionHash, "\(error)")
            #expect(error.message.hasPrefix("The model used to open the store is incompatible"), "\(error.message)")
            #expect(error.message.contains(url.path), "\(error.message)")
            #expect(error.message.contains("Task") && error.message.contains("Tag"), "\(error.message)")
            let after = try Self.files(in: folder)
            #expect(after == before, "\(before.mapValues(\.count)) → \(after.mapValues(\.count))")
        }
    }

    @Test("A container made from an .xcdatamodeld migrates from any of its versions, and only from them")
    func containerFromAModelBundle() throws {
        try withTemporaryDirectory { folder in
            let bundle = folder.appendingPathComponent("Tasks.xcdatamodeld")
            for (name, xml) in [
                ("Tasks", #"<model><entity name="Task"><attribute name="title" attributeType="String" optional="YES"/></entity></model>"#),
                ("Tasks 2", #"<model><entity name="Task"><attribute name="title" attributeType="String" optional="YES"/><attribute name="notes" attributeType="String" optional="YES"/></entity></model>"#),
            ] {
                let version = bundle.appendingPathComponent("\(name).xcdatamodel")
                try FileManager.default.createDirectory(at: version, withIntermediateDirectories: true)
                try Data(xml.utf8).write(to: version.appendingPathComponent("contents"))
            }
            try Data("""
                <?xml version="1.0" encoding="UTF-8"?>
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Tasks 2.xcdatamodel</string></dict></plist>
                """.utf8).write(to: bundle.appendingPathComponent(".xccurrentversion"))
            let url = folder.appendingPathComponent("tasks.sqlite")
            try Self.writeStore("SQLite", at: url, model: try XcodeModelBundle(contentsOf: bundle).model(version: "Tasks"))

            let container = try PersistentContainer(name: "Tasks", modelURL: bundle)
            #expect(container.persistentStoreCoordinator.modelVersions.count == 2)
            container.persistentStoreDescriptions = [StoreDescription(type: "SQLite", url: url)]
            try container.loadPersistentStores()
            let task = try #require(try container.viewContext.fetch(FetchRequest(entityName: "Task")).first)
            #expect(task.value(forKey: "title") == "Task.title")

            // A store of a model the bundle does not hold is refused.
            let foreign = folder.appendingPathComponent("foreign.sqlite")
            try Self.writeStore("SQLite", at: foreign, model: try Self.foreignModel())
            let other = try PersistentContainer(name: "Tasks", modelURL: bundle)
            other.persistentStoreDescriptions = [StoreDescription(type: "SQLite", url: foreign)]
            let error = try #require(throws: StoreError.self) { try other.loadPersistentStores() }
            #expect(error.code == .migrationMissingSourceModel, "\(error)")
        }
    }
}
