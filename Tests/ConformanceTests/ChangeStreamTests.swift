import Foundation
import PersistentStores
import Testing

/// `context.events` and `coordinator.saves`: changes as asynchronous sequences.
@Suite struct ChangeStreamTests {
    static func coordinator() throws -> PersistentStoreCoordinator {
        PersistentStores.registerBuiltInStoreTypes()
        let model = try ObjectModel { Entity("Note") { Attribute("text", .string) } }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        return coordinator
    }

    @Test func contextEventsArriveInOrderAndEndWithTheContext() async throws {
        let coordinator = try Self.coordinator()
        var context: ManagedObjectContext? = ManagedObjectContext(coordinator: coordinator)
        let events = try #require(context).events
        let note = try #require(context).insert(entityName: "Note")
        try note.setValue("hello", forKey: "text")
        try context?.save()
        let id = note.objectID
        context = nil  // the sequence ends
        var received: [ContextEvent] = []
        for await event in events { received.append(event) }
        #expect(received.count == 3)
        guard received.count == 3 else { return }
        #expect(received[1] == .willSave)
        if case .objectsDidChange(let changes) = received[0] {
            #expect(changes.insertedObjectIDs.count == 1)
        } else {
            Issue.record("first event: \(received[0])")
        }
        if case .didSave(let save) = received[2] {
            #expect(save.insertedObjectIDs == [id])
        } else {
            Issue.record("last event: \(received[2])")
        }
    }

    @Test func anObserverAddedAfterInsertsHearsOfThemAndOnlyOnce() throws {
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let first = try context.insert(entityName: "Note")
        let second = try context.insert(entityName: "Note")
        var inserted: [Set<ObjectID>] = []
        context.addObserver { event in
            if case .objectsDidChange(let changes) = event { inserted.append(changes.insertedObjectIDs) }
        }
        try context.processPendingChanges()
        try context.processPendingChanges()  // nothing new: no second event
        #expect(inserted == [[first.objectID, second.objectID]])
        let third = try context.insert(entityName: "Note")
        try context.processPendingChanges()
        #expect(inserted.count == 2)
        #expect(inserted.last == [third.objectID])
    }

    @Test func aStoppedConsumerIsForgotten() async throws {
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        do {
            let events = context.events
            let first = Task { () -> ContextEvent? in
                for await event in events { return event }
                return nil
            }
            try context.insert(entityName: "Note").setValue("a", forKey: "text")
            try context.save()
            #expect(await first.value != nil)
        }
        // The consumer stopped after one event; later events go nowhere, and nothing breaks.
        try context.insert(entityName: "Note").setValue("b", forKey: "text")
        try context.save()
        #expect(try context.count(for: FetchRequest(entityName: "Note")) == 2)
    }

    @Test func coordinatorSavesFromEveryContext() async throws {
        let coordinator = try Self.coordinator()
        let saves = coordinator.saves
        let writers = [PrivateQueueContext(coordinator: coordinator), PrivateQueueContext(coordinator: coordinator)]
        for (index, writer) in writers.enumerated() {
            try await writer.perform { context in
                try context.insert(entityName: "Note").setValue(.string("note \(index)"), forKey: "text")
                try context.save()
            }
        }
        var inserted = 0
        for await save in saves {
            inserted += save.insertedObjectIDs.count
            if inserted == 2 { break }
        }
        #expect(inserted == 2)
    }
}
