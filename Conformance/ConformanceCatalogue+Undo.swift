import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// A league stack with a saved team "Crew" (Blue) and two players, Ada and Bob, and an undo
    /// manager on its context.
    static func undoStack(_ env: ConformanceEnvironment) throws -> (ConformanceStack, team: ManagedObject, ada: ManagedObject, bob: ManagedObject) {
        let stack = try env.openStack(try ConformanceModels.league())
        let team = try insert(stack.context, "Team", ["name": "Crew", "uniformColor": "Blue"])
        let ada = try insert(stack.context, "Player", ["firstName": "Ada"])
        let bob = try insert(stack.context, "Player", ["firstName": "Bob"])
        try team.setObjects([ada, bob], forKey: "players")
        try stack.context.save()
        stack.context.undoManager = ContextUndoManager()
        return (stack, team, ada, bob)
    }

    /// Undo and redo of context changes.
    public static let undo: [ConformanceCase] = [
        ConformanceCase("undo and redo attribute and relationship edits, inserts and deletes", behaviour: 0, area: .contexts) { env in
            let (stack, team, ada, bob) = try undoStack(env)
            let context = stack.context
            // An attribute edit, one event.
            try team.setValue("Renamed", forKey: "name")
            try context.processPendingChanges()
            // A relationship edit: both sides change.
            let other = try insert(context, "Team", ["name": "Other"])
            try ada.setObject(other, forKey: "team")
            try context.processPendingChanges()
            try env.expectEqual(names(team.objects(forKey: "players"), "firstName"), ["Bob"], "Ada moved")
            // A delete with its cascade (the team's players go too).
            context.delete(team)
            try context.processPendingChanges()
            try env.expect(bob.isDeleted, "the cascade deleted Bob")

            context.undo()
            try env.expect(!team.isDeleted && !bob.isDeleted, "the delete and its cascade are undone")
            try env.expectEqual(bob.object(forKey: "team").map { $0 === team }, true, "Bob is in the team again")
            context.undo()
            try env.expectEqual(names(team.objects(forKey: "players"), "firstName"), ["Ada", "Bob"], "Ada is back, on both sides")
            try env.expect(ada.object(forKey: "team") === team, "Ada's team")
            try env.expect(other.managedObjectContext == nil && !context.insertedObjects.contains(other), "the inserted team is gone")
            context.undo()
            try env.expectEqual(team.value(forKey: "name"), "Crew", "the name is back")
            try env.expect(!context.hasChanges, "nothing left to save: \(context.updatedObjects.map(\.objectID))")
            try env.expect(context.undoManager?.canUndo == false, "nothing left to undo")

            context.redo()
            try env.expectEqual(team.value(forKey: "name"), "Renamed", "redo the rename")
            context.redo()
            try env.expect(ada.object(forKey: "team") === other && other.managedObjectContext === context, "redo the move and the insert")
            try context.save()
            let view = try env.reload(stack)
            try env.expectEqual(names(try view.fetch("Team")), ["Other", "Renamed"], "what the save wrote")
            try env.expect(context.undoManager?.canUndo == false, "a save removes the undo actions")
            context.undo()
            try env.expectEqual(team.value(forKey: "name"), "Renamed", "undo after a save changes nothing saved")
        },
        ConformanceCase("undo stops at the changes made before the undo manager was set", behaviour: 0, area: .contexts) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try insert(stack.context, "Team", ["name": "Crew"])
            try stack.context.save()
            try team.setValue("Before", forKey: "name")
            stack.context.undoManager = ContextUndoManager()
            try team.setValue("After", forKey: "name")
            stack.context.undo()
            try env.expectEqual(team.value(forKey: "name"), "Before", "undo goes back to the state when undo started")
            stack.context.undo()
            try env.expectEqual(team.value(forKey: "name"), "Before", "nothing earlier to undo")
        },
        ConformanceCase("undo groups, levels and redo", behaviour: 0, area: .contexts) { env in
            let (stack, team, ada, _) = try undoStack(env)
            let context = stack.context
            guard let undoManager = context.undoManager else { throw ConformanceFailure("no undo manager") }
            context.beginUndoGrouping()
            try team.setValue("One", forKey: "name")
            try context.processPendingChanges()
            try ada.setValue("Ada L.", forKey: "firstName")
            try context.processPendingChanges()
            context.endUndoGrouping()
            try team.setValue("Two", forKey: "name")
            try env.expect(undoManager.canUndo, "can undo before the event ends")
            context.undo()
            try env.expectEqual(team.value(forKey: "name"), "One", "the last event undone")
            try env.expect(undoManager.canRedo, "can redo")
            context.undo()
            try env.expectEqual(team.value(forKey: "name"), "Crew", "the explicit group undone at once")
            try env.expectEqual(ada.value(forKey: "firstName"), "Ada", "…both of its events")
            context.redo()
            try env.expectEqual(ada.value(forKey: "firstName"), "Ada L.", "the group redone")
            try team.setValue("Three", forKey: "name")
            try context.processPendingChanges()
            try env.expect(!undoManager.canRedo, "a new change forgets what could be redone")

            undoManager.levelsOfUndo = 2
            for name in ["A", "B", "C", "D"] {
                try team.setValue(.string(name), forKey: "name")
                try context.processPendingChanges()
            }
            context.undo()
            context.undo()
            try env.expectEqual(team.value(forKey: "name"), "B", "two levels undone")
            try env.expect(!undoManager.canUndo, "older levels were forgotten")
        },
    ]
}
