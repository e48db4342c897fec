import StoreCore

extension ConformanceCatalogue {
    /// Faults, identity, refresh, rollback: #40–#43.
    public static let faults: [ConformanceCase] = [
        ConformanceCase("uniquing", behaviour: 40, area: .faults, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Crew"])
            try insert(stack.context, "Player", ["lastName": "a"]).setObject(team, forKey: "team")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let fetched = try first(loaded, "Team", where: "name", is: "Crew")
            let viaID = loaded.context.object(with: team.objectID)
            let viaRelationship = try require(try loaded.fetch("Player").first?.object(forKey: "team"), "player.team")
            try env.expect(fetched === viaID && viaID === viaRelationship, "one object per ID however it is reached")
            let other = ManagedObjectContext(coordinator: loaded.coordinator)
            try env.expect(try other.existingObject(with: team.objectID) !== fetched, "two contexts, two instances")
        },
        ConformanceCase("faults fill on first access", behaviour: 41, area: .faults, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Crew"])
            for i in 0..<5 { try insert(stack.context, "Player", ["lastName": .string("p\(i)")]).setObject(team, forKey: "team") }
            try stack.context.save()
            let loaded = try env.reload(stack)
            let fault = loaded.context.object(with: team.objectID)
            try env.expect(fault.isFault, "object(with:) gives a fault")
            try env.expectEqual(fault.value(forKey: "name"), "Crew", "the fault fills on access")
            try env.expect(!fault.isFault, "no longer a fault")
            let before = loaded.coordinator.statistics.relationshipLoads
            let first = fault.objects(forKey: "players").count
            let second = fault.objects(forKey: "players").count
            try env.expectEqual(first, 5, "players")
            try env.expectEqual(second, 5, "players again")
            try env.expect(loaded.coordinator.statistics.relationshipLoads - before <= 1, "the store is asked at most once for the to-many")
        },
        ConformanceCase("refresh, reset and rollback", behaviour: 42, area: .faults) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Crew", "uniformColor": "Blue"])
            try stack.context.save()
            try team.setValue("Changed", forKey: "name")
            stack.context.refresh(team, mergeChanges: false)
            try env.expectEqual(team.value(forKey: "name"), "Crew", "refresh without merge discards changes")
            try env.expect(!stack.context.hasChanges, "no changes after refresh")
            let other = ManagedObjectContext(coordinator: stack.coordinator)
            try other.existingObject(with: team.objectID).setValue("Red", forKey: "uniformColor")
            try other.save()
            try team.setValue("Mine", forKey: "name")
            stack.context.refresh(team, mergeChanges: true)
            try env.expectEqual(team.value(forKey: "name"), "Mine", "refresh with merge keeps local changes")
            try env.expectEqual(team.value(forKey: "uniformColor"), "Red", "and takes the latest store values")
            try stack.context.save()
            try env.expectEqual(try stored(stack, team.objectID, "name"), "Mine", "the merged object saves")

            let inserted = try insert(stack.context, "Team", ["name": "New"])
            try team.setValue("Rolled", forKey: "name")
            let player = try insert(stack.context, "Player")
            try player.setObject(team, forKey: "team")
            stack.context.delete(team)
            stack.context.rollback()
            try env.expect(!stack.context.hasChanges, "rollback leaves no changes")
            try env.expect(inserted.managedObjectContext == nil, "rollback removes inserted objects")
            try env.expect(!team.isDeleted, "rollback undoes deletes")
            try env.expectEqual(team.value(forKey: "name"), "Mine", "rollback restores saved values")
            try env.expectEqual(team.objects(forKey: "players").count, 0, "rollback restores relationships")
            stack.context.reset()
            try env.expect(stack.context.registeredObjects.isEmpty, "reset forgets every object")
            try env.expect(team.managedObjectContext == nil, "objects of a reset context are detached")
        },
        ConformanceCase("existingObject and faults of missing objects", behaviour: 43, area: .faults) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Gone"])
            try stack.context.save()
            let id = team.objectID
            stack.context.delete(team)
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            try env.expectError(.managedObjectReferentialIntegrity, "existingObject for a deleted ID") { _ = try fresh.existingObject(with: id) }
            let unknown = ObjectID(storeIdentifier: stack.store.identifier, entityName: "Team", reference: .int(987_654))
            try env.expectError(.managedObjectReferentialIntegrity, "existingObject for an unknown ID") { _ = try fresh.existingObject(with: unknown) }
            let fault = fresh.object(with: id)
            try env.expect(fault.isFault, "object(with:) returns a fault")
            try env.expectError(.managedObjectReferentialIntegrity, "firing the fault") { try fault.fireFault() }
        },
    ]
}
