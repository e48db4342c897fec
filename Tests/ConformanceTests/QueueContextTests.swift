import Dispatch
import Foundation
import PersistentStores
import Testing

/// Private-queue and main-queue contexts (`perform`, `performAndWait`, async `perform`), and a
/// stress run of a main context and two private-queue contexts saving and merging at once,
/// whose final state must equal a serial replay. Named so that CI runs it under Thread
/// Sanitizer with the other concurrency suites (`--filter ConcurrencyStress`).
@Suite struct ConcurrencyStressQueueContexts {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Counter") {
                Attribute("name", .string)
                Attribute("value", .integer64, optional: false, defaultValue: 0)
            }
            Entity("Entry") {
                Attribute("writer", .string)
                Attribute("index", .integer64, optional: false, defaultValue: 0)
            }
        }
    }

    static func coordinator(_ directory: URL) throws -> PersistentStoreCoordinator {
        PersistentStores.registerBuiltInStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: try model())
        try coordinator.addPersistentStore(type: "SQLite", at: directory.appendingPathComponent("Queue.sqlite"))
        return coordinator
    }

    @Test func performReturnsValuesAndNests() async throws {
        try await withTemporaryFolder { directory in
            let background = PrivateQueueContext(coordinator: try Self.coordinator(directory))
            let id = try await background.perform { context -> ObjectID in
                let counter = try context.insert(entityName: "Counter")
                try counter.setValue("a", forKey: "name")
                try context.save()
                return counter.objectID
            }
            #expect(!id.isTemporaryID)
            // performAndWait from outside, and nested inside a closure of the same context.
            let nested = try background.performAndWait { context -> Int in
                let inner = try background.performAndWait { try $0.count(for: FetchRequest(entityName: "Counter")) }
                return inner + (try context.existingObject(with: id).value(forKey: "name") == "a" ? 10 : 0)
            }
            #expect(nested == 11)
            // Fire and forget (the non-async overload, as from synchronous code), then wait for
            // it by a later closure on the same queue.
            func setValueLater() {
                background.perform { context in
                    try? context.existingObject(with: id).setValue(.int(5), forKey: "value")
                    try? context.save()
                }
            }
            setValueLater()
            let value = try await background.perform { try $0.existingObject(with: id).value(forKey: "value", as: Int64.self) }
            #expect(value == 5)
            background.mergePolicy = .mergeByPropertyObjectTrump
            #expect(background.mergePolicy == .mergeByPropertyObjectTrump)
            // Errors come back through the async perform.
            await #expect(throws: StoreError.self) {
                try await background.perform { try $0.existingObject(with: ObjectID.temporary(entityName: "Counter")).objectID }
            }
        }
    }

    @Test @MainActor func mainQueueContext() async throws {
        try await withTemporaryFolder { directory in
            let view = MainQueueContext(coordinator: try Self.coordinator(directory))
            try view.context.insert(entityName: "Counter").setValue("main", forKey: "name")
            try view.context.save()
            let names = try await view.perform { context in
                try context.fetch(FetchRequest(entityName: "Counter")).compactMap { $0.value(forKey: "name", as: String.self) }
            }
            #expect(names == ["main"])
            let count = try view.performAndWait { try $0.count(for: FetchRequest(entityName: "Counter")) }
            #expect(count == 1)
            // From another task, perform hops to the main actor.
            let fromElsewhere = try await Task.detached { try await view.perform { try $0.count(for: FetchRequest(entityName: "Counter")) } }.value
            #expect(fromElsewhere == 1)
        }
    }

    /// Two private-queue contexts and a main-queue context each insert entries and increment
    /// one shared counter many times, merging each other's saves, while a child of the first
    /// inserts entries that its parent saves; every increment conflict is resolved by
    /// re-reading. The end state: every entry once, and the counter equal to the number of
    /// increments — the same as running them one by one.
    @Test @MainActor func twoBackgroundContextsAndTheMainContext() async throws {
        try await withTemporaryFolder { directory in
            let coordinator = try Self.coordinator(directory)
            let view = MainQueueContext(coordinator: coordinator)
            let counter = try view.context.insert(entityName: "Counter")
            try counter.setValue("shared", forKey: "name")
            try view.context.save()
            let counterID = counter.objectID
            let rounds = 40
            let backgrounds = [PrivateQueueContext(coordinator: coordinator), PrivateQueueContext(coordinator: coordinator)]
            // Saves of each context are merged into the others.
            let token = coordinator.addObserver { save in
                for background in backgrounds { background.perform { $0.mergeChanges(from: save) } }
            }
            defer { coordinator.removeObserver(token) }

            @Sendable func increment(_ context: ManagedObjectContext, writer: String, index: Int) throws {
                let entry = try context.insert(entityName: "Entry")
                try entry.setValue(.string(writer), forKey: "writer")
                try entry.setValue(.int(Int64(index)), forKey: "index")
                try context.save()
                // Read-modify-write of the shared counter, retried on a conflict.
                while true {
                    let object = try context.existingObject(with: counterID)
                    context.refresh(object, mergeChanges: false)
                    let current = object.value(forKey: "value", as: Int64.self) ?? 0
                    try object.setValue(.int(current + 1), forKey: "value")
                    do {
                        try context.save()
                        return
                    } catch let error as StoreError where error.code == .managedObjectMerge {
                        context.rollback()
                    }
                }
            }
            // A child of the first background context inserts entries too; the parent saves them.
            let child = PrivateQueueContext(parent: backgrounds[0])
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for index in 0..<rounds {
                        try await child.perform { context in
                            let entry = try context.insert(entityName: "Entry")
                            try entry.setValue("child", forKey: "writer")
                            try entry.setValue(.int(Int64(index)), forKey: "index")
                            try context.save()
                        }
                        try await backgrounds[0].perform { try $0.save() }
                    }
                }
                for (number, background) in backgrounds.enumerated() {
                    group.addTask {
                        for index in 0..<rounds {
                            try await background.perform { try increment($0, writer: "background \(number)", index: index) }
                        }
                    }
                }
                for index in 0..<rounds {
                    try await view.perform { try increment($0, writer: "main", index: index) }
                    await Task.yield()
                }
                try await group.waitForAll()
            }
            let check = PrivateQueueContext(coordinator: coordinator)
            let (entries, value) = try await check.perform { context -> ([String], Int64) in
                let entries = try context.fetch(FetchRequest(entityName: "Entry")).map {
                    "\($0.value(forKey: "writer", as: String.self) ?? "?") \($0.value(forKey: "index", as: Int64.self) ?? -1)"
                }
                return (entries.sorted(), try context.existingObject(with: counterID).value(forKey: "value", as: Int64.self) ?? -1)
            }
            let serial = ["background 0", "background 1", "child", "main"].flatMap { writer in (0..<rounds).map { "\(writer) \($0)" } }.sorted()
            #expect(entries == serial)
            #expect(value == Int64(3 * rounds))
        }
    }
}

/// Runs `body` with a new temporary folder, removed afterwards.
func withTemporaryFolder<T>(isolation: isolated (any Actor)? = #isolation, _ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("queue-contexts-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}
