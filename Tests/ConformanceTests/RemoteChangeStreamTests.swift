import Foundation
import PersistentStores
import Testing

/// Remote changes as StoreCore offers them to every store type: posted by a store (here by
/// hand, as a store that heard of another process's save would), received as an asynchronous
/// sequence and by observers, and merged by queue contexts that opt in.
@Suite struct RemoteChangeStreamTests {
    /// A coordinator on an in-memory store with one saved note ("old"), and the note's ID.
    static func coordinator() throws -> (PersistentStoreCoordinator, ObjectID) {
        PersistentStores.registerBuiltInStoreTypes()
        let model = try ObjectModel { Entity("Note") { Attribute("text", .string) } }
        let coordinator = PersistentStoreCoordinator(model: model)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let note = try context.insert(entityName: "Note")
        try note.setValue("old", forKey: "text")
        try context.save()
        return (coordinator, note.objectID)
    }

    /// Changes the note in the store behind every other context's back and returns the remote
    /// change that announces it.
    static func changeBehindTheContexts(_ coordinator: PersistentStoreCoordinator, _ id: ObjectID) throws -> RemoteChange {
        let elsewhere = ManagedObjectContext(coordinator: coordinator)
        try elsewhere.existingObject(with: id).setValue("new", forKey: "text")
        try elsewhere.save()
        let store = try #require(coordinator.persistentStores.first?.identifier)
        let transaction = HistoryTransaction(
            storeIdentifier: store, number: 7, timestamp: Date(), author: "elsewhere", contextName: nil,
            changes: [HistoryChange(objectID: id, kind: .update, updatedProperties: ["text"])])
        return RemoteChange(storeIdentifier: store, transactions: [transaction])
    }

    @Test func aPostedChangeReachesTheSequenceAndTheObserversButAnEmptyOneDoesNot() async throws {
        let (coordinator, id) = try Self.coordinator()
        let changes = coordinator.remoteChanges
        let seen = Locked<[RemoteChange]>([])
        let token = coordinator.addRemoteChangeObserver { change in seen.withLock { $0.append(change) } }
        let store = try #require(coordinator.persistentStores.first?.identifier)
        coordinator.postRemoteChange(RemoteChange(storeIdentifier: store, transactions: []))
        let change = try Self.changeBehindTheContexts(coordinator, id)
        coordinator.postRemoteChange(change)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == change)
        #expect(seen.withLock { $0 } == [change])
        #expect(change.token == HistoryToken(transactions: [store: 7]))
        coordinator.removeRemoteChangeObserver(token)
        coordinator.postRemoteChange(change)
        #expect(seen.withLock { $0 }.count == 1)
    }

    @Test func aPrivateQueueContextThatOptsInMergesRemoteChanges() throws {
        let (coordinator, id) = try Self.coordinator()
        let view = PrivateQueueContext(coordinator: coordinator)
        let other = PrivateQueueContext(coordinator: coordinator)
        view.automaticallyMergesRemoteChanges = true
        #expect(view.automaticallyMergesRemoteChanges && !other.automaticallyMergesRemoteChanges)
        for context in [view, other] {
            #expect(try context.performAndWait { try $0.existingObject(with: id).value(forKey: "text") } == .string("old"))
        }
        let change = try Self.changeBehindTheContexts(coordinator, id)
        coordinator.postRemoteChange(change)
        // The merge was queued on the view's queue when the change was posted: it runs first.
        #expect(try view.performAndWait { try $0.existingObject(with: id).value(forKey: "text") } == .string("new"))
        #expect(try other.performAndWait { try $0.existingObject(with: id).value(forKey: "text") } == .string("old"))
        view.automaticallyMergesRemoteChanges = false
        #expect(!view.automaticallyMergesRemoteChanges)
    }

    @MainActor @Test func aMainQueueContextThatOptsInMergesRemoteChanges() async throws {
        let (coordinator, id) = try Self.coordinator()
        let view = MainQueueContext(coordinator: coordinator)
        view.automaticallyMergesRemoteChanges = true
        #expect(view.automaticallyMergesRemoteChanges)
        #expect(try view.context.existingObject(with: id).value(forKey: "text") == .string("old"))
        let events = view.context.events
        coordinator.postRemoteChange(try Self.changeBehindTheContexts(coordinator, id))
        // The merge runs on the main actor after this test yields to it; it announces itself.
        for await event in events {
            if case .objectsDidChange(let changes) = event, changes.updatedObjectIDs.contains(id) { break }
        }
        #expect(try view.context.existingObject(with: id).value(forKey: "text") == .string("new"))
        view.automaticallyMergesRemoteChanges = false
        #expect(!view.automaticallyMergesRemoteChanges)
    }
}
