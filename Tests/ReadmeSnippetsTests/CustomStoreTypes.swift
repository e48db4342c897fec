import DirectoryStore
import Foundation
import JSONFileStore
import PersistentStores
import Testing

@Test func customStoreTypes() throws {
    StoreRegistry.shared.register(JSONFileStore.self)           // registered as "JSONFile"
    StoreRegistry.shared.register(DirectoryStore.self)          // registered as "Directory"

    let model = try ObjectModel {
        Entity("Note") { Attribute("title", .string) }
    }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let coordinator = PersistentStoreCoordinator(model: model)
    let file = try coordinator.addPersistentStore(type: "JSONFile", at: folder.appendingPathComponent("Notes.json"))
    let directory = try coordinator.addPersistentStore(type: "Directory", at: folder.appendingPathComponent("Notes"))

    let context = ManagedObjectContext(coordinator: coordinator)
    let note = try context.insert(entityName: "Note")
    try note.setValue("in the folder", forKey: "title")
    context.assign(note, to: directory)                         // the first store is the default
    try context.insert(entityName: "Note").setValue("in the file", forKey: "title")
    try context.save()

    #expect(try context.count(for: FetchRequest(entityName: "Note")) == 2)
    #expect(note.objectID.storeIdentifier == directory.identifier)
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("Notes/Note/1.json").path))
    #expect(FileManager.default.fileExists(atPath: file.url?.path ?? ""))
}
