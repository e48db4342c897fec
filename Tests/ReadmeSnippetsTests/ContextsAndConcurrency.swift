import Foundation
import PersistentStores
import Testing

@Test func contextsAndConcurrency() async throws {
    PersistentStores.registerBuiltInStoreTypes()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }

    // `email` is unique: a second contact with the same email is merged into the first.
    let model = try ObjectModel {
        Entity("Contact", uniquenessConstraints: [["email"]]) {
            Attribute("email", .string)
            Attribute("name", .string)
        }
    }
    let coordinator = PersistentStoreCoordinator(model: model)
    try coordinator.addPersistentStore(type: "SQLite", at: folder.appendingPathComponent("Contacts.sqlite"))

    // A private-queue context: any task hands it work; objects stay inside the closures.
    let importer = PrivateQueueContext(coordinator: coordinator)
    importer.mergePolicy = .mergeByPropertyObjectTrump          // duplicates become updates (upsert)
    for name in ["Ada", "Ada Lovelace"] {
        try await importer.perform { context in
            let contact = try context.insert(entityName: "Contact")
            try contact.setValue("ada@example.com", forKey: "email")
            try contact.setValue(.string(name), forKey: "name")
            try context.save()
        }
    }

    // Another context reads what was saved; IDs and values cross over, objects do not.
    let reader = PrivateQueueContext(coordinator: coordinator)
    let names = try await reader.perform { context in
        try context.fetch(FetchRequest(entityName: "Contact")).compactMap { $0.value(forKey: "name", as: String.self) }
    }
    #expect(names == ["Ada Lovelace"])

    // Without a merge policy, the duplicate is refused with 133021, naming the value.
    let strict = PrivateQueueContext(coordinator: coordinator)
    let refused = try await strict.perform { context -> StoreError? in
        do {
            try context.insert(entityName: "Contact").setValue("ada@example.com", forKey: "email")
            try context.save()
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            return nil
        }
    }
    #expect(refused?.code == .managedObjectConstraintMerge)
    #expect(refused?.constraintConflicts.first?.values == ["email": "ada@example.com"])
}
