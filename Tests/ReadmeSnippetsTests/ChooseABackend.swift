import Foundation
import PersistentStores
import Testing

@Test func chooseABackendByConfiguration() throws {
    PersistentStores.registerBuiltInStoreTypes()
    let model = try ObjectModel {
        Entity("Team") { Attribute("name", .string) }
    }
    // A copy of Examples/Configuration/stores.yaml, in a folder of its own.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("League-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let example = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Examples/Configuration/stores.yaml")
    try FileManager.default.copyItem(at: example, to: folder.appendingPathComponent("stores.yaml"))

    let sources = try StoreConfigurationSources(file: folder.appendingPathComponent("stores.yaml"))
    let container = try sources.makeContainer(model: model)   // name and store from the file
    try container.loadPersistentStores()                      // one error per store that fails
    let context = container.viewContext
    try context.insert(entityName: "Team").setValue("Crew", forKey: "name")
    try context.save()
    #expect(container.persistentStoreDescriptions.first?.type == "SQLite")
    #expect(FileManager.default.fileExists(atPath: folder.appendingPathComponent("data/League.sqlite").path))
}
