import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// A stack on ``ConformanceModels/contacts()`` with one saved contact
    /// (ada@example.com, "Ada", 36, in club "Chess" of "Paris") and a second context under
    /// `policy` to insert into.
    static func constrained(_ env: ConformanceEnvironment, _ policy: MergePolicy) throws -> (ConformanceStack, ManagedObjectContext) {
        let stack = try env.openStack(try ConformanceModels.contacts())
        let club = try insert(stack.context, "Club", ["name": "Chess", "city": "Paris"])
        let ada = try insert(stack.context, "Contact", ["email": "ada@example.com", "name": "Ada", "age": 36])
        try ada.setObject(club, forKey: "club")
        try stack.context.save()
        let other = ManagedObjectContext(coordinator: stack.coordinator)
        other.mergePolicy = policy
        return (stack, other)
    }

    /// What `view` reads: each contact as "email name age club".
    static func contacts(_ view: ConformanceStack) throws -> [String] {
        try view.fetch("Contact").map { contact in
            let age = contact.value(forKey: "age", as: Int64.self).map(String.init) ?? "nil"
            let club = contact.object(forKey: "club")?.value(forKey: "name", as: String.self) ?? "nil"
            return "\(contact.value(forKey: "email", as: String.self) ?? "nil") \(contact.value(forKey: "name", as: String.self) ?? "nil") \(age) \(club)"
        }.sorted()
    }

    /// Uniqueness constraints: conflicts refused (133021) or resolved by the merge policy.
    public static let constraints: [ConformanceCase] = [
        ConformanceCase("uniqueness constraint refuses a stored duplicate (133021)", behaviour: 0, area: .contexts, runsAfterReopen: true) { env in
            let (stack, other) = try constrained(env, .error)
            let copy = try insert(other, "Member", ["email": "ada@example.com", "name": "Ada again"])
            let error = try env.expectError(.managedObjectConstraintMerge, "saving a second ada@example.com") { try other.save() }
            try env.expectEqual(error.constraintConflicts.count, 1, "conflicts")
            let conflict = error.constraintConflicts[0]
            try env.expectEqual(conflict.entityName, "Contact", "the constraint's entity")
            try env.expectEqual(conflict.constraint, ["email"], "the constraint")
            try env.expectEqual(conflict.values, ["email": .string("ada@example.com")], "the shared values")
            try env.expectEqual(conflict.objectIDs, [copy.objectID], "the object being saved")
            try env.expect(conflict.storedObjectID != nil && conflict.storedObjectID != copy.objectID, "the stored object is named")
            try env.expect(error.message.contains("ada@example.com"), "the message names the value: \(error.message)")
            try env.expectEqual(try contacts(try env.reload(stack)), ["ada@example.com Ada 36 Chess"], "nothing was written")
            try env.expect(copy.isInserted && copy.managedObjectContext === other, "the change stays pending")
        },
        ConformanceCase("uniqueness constraint refuses duplicates within one save", behaviour: 0, area: .contexts) { env in
            let (stack, other) = try constrained(env, .error)
            let first = try insert(other, "Contact", ["email": "bob@example.com"])
            let second = try insert(other, "Contact", ["email": "bob@example.com"])
            _ = try insert(other, "Club", ["name": "Go", "city": "Lyon"])
            _ = try insert(other, "Club", ["name": "Go", "city": "Lyon"])
            _ = try insert(other, "Contact", ["name": "no email"])
            _ = try insert(other, "Contact", ["name": "no email either"])
            let error = try env.expectError(.managedObjectConstraintMerge, "two bob@example.com in one save") { try other.save() }
            let byEntity = Dictionary(grouping: error.constraintConflicts, by: \.entityName)
            try env.expectEqual(byEntity["Contact"]?.first?.objectIDs.map(\.self), [first.objectID, second.objectID], "both contacts listed")
            try env.expect(byEntity["Contact"]?.first?.storedObjectID == nil, "no stored object")
            try env.expectEqual(byEntity["Club"]?.first?.constraint, ["name", "city"], "the compound constraint")
            try env.expectEqual(error.constraintConflicts.count, 2, "contacts without an email are not constrained")
            try env.expectEqual(try stack.count("Contact"), 1, "nothing was written")
        },
        ConformanceCase("uniqueness constraint upsert, object trump", behaviour: 0, area: .contexts, runsAfterReopen: true) { env in
            let (stack, other) = try constrained(env, .mergeByPropertyObjectTrump)
            let club = try insert(other, "Club", ["name": "Go", "city": "Lyon"])
            let copy = try insert(other, "Contact", ["email": "ada@example.com", "name": "Ada Lovelace"])
            try copy.setObject(club, forKey: "club")
            try other.save()
            try env.expect(copy.managedObjectContext == nil, "the inserted duplicate left its context")
            let view = try env.reload(stack)
            try env.expectEqual(try contacts(view), ["ada@example.com Ada Lovelace 36 Go"], "the stored contact took the new values")
            let go = try first(view, "Club", where: "name", is: "Go")
            try env.expectEqual(names(go.objects(forKey: "members"), "email"), ["ada@example.com"], "the new club's members")
            let chess = try first(view, "Club", where: "name", is: "Chess")
            try env.expectEqual(chess.objects(forKey: "members").count, 0, "the old club lost its member")
        },
        ConformanceCase("uniqueness constraint upsert, store trump and rollback", behaviour: 0, area: .contexts) { env in
            let (stack, other) = try constrained(env, .mergeByPropertyStoreTrump)
            let stored = try first(stack, "Contact", where: "email", is: "ada@example.com")
            try stored.setValue(.null, forKey: "age")
            try stack.context.save()
            _ = try insert(other, "Contact", ["email": "ada@example.com", "name": "Ada Lovelace", "age": 37])
            try other.save()
            try env.expectEqual(try contacts(env.reload(stack)), ["ada@example.com Ada 37 Chess"], "store trump: only the missing age taken")
            let third = ManagedObjectContext(coordinator: stack.coordinator)
            third.mergePolicy = .rollback
            _ = try insert(third, "Contact", ["email": "ada@example.com", "name": "Nobody", "age": 1])
            try third.save()
            try env.expectEqual(try contacts(env.reload(stack)), ["ada@example.com Ada 37 Chess"], "rollback: the stored object unchanged")
        },
        ConformanceCase("uniqueness constraint merges duplicates within one save", behaviour: 0, area: .contexts) { env in
            let (stack, other) = try constrained(env, .mergeByPropertyObjectTrump)
            let first = try insert(other, "Contact", ["email": "bob@example.com", "name": "Bob", "age": 20])
            _ = try insert(other, "Member", ["email": "bob@example.com", "name": "Robert"])
            try other.save()
            try env.expect(first.managedObjectContext === other && !first.isInserted, "the first inserted object was saved")
            try env.expectEqual(
                try contacts(env.reload(stack)), ["ada@example.com Ada 36 Chess", "bob@example.com Robert 20 nil"], "one Bob, later values winning")
        },
        ConformanceCase("uniqueness constraint is not resolved for an update", behaviour: 0, area: .contexts) { env in
            let (stack, other) = try constrained(env, .mergeByPropertyObjectTrump)
            let bob = try insert(other, "Contact", ["email": "bob@example.com"])
            try other.save()
            try bob.setValue("ada@example.com", forKey: "email")
            try env.expectError(.managedObjectConstraintMerge, "an update taking ada's email") { try other.save() }
            try env.expectEqual(try stack.count("Contact"), 2, "both contacts kept")
        },
    ]
}
