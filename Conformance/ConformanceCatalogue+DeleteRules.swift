import StoreCore

extension ConformanceCatalogue {
    /// Delete rules: #22–#25.
    public static let deleteRules: [ConformanceCase] = [
        ConformanceCase("nullify removes the deleted object", behaviour: 22, area: .deleteRules, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Crew"])
            let players = try (0..<3).map { try insert(stack.context, "Player", ["lastName": .string("p\($0)")]) }
            try team.setObjects(players, forKey: "players")
            try stack.context.save()
            stack.context.delete(players[1])
            try stack.context.processPendingChanges()
            try env.expectEqual(names(team.objects(forKey: "players"), "lastName"), ["p0", "p2"], "team.players before save")
            try stack.context.save()
            let loaded = try env.reload(stack)
            try env.expectEqual(names(try first(loaded, "Team", where: "name", is: "Crew").objects(forKey: "players"), "lastName"), ["p0", "p2"], "team.players after \(env.variant)")
        },
        ConformanceCase("deny refuses the save", behaviour: 23, area: .deleteRules) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            let canvas = try insert(stack.context, "Canvas")
            let transform = try insert(stack.context, "Transform", ["scale": 1])
            try transform.setObject(canvas, forKey: "canvas")
            try stack.context.save()
            stack.context.delete(transform)
            let error = try env.expectError(.validationRelationshipDeniedDelete, "deleting a Transform whose canvas is set") {
                try stack.context.save()
            }
            try env.expect(error.message.contains("Transform.canvas"), "the 1600 message names the relationship: \(error.message)")
            try env.expect(transform.isDeleted && stack.context.deletedObjects.contains(transform), "the delete is still pending")
            let other = ManagedObjectContext(coordinator: stack.coordinator)
            try env.expectEqual(try other.count(for: FetchRequest(entityName: "Transform")), 1, "nothing was deleted")
            stack.context.rollback()
            try env.expect(!transform.isDeleted && !stack.context.hasChanges, "rollback drops the pending delete")
            try env.expect(transform.object(forKey: "canvas") === canvas, "the relationship is intact after rollback")
        },
        ConformanceCase("no action leaves a dangling reference", behaviour: 24, area: .deleteRules) { env in
            let model = try ObjectModel {
                Entity("Owner") {
                    Attribute("name", .string)
                    Relationship("pets", to: "Pet", inverse: "owner", toMany: true, deleteRule: .noAction)
                }
                Entity("Pet") {
                    Attribute("name", .string)
                    Relationship("owner", to: "Owner", inverse: "pets")
                }
            }
            let stack = try env.openStack(model)
            let owner = try insert(stack.context, "Owner", ["name": "o"])
            try insert(stack.context, "Pet", ["name": "p"]).setObject(owner, forKey: "owner")
            try stack.context.save()
            let ownerID = owner.objectID
            stack.context.delete(owner)
            try stack.context.save()
            let fresh = ManagedObjectContext(coordinator: stack.coordinator)
            let pet = try require(try fresh.fetch(FetchRequest(entityName: "Pet")).first, "pet")
            try env.expectEqual(pet.value(forKey: "owner"), .objectID(ownerID), "the pet still points at the deleted owner")
            try env.expectError(.managedObjectReferentialIntegrity, "loading the deleted owner") { _ = try fresh.existingObject(with: ownerID) }
            try pet.setObject(nil, forKey: "owner")
            try fresh.save()
            let check = ManagedObjectContext(coordinator: stack.coordinator)
            try env.expectEqual(try check.fetch(FetchRequest(entityName: "Pet")).first?.value(forKey: "owner"), .null, "the caller fixed the reference")
        },
        ConformanceCase("cascade is transitive and cycle-safe", behaviour: 25, area: .deleteRules, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            let canvas = try insert(stack.context, "Canvas")
            try insert(stack.context, "Transform", ["scale": 1]).setObject(canvas, forKey: "canvas")
            let polygon = try insert(stack.context, "Polygon", ["color": "red"])
            for i in 0..<3 { try insert(stack.context, "Vertex", ["index": .int(Int64(i))]).setObject(polygon, forKey: "polygon") }
            try stack.context.save()
            stack.context.delete(canvas)
            stack.context.delete(polygon)
            try stack.context.save()
            let loaded = try env.reload(stack)
            try env.expectEqual(try loaded.count("Transform"), 0, "Canvas → Transform cascade")
            try env.expectEqual(try loaded.count("Vertex"), 0, "Polygon → Vertex cascade")

            let cyclic = try ObjectModel {
                Entity("Node") {
                    Attribute("name", .string)
                    Relationship("next", to: "Node", inverse: "previous", deleteRule: .cascade)
                    Relationship("previous", to: "Node", inverse: "next", deleteRule: .cascade)
                }
            }
            let ring = try env.openStack(cyclic, url: .some(env.storeURL("ring")))
            let nodes = try (0..<4).map { try insert(ring.context, "Node", ["name": .string("n\($0)")]) }
            for i in 0..<4 { try nodes[i].setObject(nodes[(i + 1) % 4], forKey: "next") }
            try ring.context.save()
            ring.context.delete(nodes[0])
            try ring.context.save()
            try env.expectEqual(try ring.count("Node"), 0, "a cascade around a cycle deletes each node once")
        },
    ]
}
