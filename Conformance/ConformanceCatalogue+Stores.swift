import Foundation
import StoreCore


extension ConformanceCatalogue {
    /// Several stores and concurrency: #47, #63.
    public static let stores: [ConformanceCase] = [
        ConformanceCase("configurations route entities to stores", behaviour: 47, area: .stores, runsAfterReopen: true) { env in
            let model = try ConformanceModels.notesAndPasswords()
            let coordinator = PersistentStoreCoordinator(model: model, registry: env.registry)
            let notesURL = env.storeURL("notes")
            let passwordsURL = env.storeURL("passwords")
            let notes = try coordinator.addPersistentStore(type: env.storeType, configuration: "Notes", at: notesURL)
            let passwords = try coordinator.addPersistentStore(type: env.storeType, configuration: "Passwords", at: passwordsURL)
            let context = ManagedObjectContext(coordinator: coordinator)
            let note = try insert(context, "Note", ["title": "n"])
            let system = try insert(context, "System", ["name": "s"])
            try insert(context, "Category", ["name": "c"])
            try context.save()
            try env.expectEqual(note.objectID.storeIdentifier, notes.identifier, "a Note lands in the Notes store")
            try env.expectEqual(system.objectID.storeIdentifier, passwords.identifier, "a System lands in the Passwords store")
            var reader = coordinator
            if env.variant == .afterReopen {
                reader = PersistentStoreCoordinator(model: model, registry: env.registry)
                try reader.addPersistentStore(type: env.storeType, configuration: "Notes", at: notesURL)
                try reader.addPersistentStore(type: env.storeType, configuration: "Passwords", at: passwordsURL)
            }
            let readContext = ManagedObjectContext(coordinator: reader)
            for (entity, store, expected) in [("Note", notes, 1), ("System", notes, 0), ("System", passwords, 1), ("Note", passwords, 0)] {
                var request = FetchRequest(entityName: entity)
                request.affectedStoreIdentifiers = [store.identifier]
                try env.expectEqual(try readContext.count(for: request), expected, "\(entity) objects in the \(store.configurationName ?? "") store")
            }
            try env.expectEqual(try readContext.count(for: FetchRequest(entityName: "Note")), 1, "one fetch finds the note")
            try env.expectEqual(try readContext.count(for: FetchRequest(entityName: "Category")), 1, "and the category")
        },
        ConformanceCase("a fetch spans stores and assign overrides", behaviour: 47, area: .stores) { env in
            let model = try ConformanceModels.notesAndPasswords()
            let coordinator = PersistentStoreCoordinator(model: model, registry: env.registry)
            let first = try coordinator.addPersistentStore(type: env.storeType, at: env.storeURL("first"))
            let second = try coordinator.addPersistentStore(type: env.storeType, at: env.storeURL("second"))
            let context = ManagedObjectContext(coordinator: coordinator)
            let a = try insert(context, "Note", ["title": "a"])
            let b = try insert(context, "Note", ["title": "b"])
            context.assign(b, to: second)
            try context.save()
            try env.expectEqual(a.objectID.storeIdentifier, first.identifier, "unassigned: the first store")
            try env.expectEqual(b.objectID.storeIdentifier, second.identifier, "assigned: the second store")
            let fresh = ManagedObjectContext(coordinator: coordinator)
            try env.expectEqual(names(try fresh.fetch(FetchRequest(entityName: "Note")), "title"), ["a", "b"], "a fetch merges both stores")
            var request = FetchRequest(entityName: "Note")
            request.fetchOffset = 1
            try env.expectEqual(try fresh.count(for: request), 1, "offset applies to the merged result")
        },
        ConformanceCase("four writers and a reader", behaviour: 63, area: .concurrency) { env in
            let stack = try env.openStack(try ConformanceModels.users())
            let coordinator = stack.coordinator
            let batch = 100
            let done = Locked(0)
            let problems = Locked<[String]>([])
            let counts = Locked<[Int]>([])
            DispatchQueue.concurrentPerform(iterations: 5) { worker in
                if worker == 4 {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    while done.withLock({ $0 }) < 4 {
                        do {
                            let count = try context.count(for: FetchRequest(entityName: "User"))
                            counts.withLock { $0.append(count) }
                        } catch {
                            problems.withLock { $0.append("reader: \(error)") }
                            return
                        }
                    }
                    return
                }
                let context = ManagedObjectContext(coordinator: coordinator)
                do {
                    for round in 0..<(1_000 / batch) {
                        for i in 0..<batch {
                            try context.insert(entityName: "User").setValue("w\(worker)-\(round)-\(i)", forKey: "name")
                        }
                        try context.save()
                        context.reset()
                    }
                } catch {
                    problems.withLock { $0.append("writer \(worker): \(error)") }
                }
                done.withLock { $0 += 1 }
            }
            try env.expectEqual(problems.withLock { $0 }, [], "errors in threads")
            try env.expectEqual(try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "User")), 4_000, "users at the end")
            let seen = counts.withLock { $0 }
            try env.expect(seen.allSatisfy { $0 % batch == 0 }, "every intermediate count is a multiple of \(batch): \(seen.filter { $0 % batch != 0 }.prefix(5))")
        },
    ]
}
