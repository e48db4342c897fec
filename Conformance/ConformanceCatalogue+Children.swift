import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Parent and child contexts.
    public static let children: [ConformanceCase] = [
        ConformanceCase("a child context reads its parent's unsaved changes and saves into the parent", behaviour: 0, area: .contexts, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let parent = stack.context
            let crew = try insert(parent, "Team", ["name": "Crew"])
            let ada = try insert(parent, "Player", ["firstName": "Ada"])
            try ada.setObject(crew, forKey: "team")
            try parent.save()
            // Unsaved in the parent: a rename and a new team.
            try crew.setValue("Crew (renamed)", forKey: "name")
            let fresh = try insert(parent, "Team", ["name": "Fresh"])

            let child = ManagedObjectContext(parent: parent)
            try env.expectEqual(names(try child.fetch(FetchRequest(entityName: "Team"))), ["Crew (renamed)", "Fresh"], "the child sees the parent's unsaved state")
            let childFresh = try child.existingObject(with: fresh.objectID)
            try env.expect(childFresh !== fresh && childFresh.objectID == fresh.objectID, "the child's own object, the same (temporary) ID")
            let childAda = try child.existingObject(with: ada.objectID)
            try env.expectEqual(childAda.object(forKey: "team")?.value(forKey: "name"), "Crew (renamed)", "a to-one read through the parent")

            // Edits in the child: move Ada to Fresh, add Bob, delete nothing yet.
            try childAda.setObject(childFresh, forKey: "team")
            let bob = try insert(child, "Player", ["firstName": "Bob"])
            try bob.setObject(childFresh, forKey: "team")
            try child.save()
            try env.expect(!child.hasChanges, "the child has no changes after its save")
            try env.expect(parent.hasChanges, "the parent has the child's changes, unsaved")
            let parentBob = try env.unwrapObject(parent.registeredObject(for: bob.objectID), "Bob in the parent (same ID)")
            try env.expect(parentBob.isInserted, "Bob is an insert of the parent")
            try env.expectEqual(names(fresh.objects(forKey: "players"), "firstName"), ["Ada", "Bob"], "the parent's inverse followed")
            try env.expectEqual(crew.objects(forKey: "players").count, 0, "Ada left the old team in the parent")
            let outsider = ManagedObjectContext(coordinator: stack.coordinator)
            try env.expectEqual(try outsider.count(for: FetchRequest(entityName: "Player")), 1, "nothing reached the store yet")

            // The parent's save writes everything.
            try parent.save()
            try env.expect(!parentBob.objectID.isTemporaryID, "permanent IDs at the parent's save")
            let view = try env.reload(stack)
            let teams = try view.fetch("Team")
            try env.expectEqual(names(teams), ["Crew (renamed)", "Fresh"], "the store's teams")
            let freshStored = try first(view, "Team", where: "name", is: "Fresh")
            try env.expectEqual(names(freshStored.objects(forKey: "players"), "firstName"), ["Ada", "Bob"], "the store's players of Fresh")
        },
        ConformanceCase("a child context's deletes, validation and grandchildren", behaviour: 0, area: .contexts) { env in
            let stack = try env.openStack(try ConformanceModels.orgChart())
            let parent = stack.context
            let org = try insert(parent, "Organization", ["id": 1, "name": "Acme"])
            let boss = try insert(parent, "Person", ["id": 1, "name": "Boss"])
            try org.setObject(boss, forKey: "leader")
            try parent.save()

            let child = ManagedObjectContext(parent: parent)
            let grandchild = ManagedObjectContext(parent: child)
            let deputy = try insert(grandchild, "Person", ["id": 2, "name": "Deputy"])
            try grandchild.existingObject(with: boss.objectID).setObjects([deputy], forKey: "employees")
            try grandchild.save()
            try env.expectEqual(names(try child.fetch(FetchRequest(entityName: "Person"))), ["Boss", "Deputy"], "the grandchild saved into the child")
            try env.expectEqual(try parent.count(for: FetchRequest(entityName: "Person")), 1, "not yet into the parent")
            try child.save()
            try env.expectEqual(names(boss.objects(forKey: "employees")), ["Deputy"], "the parent has it now")

            // Deleting in a child deletes in the parent at the child's save.
            let childOrg = try child.existingObject(with: org.objectID)
            child.delete(childOrg)
            try child.save()
            try env.expect(org.isDeleted, "deleted in the parent")
            try parent.save()
            try env.expectEqual(try ManagedObjectContext(coordinator: stack.coordinator).count(for: FetchRequest(entityName: "Organization")), 0, "deleted in the store")

            // A child's save validates: a required name set to nil is refused, the parent unchanged.
            let strict = ManagedObjectContext(parent: parent)
            try strict.existingObject(with: boss.objectID).setValue(.null, forKey: "name")
            try env.expectError(.validationMissingMandatoryProperty, "a required name removed") { try strict.save() }
            try env.expectEqual(boss.value(forKey: "name"), "Boss", "the parent is unchanged")
        },
    ]
}

extension ConformanceEnvironment {
    /// Fails with `what` when `object` is nil.
    func unwrapObject(_ object: ManagedObject?, _ what: @autoclosure () -> String) throws -> ManagedObject {
        guard let object else { throw ConformanceFailure("\(what()): missing") }
        return object
    }
}
