import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// A context's save gives each saved object its new row version, whether one store saved the
/// whole request (the coordinator hands the versions back by position) or several stores
/// saved parts of it (by ID), and whether the store reported its inserts' versions (InMemory)
/// or left them implied at 1 (SQLite, `StoreResult.saved`).
@Suite struct SavedVersionTests {
    static func coordinator(configurations: [String?], type: String = "InMemory", in folder: URL? = nil) throws -> PersistentStoreCoordinator {
        let model = try ObjectModel(configurations: ["Left": ["Note"], "Right": ["Tag"]]) {
            Entity("Note") { Attribute("text", .string) }
            Entity("Tag") { Attribute("name", .string) }
        }
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        for configuration in configurations {
            let url = folder?.appendingPathComponent("\(configuration ?? "Default").sqlite")
            try coordinator.addPersistentStore(type: type, configuration: configuration, at: url)
        }
        return coordinator
    }

    /// A fresh folder for a test's store files, removed by the caller.
    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SavedVersionTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: [[nil], ["Left", "Right"]] as [[String?]], ["InMemory", "SQLite"])
    func insertedAndUpdatedObjectsTakeTheirSavedVersions(_ configurations: [String?], type: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = try Self.coordinator(configurations: configurations, type: type, in: folder)
        let context = ManagedObjectContext(coordinator: coordinator)
        var notes: [ManagedObject] = []
        for index in 0..<3 {
            let note = try context.insert(entityName: "Note")
            try note.setValue(.string("note \(index)"), forKey: "text")
            notes.append(note)
        }
        let tag = try context.insert(entityName: "Tag")
        try tag.setValue("first", forKey: "name")
        try context.save()
        #expect((notes + [tag]).map(\.rowVersion) == [1, 1, 1, 1])

        // Updates and inserts in one save: the updated rows move to 2, the new ones start at 1.
        try notes[1].setValue("changed", forKey: "text")
        try tag.setValue("second", forKey: "name")
        let later = try context.insert(entityName: "Note")
        try later.setValue("later", forKey: "text")
        try context.save()
        #expect(notes.map(\.rowVersion) == [1, 2, 1])
        #expect(tag.rowVersion == 2 && later.rowVersion == 1)

        // What another context reads is what these objects were given.
        let reader = ManagedObjectContext(coordinator: coordinator)
        let fetched = try reader.fetch(FetchRequest(entityName: "Note", sortKeys: [SortKey("text")]))
        #expect(fetched.map { $0.value(forKey: "text", as: String.self) } == ["changed", "later", "note 0", "note 2"])
        #expect(fetched.map(\.rowVersion) == [2, 1, 1, 1])
    }

    /// The coordinator's own `save(_:)` answers a version for every saved object, the inserts
    /// a store left implied included (at 1).
    @Test(arguments: ["InMemory", "SQLite"])
    func theCoordinatorsSaveAnswersEveryInsertsVersion(type: String) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let coordinator = try Self.coordinator(configurations: [nil], type: type, in: folder)
        let ids = try coordinator.obtainPermanentIDs(for: [ObjectID.temporary(entityName: "Note"), .temporary(entityName: "Note")])
        let versions = try coordinator.save(SaveChangesRequest(insertedObjects: ids.map {
            StoreNode(objectID: $0, attributes: ["text": .string("new")], version: 0)
        }))
        #expect(versions == [ids[0]: 1, ids[1]: 1])
        #expect(try coordinator.node(for: ids[1], refreshingCache: false).version == 1)
    }
}
