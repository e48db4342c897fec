import Foundation
import StoreCore


extension ConformanceCatalogue {
    /// Two contexts editing the same team: the first saves "first", the second then saves
    /// "second" under `policy`. Returns the stack, the team's ID and the second save's error.
    static func conflict(_ env: ConformanceEnvironment, _ policy: MergePolicy) throws -> (ConformanceStack, ObjectID, StoreError?, ManagedObjectContext) {
        let stack = try env.openStack(try ConformanceModels.league())
        let team = try insert(stack.context, "Team", ["name": "start", "uniformColor": "Blue"])
        try stack.context.save()
        let second = ManagedObjectContext(coordinator: stack.coordinator)
        second.mergePolicy = policy
        let copy = try second.existingObject(with: team.objectID)
        try team.setValue("first", forKey: "name")
        try stack.context.save()
        try copy.setValue("second", forKey: "name")
        try copy.setValue("Green", forKey: "uniformColor")
        do {
            try second.save()
            return (stack, team.objectID, nil, second)
        } catch let error as StoreError {
            return (stack, team.objectID, error, second)
        }
    }

    static func stored(_ stack: ConformanceStack, _ id: ObjectID, _ key: String) throws -> StoreValue {
        let context = ManagedObjectContext(coordinator: stack.coordinator)
        return try context.existingObject(with: id).value(forKey: key)
    }

    /// Several contexts, notifications and conflicts: #44–#46.
    public static let contexts: [ConformanceCase] = [
        ConformanceCase("did-save lists IDs and merges", behaviour: 44, area: .contexts) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let keep = try insert(stack.context, "Team", ["name": "keep"])
            let drop = try insert(stack.context, "Team", ["name": "drop"])
            try stack.context.save()
            let other = ManagedObjectContext(coordinator: stack.coordinator)
            let otherKeep = try other.existingObject(with: keep.objectID)
            let otherDrop = try other.existingObject(with: drop.objectID)
            var received: [ContextDidSave] = []
            stack.context.addObserver { event in if case .didSave(let save) = event { received.append(save) } }
            let broadcast = Locked<[ContextDidSave]>([])
            let token = stack.coordinator.addObserver { save in broadcast.withLock { $0.append(save) } }
            try keep.setValue("kept", forKey: "name")
            stack.context.delete(drop)
            let added = try insert(stack.context, "Team", ["name": "added"])
            try stack.context.save()
            stack.coordinator.removeObserver(token)
            let save = try require(received.first, "a did-save notification")
            try env.expectEqual(save.insertedObjectIDs, [added.objectID], "inserted IDs")
            try env.expectEqual(save.updatedObjectIDs, [keep.objectID], "updated IDs")
            try env.expectEqual(save.deletedObjectIDs, [drop.objectID], "deleted IDs")
            try env.expectEqual(broadcast.withLock { $0 }, [save], "the coordinator's observers get the same payload")
            other.mergeChanges(from: save)
            try env.expectEqual(otherKeep.value(forKey: "name"), "kept", "merged update")
            try env.expect(other.registeredObject(for: drop.objectID) == nil && otherDrop.managedObjectContext == nil, "merged delete")
            try env.expectEqual(try other.count(for: FetchRequest(entityName: "Team")), 2, "teams seen by the other context")
        },
        ConformanceCase("optimistic locking: error policy", behaviour: 45, area: .contexts) { env in
            let (stack, id, error, _) = try conflict(env, .error)
            let failure = try require(error, "a conflict error")
            try env.expectEqual(failure.code, .managedObjectMerge, "code")
            try env.expectEqual(failure.objectIDs, [id], "conflicting objects")
            try env.expect(failure.message.contains("version"), "message lists versions: \(failure.message)")
            try env.expectEqual(try stored(stack, id, "name"), "first", "the first save stands")
            try env.expectEqual(try stack.coordinator.node(for: id, refreshingCache: true).version, 2, "row version: insert 1, one change 2")
        },
        ConformanceCase("optimistic locking: object trump", behaviour: 45, area: .contexts) { env in
            let (stack, id, error, _) = try conflict(env, .mergeByPropertyObjectTrump)
            try env.expect(error == nil, "saves: \(String(describing: error))")
            try env.expectEqual(try stored(stack, id, "name"), "second", "the object's changed name wins")
            try env.expectEqual(try stored(stack, id, "uniformColor"), "Green", "its other change too")
            try env.expectEqual(try stack.coordinator.node(for: id, refreshingCache: true).version, 3, "row version after two saved changes")
        },
        ConformanceCase("optimistic locking: store trump", behaviour: 45, area: .contexts) { env in
            let (stack, id, error, _) = try conflict(env, .mergeByPropertyStoreTrump)
            try env.expect(error == nil, "saves: \(String(describing: error))")
            try env.expectEqual(try stored(stack, id, "name"), "first", "the store's changed name wins")
            try env.expectEqual(try stored(stack, id, "uniformColor"), "Green", "the object's change the store did not touch stays")
        },
        ConformanceCase("optimistic locking: overwrite", behaviour: 45, area: .contexts) { env in
            let (stack, id, error, _) = try conflict(env, .overwrite)
            try env.expect(error == nil, "saves: \(String(describing: error))")
            try env.expectEqual(try stored(stack, id, "name"), "second", "the object overwrites")
            try env.expectEqual(try stored(stack, id, "uniformColor"), "Green", "every property")
        },
        ConformanceCase("optimistic locking: rollback", behaviour: 45, area: .contexts) { env in
            let (stack, id, error, second) = try conflict(env, .rollback)
            try env.expect(error == nil, "saves: \(String(describing: error))")
            try env.expectEqual(try stored(stack, id, "name"), "first", "the store wins")
            try env.expectEqual(try stored(stack, id, "uniformColor"), "Blue", "every property")
            try env.expectEqual(second.registeredObject(for: id)?.value(forKey: "name"), "first", "the context took the store's values")
        },
        ConformanceCase("objects-did-change on processPendingChanges", behaviour: 46, area: .contexts) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "a"])
            try stack.context.save()
            var events: [ContextDidSave] = []
            stack.context.addObserver { event in if case .objectsDidChange(let change) = event { events.append(change) } }
            let player = try insert(stack.context, "Player")
            try team.setValue("b", forKey: "name")
            try stack.context.processPendingChanges()
            let change = try require(events.first, "an objects-did-change event")
            try env.expectEqual(change.insertedObjectIDs, [player.objectID], "inserted")
            try env.expectEqual(change.updatedObjectIDs, [team.objectID], "updated")
            stack.context.delete(team)
            try stack.context.processPendingChanges()
            try env.expectEqual(events.count, 2, "one event per processing with changes")
            try env.expectEqual(events.last?.deletedObjectIDs, [team.objectID], "deleted")
            try stack.context.processPendingChanges()
            try env.expectEqual(events.count, 2, "no event without changes")
        },
    ]
}
