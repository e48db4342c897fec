import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// A context's inserted objects: kept in insertion order while only inserts were made, by key
/// after a change by key, answering the same either way (`InsertedObjects`).
@Suite struct InsertedObjectsTests {
    static func objects(_ count: Int) throws -> [ManagedObject] {
        let context = ManagedObjectContext(coordinator: try InsertBookkeepingTests.coordinator())
        return try (0..<count).map { _ in try context.insert(entityName: "Player") }
    }

    @Test func insertsKeepTheirOrderUntilAChangeByKey() throws {
        let objects = try Self.objects(5)
        var set = InsertedObjects()
        #expect(set.isEmpty && set.count == 0 && set.inInsertionOrder?.isEmpty == true)
        for object in objects { set.append(object) }
        #expect(!set.isEmpty && set.count == 5)
        #expect(set.inInsertionOrder?.map(ObjectIdentifier.init) == objects.map(ObjectIdentifier.init))
        #expect(set[ObjectKey(objects[3])] === objects[3])

        // Removing an object that is not there changes nothing, the order included.
        let stranger = try Self.objects(1)[0]
        set[ObjectKey(stranger)] = nil
        #expect(set.count == 5 && set.inInsertionOrder != nil)

        // A removal by key: the same objects less one, the order no longer known.
        set[ObjectKey(objects[1])] = nil
        #expect(set.count == 4 && set.inInsertionOrder == nil && set[ObjectKey(objects[1])] == nil)
        #expect(Set(set.values.map(ObjectIdentifier.init)) == Set([0, 2, 3, 4].map { ObjectIdentifier(objects[$0]) }))
        set.append(objects[1])
        set[ObjectKey(stranger)] = stranger
        #expect(set.count == 6 && set[ObjectKey(objects[1])] === objects[1] && set[ObjectKey(stranger)] === stranger)

        // Emptied by key, it keeps the order of what comes next again.
        for object in objects + [stranger] { set[ObjectKey(object)] = nil }
        #expect(set.isEmpty && set.inInsertionOrder?.isEmpty == true)
        set.append(objects[4])
        set.append(objects[0])
        #expect(set.inInsertionOrder?.map(ObjectIdentifier.init) == [ObjectIdentifier(objects[4]), ObjectIdentifier(objects[0])])
    }

    @Test func aSaveAfterAnUndoneInsertWritesTheOthersInTheirOrder() throws {
        let coordinator = try InsertBookkeepingTests.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        context.undoManager = ContextUndoManager()
        var players: [ManagedObject] = []
        for index in 0..<6 {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.string("player \(index)"), forKey: "lastName")
            players.append(player)
            // Each insert its own undo group, so the last one can be undone alone.
            try context.processPendingChanges()
        }
        context.undo()
        #expect(players[5].managedObjectContext == nil && context.insertedObjects.count == 5)
        try context.save()
        #expect(players.prefix(5).allSatisfy { !$0.objectID.isTemporaryID && !$0.isInserted })
        // Keys are handed out in insertion order, the undone insert's place left out.
        let keys = players.prefix(5).compactMap { object -> Int64? in
            if case .int(let key) = object.objectID.referenceObject { return key }
            return nil
        }
        #expect(keys.count == 5 && keys == keys.sorted() && Set(keys).count == 5)
        let fetched = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Player"))
        #expect(fetched.count == 5)
    }
}
