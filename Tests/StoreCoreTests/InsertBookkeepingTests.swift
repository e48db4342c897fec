import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// A validated object that counts the hooks validation calls on it.
private final class CheckedPlayer: ManagedObject {
    var checkedKeys: [String] = []
    var insertChecks = 0

    override func validateValue(_ value: StoreValue, forKey key: String) throws {
        checkedKeys.append(key)
        if key == "lastName", value == .string("Nobody") {
            throw StoreError(.managedObjectValidation, "no Nobody", objectIDs: [objectID], propertyName: key)
        }
    }

    override func validateForInsert() throws { insertChecks += 1 }
}

/// What the W1 insert path keeps per object without the costs it had (docs/benchmarks.md, W1):
/// the context held through its link instead of weakly, the inserted objects in registration
/// order without sorting, a destination's `.objectID` value shared, validation hooks called
/// only on subclasses.
@Suite struct InsertBookkeepingTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true)
            }
            Entity("Player") {
                Attribute("lastName", .string)
                Relationship("team", to: "Team", inverse: "players")
            }
        }
    }

    static func coordinator(registering player: ManagedObject.Type? = nil) throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        if let player { coordinator.register(player, forEntityName: "Player") }
        try coordinator.addPersistentStore(type: "InMemory")
        return coordinator
    }

    /// Two objects inserted into a context that is gone when this returns.
    static func orphans(of coordinator: PersistentStoreCoordinator) throws -> (team: ManagedObject, player: ManagedObject) {
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        let player = try context.insert(entityName: "Player")
        #expect(team.managedObjectContext === context && team.isInContext && player.isInSameContext(as: team))
        return (team, player)
    }

    @Test func aSaveMakesItsIDsForWhoeverListensAndOnlyThen() throws {
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        // No one listening: the save still saves.
        let first = try context.insert(entityName: "Team")
        try context.save()
        #expect(!first.objectID.isTemporaryID && !context.hasChanges)
        // A coordinator observer alone is told every ID.
        let told = Locked<[ContextDidSave]>([])
        let token = coordinator.addObserver { save in told.withLock { $0.append(save) } }
        let second = try context.insert(entityName: "Team")
        try first.setValue(.string("Renamed"), forKey: "name")
        try context.save()
        #expect(told.withLock { $0 } == [ContextDidSave(insertedObjectIDs: [second.objectID], updatedObjectIDs: [first.objectID])])
        coordinator.removeObserver(token)
        // A context observer alone too.
        var seen: [ContextDidSave] = []
        context.addObserver { event in if case .didSave(let save) = event { seen.append(save) } }
        let third = try context.insert(entityName: "Team")
        context.delete(second)
        try context.save()
        #expect(seen == [ContextDidSave(insertedObjectIDs: [third.objectID], deletedObjectIDs: [second.objectID])])
        #expect(told.withLock { $0.count } == 1, "a removed coordinator observer is not told")
    }

    @Test func anObjectOutlivingItsContextHasNoContext() throws {
        let coordinator = try Self.coordinator()
        let (team, player) = try Self.orphans(of: coordinator)
        #expect(team.managedObjectContext == nil && player.managedObjectContext == nil)
        #expect(!team.isInContext && !player.isInSameContext(as: team))
        #expect(throws: StoreError.self) { try team.setValue(.string("Crew"), forKey: "name") }
        do {
            try player.setObject(team, forKey: "team")
            Issue.record("a set on an object without a context succeeded")
        } catch let error as StoreError {
            #expect(error.code == .managedObjectReferentialIntegrity)
        }
        // A context made afterwards (possibly at the dead one's address) does not own them.
        let later = ManagedObjectContext(coordinator: coordinator)
        #expect(!team.isIn(later))
        later.delete(team)
        #expect(!team.isDeleted && later.deletedObjects.isEmpty)
    }

    @Test func objectsOfTwoContextsAreNotInTheSameContext() throws {
        let coordinator = try Self.coordinator()
        let first = ManagedObjectContext(coordinator: coordinator)
        let second = ManagedObjectContext(coordinator: coordinator)
        let team = try first.insert(entityName: "Team")
        let player = try second.insert(entityName: "Player")
        #expect(team.isIn(first) && !team.isIn(second) && !player.isInSameContext(as: team))
        do {
            try player.setObject(team, forKey: "team")
            Issue.record("a to-one across contexts was set")
        } catch let error as StoreError {
            #expect(error.code == .managedObjectExternalRelationship)
        }
        // Deleted and saved: the object leaves its context.
        try first.save()
        first.delete(team)
        try first.save()
        #expect(team.managedObjectContext == nil && !team.isInContext)
    }

    @Test func objectsComeInRegistrationOrderWhetherTheOrdersAreDenseOrNot() throws {
        let context = ManagedObjectContext(coordinator: try Self.coordinator())
        let objects = try (0..<40).map { _ in try context.insert(entityName: "Player") }
        func check(_ orders: [Int], _ comment: Comment) {
            for (object, order) in zip(objects, orders) { object.registrationOrder = order }
            let chosen = Array(objects.prefix(orders.count))
            let ordered = ManagedObjectContext.inRegistrationOrder(chosen.shuffled())
            #expect(ordered.count == chosen.count, comment)
            #expect(Set(ordered.map(ObjectIdentifier.init)) == Set(chosen.map(ObjectIdentifier.init)), comment)
            #expect(zip(ordered, ordered.dropFirst()).allSatisfy { $0.registrationOrder <= $1.registrationOrder }, comment)
        }
        check(Array(0..<40), "dense")
        check((0..<40).map { 1_000 + $0 * 2 }, "every other order")
        check((0..<40).map { $0 * $0 * 7 }, "sparse")
        check([5, 3, 5, 4, 9, 3], "two objects sharing an order")
        check([7], "one object")
        check([], "none")
    }

    @Test func insertedObjectsAreSavedInTheOrderTheyWereInserted() throws {
        let coordinator = try Self.coordinator()
        let context = ManagedObjectContext(coordinator: coordinator)
        let names = (0..<50).map { "player \($0)" }
        var inserted: [ManagedObject] = []
        for name in names {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.string(name), forKey: "lastName")
            inserted.append(player)
        }
        // A deleted insert in the middle is left out; the rest keep their order.
        context.delete(inserted[10])
        try context.save()
        let keys = inserted.enumerated().filter { $0.offset != 10 }.map { $0.element.objectID }
        #expect(keys.allSatisfy { !$0.isTemporaryID })
        let fetched = try ManagedObjectContext(coordinator: coordinator).fetch(FetchRequest(entityName: "Player"))
        #expect(Set(fetched.map(\.objectID)) == Set(keys))
    }

    @Test func aDestinationsIDValueFollowsItsID() throws {
        let context = ManagedObjectContext(coordinator: try Self.coordinator())
        let team = try context.insert(entityName: "Team")
        let players = try (0..<3).map { _ in try context.insert(entityName: "Player") }
        for player in players { try player.setObject(team, forKey: "team") }
        let temporary = team.objectID
        #expect(team.objectIDValue == .objectID(temporary))
        let slot = try #require(players[0].layout.toOneSlot(of: "team"))
        for player in players { #expect(player.slotValue(slot) == .objectID(temporary)) }

        try context.save()
        #expect(!team.objectID.isTemporaryID && team.objectID != temporary)
        #expect(team.objectIDValue == .objectID(team.objectID))
        for player in players {
            #expect(player.slotValue(slot) == .objectID(team.objectID))
            #expect(player.value(forKey: "team") == .objectID(team.objectID))
            #expect(player.committedValues(forKeys: ["team"])["team"] == .objectID(team.objectID))
        }
        // An object without extras makes the value each time, with the same ID.
        let loner = try context.insert(entityName: "Team")
        #expect(loner.objectIDValue == .objectID(loner.objectID))
    }

    @Test func anInverseIsAddedToItsOwnListWhenAnotherIsTheOnlyOneLoaded() throws {
        let model = try ObjectModel {
            Entity("Club") {
                Relationship("members", to: "Member", inverse: "club", toMany: true)
                Relationship("sponsors", to: "Member", inverse: "sponsored", toMany: true)
            }
            Entity("Member") {
                Attribute("name", .string)
                Relationship("club", to: "Club", inverse: "members")
                Relationship("sponsored", to: "Club", inverse: "sponsors")
            }
        }
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: model))
        let club = try context.insert(entityName: "Club")
        let sponsor = try context.insert(entityName: "Member")
        try sponsor.setObject(club, forKey: "sponsored")
        // Only `sponsors` is loaded: a member's club goes to `members`, not to the loaded list.
        #expect(club.toManyValues.count == 1 && club.toManyValues["sponsors"] != nil)
        let members = try (0..<3).map { _ in try context.insert(entityName: "Member") }
        for member in members { try member.setObject(club, forKey: "club") }
        #expect(club.objects(forKey: "members").map(ObjectIdentifier.init) == members.map(ObjectIdentifier.init))
        #expect(club.objects(forKey: "sponsors").map(ObjectIdentifier.init) == [ObjectIdentifier(sponsor)])
        // Set twice: still once in the list.
        try members[0].setObject(nil, forKey: "club")
        try members[0].setObject(club, forKey: "club")
        #expect(club.objects(forKey: "members").count == 3)
    }

    @Test func validationCallsTheHooksOfSubclassesOnly() throws {
        let coordinator = try Self.coordinator(registering: CheckedPlayer.self)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        let player = try #require(try context.insert(entityName: "Player") as? CheckedPlayer)
        try player.setObject(team, forKey: "team")
        try player.setValue(.string("Nobody"), forKey: "lastName")
        do {
            try context.save()
            Issue.record("the subclass's hook did not reject the value")
        } catch let error as StoreError {
            #expect(error.propertyName == "lastName")
        }
        #expect(Set(player.checkedKeys) == ["lastName", "team"] && player.insertChecks == 1)
        try player.setValue(.string("Somebody"), forKey: "lastName")
        try context.save()
        #expect(player.insertChecks == 2 && !player.isInserted && !team.isInserted)
        #expect(type(of: team) == ManagedObject.self)
    }
}
