import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// A context's save gives each saved object its new row version, whether one store saved the
/// whole request (the coordinator hands the versions back by position) or several stores
/// saved parts of it (by ID).
@Suite struct SavedVersionTests {
    static func coordinator(configurations: [String?]) throws -> PersistentStoreCoordinator {
        let model = try ObjectModel(configurations: ["Left": ["Note"], "Right": ["Tag"]]) {
            Entity("Note") { Attribute("text", .string) }
            Entity("Tag") { Attribute("name", .string) }
        }
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        for configuration in configurations { try coordinator.addPersistentStore(type: "InMemory", configuration: configuration) }
        return coordinator
    }

    @Test(arguments: [[nil], ["Left", "Right"]] as [[String?]])
    func insertedAndUpdatedObjectsTakeTheirSavedVersions(_ configurations: [String?]) throws {
        let coordinator = try Self.coordinator(configurations: configurations)
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
}
