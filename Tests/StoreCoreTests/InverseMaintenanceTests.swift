import Foundation
import Testing

@testable import StoreCore

/// Changing one side of a relationship changes the other side, whichever side is changed and
/// however (set, replace, nil; add, remove, replace the list), for objects of sub-entities whose
/// relationships are inherited: the inverses come from the compiled layouts.
@Suite struct InverseMaintenanceTests {
    /// Inheritance on both sides of a one-to-many, a one-to-one and a reflexive many-to-many.
    static func kennel() throws -> ObjectModel {
        try ObjectModel {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true)
                Relationship("favourite", to: "Pet", inverse: "favouriteOf")
            }
            Entity("Breeder", parent: "Owner") {
                Attribute("licence", .string)
            }
            Entity("Pet", abstract: true) {
                Attribute("name", .string)
                Relationship("owner", to: "Owner", inverse: "pets")
                Relationship("favouriteOf", to: "Owner", inverse: "favourite")
                Relationship("friends", to: "Pet", inverse: "friends", toMany: true)
            }
            Entity("Dog", parent: "Pet") {
                Attribute("breed", .string)
            }
            Entity("Cat", parent: "Pet") {
                Attribute("indoor", .boolean)
            }
        }
    }

    static func ids(_ objects: [ManagedObject]) -> Set<ObjectIdentifier> { Set(objects.map(ObjectIdentifier.init)) }

    @Test func settingReplacingAndClearingAToOneChangesTheToManySide() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.kennel()))
        let ada = try context.insert(entityName: "Breeder")
        let bob = try context.insert(entityName: "Owner")
        let rex = try context.insert(entityName: "Dog")
        let tom = try context.insert(entityName: "Cat")
        #expect(ada.layout.knowsInverses && rex.layout.knowsInverses)
        try rex.setObject(ada, forKey: "owner")
        try tom.setObject(ada, forKey: "owner")
        #expect(Self.ids(ada.objects(forKey: "pets")) == Self.ids([rex, tom]))
        try rex.setObject(bob, forKey: "owner")
        #expect(Self.ids(ada.objects(forKey: "pets")) == Self.ids([tom]))
        #expect(Self.ids(bob.objects(forKey: "pets")) == Self.ids([rex]))
        try rex.setObject(bob, forKey: "owner")
        #expect(bob.objects(forKey: "pets").count == 1, "setting the same destination again changes nothing")
        try tom.setObject(nil, forKey: "owner")
        #expect(ada.objects(forKey: "pets").isEmpty)
        #expect(tom.object(forKey: "owner") == nil)
    }

    @Test func addingRemovingAndReplacingOnTheToManySideChangesTheToOnes() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.kennel()))
        let ada = try context.insert(entityName: "Breeder")
        let bob = try context.insert(entityName: "Owner")
        let rex = try context.insert(entityName: "Dog")
        let tom = try context.insert(entityName: "Cat")
        try ada.addObject(rex, toKey: "pets")
        #expect(rex.object(forKey: "owner") === ada)
        // Moving a pet to another owner takes it from the first one.
        try bob.addObject(rex, toKey: "pets")
        #expect(rex.object(forKey: "owner") === bob)
        #expect(ada.objects(forKey: "pets").isEmpty)
        try bob.removeObject(rex, fromKey: "pets")
        #expect(rex.object(forKey: "owner") == nil)
        #expect(bob.objects(forKey: "pets").isEmpty)
        try ada.setObjects([rex, tom], forKey: "pets")
        #expect(rex.object(forKey: "owner") === ada && tom.object(forKey: "owner") === ada)
        try ada.setObjects([tom], forKey: "pets")
        #expect(rex.object(forKey: "owner") == nil)
        #expect(tom.object(forKey: "owner") === ada)
        try bob.setObjects([tom, rex], forKey: "pets")
        #expect(ada.objects(forKey: "pets").isEmpty)
        #expect(rex.object(forKey: "owner") === bob && tom.object(forKey: "owner") === bob)
    }

    @Test func aOneToOneMovesFromItsPreviousHolderOnEitherSide() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.kennel()))
        let ada = try context.insert(entityName: "Breeder")
        let bob = try context.insert(entityName: "Owner")
        let rex = try context.insert(entityName: "Dog")
        let tom = try context.insert(entityName: "Cat")
        try ada.setObject(rex, forKey: "favourite")
        #expect(rex.object(forKey: "favouriteOf") === ada)
        try bob.setObject(rex, forKey: "favourite")
        #expect(rex.object(forKey: "favouriteOf") === bob)
        #expect(ada.object(forKey: "favourite") == nil)
        try bob.setObject(tom, forKey: "favourite")
        #expect(rex.object(forKey: "favouriteOf") == nil)
        #expect(tom.object(forKey: "favouriteOf") === bob)
        try tom.setObject(ada, forKey: "favouriteOf")
        #expect(ada.object(forKey: "favourite") === tom)
        #expect(bob.object(forKey: "favourite") == nil)
        try ada.setObject(nil, forKey: "favourite")
        #expect(tom.object(forKey: "favouriteOf") == nil)
    }

    @Test func aReflexiveManyToManyKeepsBothSides() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.kennel()))
        let rex = try context.insert(entityName: "Dog")
        let tom = try context.insert(entityName: "Cat")
        let fido = try context.insert(entityName: "Dog")
        try rex.addObject(tom, toKey: "friends")
        try rex.addObject(fido, toKey: "friends")
        #expect(Self.ids(tom.objects(forKey: "friends")) == Self.ids([rex]))
        #expect(Self.ids(fido.objects(forKey: "friends")) == Self.ids([rex]))
        try tom.removeObject(rex, fromKey: "friends")
        #expect(Self.ids(rex.objects(forKey: "friends")) == Self.ids([fido]))
        try fido.setObjects([tom], forKey: "friends")
        #expect(rex.objects(forKey: "friends").isEmpty)
        #expect(Self.ids(tom.objects(forKey: "friends")) == Self.ids([fido]))
    }

    @Test func aDestinationOfTheWrongEntityIsRefusedOnEitherSide() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.kennel()))
        let ada = try context.insert(entityName: "Breeder")
        let bob = try context.insert(entityName: "Owner")
        let rex = try context.insert(entityName: "Dog")
        #expect(throws: StoreError.self) { try rex.setObject(rex, forKey: "owner") }
        #expect(throws: StoreError.self) { try ada.addObject(bob, toKey: "pets") }
        #expect(throws: StoreError.self) { try ada.addObject(rex, toKey: "favourite") }
        #expect(throws: StoreError.self) { try rex.setObject(ada, forKey: "friends") }
        #expect(ada.objects(forKey: "pets").isEmpty)
        #expect(rex.object(forKey: "owner") == nil)
    }
}
