import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// `storectl migrate`: a store written with one model brought to the next version in place.
@Suite struct MigrateCommandTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    static func models() throws -> (ObjectModel, ObjectModel) {
        let v1 = try ObjectModel { Entity("Note") { Attribute("text", .string) } }
        let v2 = try ObjectModel {
            Entity("Note") {
                Attribute("body", .string, renamingIdentifier: "text")
                Attribute("pinned", .boolean, optional: false, defaultValue: false)
            }
        }
        return (v1, v2)
    }

    @Test(arguments: ["SQLite", "Binary", "XML", "PipeCSV"])
    func migrateBringsAStoreToTheNewModel(type: String) throws {
        try withTemporaryDirectory { directory in
            let (v1, v2) = try Self.models()
            let url = directory.appendingPathComponent("Notes.\(type.lowercased())")
            let writer = PersistentStoreCoordinator(model: v1)
            try writer.addPersistentStore(type: type, at: url)
            let context = ManagedObjectContext(coordinator: writer)
            try context.insert(entityName: "Note").setValue("hello", forKey: "text")
            try context.save()
            let modelFile = directory.appendingPathComponent("v2.json")
            try v2.jsonData().write(to: modelFile)

            let run = storectl("migrate", url.path, "--model", modelFile.path, "--quiet")
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.contains("Migrated the \(type) store at \(url.path); entities that changed: Note"))
            let reader = PersistentStoreCoordinator(model: v2)
            try reader.addPersistentStore(type: type, at: url)
            let view = ManagedObjectContext(coordinator: reader)
            let note = try #require(try view.fetch(FetchRequest(entityName: "Note")).first)
            #expect(note.value(forKey: "body") == "hello")
            #expect(note.value(forKey: "pinned") == false)

            let again = storectl("migrate", url.path, "--model", modelFile.path)
            #expect(again.status == 0)
            #expect(again.output.contains("already fits the model"))
        }
    }

    @Test func migrateThatCannotBeInferredNamesThePropertyAndLeavesTheFile() throws {
        try withTemporaryDirectory { directory in
            let (v1, _) = try Self.models()
            let url = directory.appendingPathComponent("Notes.binary")
            let writer = PersistentStoreCoordinator(model: v1)
            try writer.addPersistentStore(type: "Binary", at: url)
            let context = ManagedObjectContext(coordinator: writer)
            try context.insert(entityName: "Note").setValue("hello", forKey: "text")
            try context.save()
            let before = try Data(contentsOf: url)
            let v3 = try ObjectModel { Entity("Note") { Attribute("text", .string); Attribute("owner", .string, optional: false) } }
            let modelFile = directory.appendingPathComponent("v3.json")
            try v3.jsonData().write(to: modelFile)
            let run = storectl("migrate", url.path, "--model", modelFile.path)
            #expect(run.status == 1)
            #expect(run.errors.hasPrefix("error 134140: "))
            #expect(run.errors.contains("Note.owner"))
            #expect(try Data(contentsOf: url) == before)
        }
    }
}
