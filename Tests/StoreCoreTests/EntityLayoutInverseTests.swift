import Foundation
import Testing

@testable import StoreCore

/// A compiled layout carries each relationship's inverse as the model resolves it, so setting a
/// to-one finds the inverse without looking it up by name; what setting a to-one does to the
/// other side is unchanged.
@Suite struct EntityLayoutInverseTests {
    /// Inheritance on both sides, a one-to-one, a to-one without an inverse.
    static func pets() throws -> ObjectModel {
        try ObjectModel {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true)
                Relationship("favourite", to: "Pet", inverse: "favouriteOf")
            }
            Entity("Pet", abstract: true) {
                Attribute("name", .string)
                Relationship("owner", to: "Owner", inverse: "pets")
                Relationship("favouriteOf", to: "Owner", inverse: "favourite")
                Relationship("vet", to: "Owner")
            }
            Entity("Dog", parent: "Pet") {
                Attribute("breed", .string)
            }
        }
    }

    @Test(arguments: ["Owner", "Pet", "Dog"])
    func theLayoutKnowsWhatTheModelResolves(entity: String) throws {
        let model = try Self.pets()
        let layout = try #require(model.layout(ofEntity: entity))
        #expect(layout.knowsInverses)
        #expect(!layout.toOnes.isEmpty)
        for (index, toOne) in layout.toOnes.enumerated() {
            let slot = layout.attributeCount + index
            let resolved = layout.inverse(ofToOneSlot: slot) {
                Issue.record("a compiled layout asked the model")
                return nil
            }
            #expect(resolved == model.inverse(of: toOne), "\(entity).\(toOne.name)")
        }
        for (slot, toMany) in layout.toManys.enumerated() {
            #expect(layout.toManyInverses[slot] == model.inverse(of: toMany), "\(entity).\(toMany.name)")
        }
        let dog = try #require(model.layout(ofEntity: "Dog"))
        let ownerSlot = try #require(dog.toOneSlot(of: "owner"))
        #expect(dog.inverse(ofToOneSlot: ownerSlot) { nil }?.name == "pets")
        let vetSlot = try #require(dog.toOneSlot(of: "vet"))
        #expect(dog.inverse(ofToOneSlot: vetSlot) { nil } == nil, "no inverse declared")
    }

    @Test func aLayoutMadeFromAnEntityAloneAsksTheModel() throws {
        let model = try Self.pets()
        let entity = try #require(model.entity(named: "Owner"))
        let layout = EntityLayout(entity: entity, attributes: entity.attributes, relationships: entity.relationships)
        #expect(!layout.knowsInverses)
        let slot = try #require(layout.toOneSlot(of: "favourite"))
        #expect(layout.inverse(ofToOneSlot: slot) { model.inverse(of: layout.toOnes[0]) }?.name == "favouriteOf")
    }

    @Test func settingAToOneUpdatesTheInverseThroughTheLayout() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.pets()))
        let ada = try context.insert(entityName: "Owner")
        let bob = try context.insert(entityName: "Owner")
        let rex = try context.insert(entityName: "Dog")
        let fido = try context.insert(entityName: "Dog")
        try rex.setObject(ada, forKey: "owner")
        try fido.setObject(ada, forKey: "owner")
        #expect(ada.objects(forKey: "pets").map(ObjectIdentifier.init) == [rex, fido].map(ObjectIdentifier.init))
        try rex.setObject(bob, forKey: "owner")
        #expect(ada.objects(forKey: "pets").map(ObjectIdentifier.init) == [ObjectIdentifier(fido)])
        #expect(bob.objects(forKey: "pets").map(ObjectIdentifier.init) == [ObjectIdentifier(rex)])
        // One-to-one: the previous holder loses it.
        try rex.setObject(ada, forKey: "favouriteOf")
        #expect(ada.object(forKey: "favourite") === rex)
        try fido.setObject(ada, forKey: "favouriteOf")
        #expect(ada.object(forKey: "favourite") === fido)
        #expect(rex.object(forKey: "favouriteOf") == nil)
        try fido.setObject(nil, forKey: "favouriteOf")
        #expect(ada.object(forKey: "favourite") == nil)
        // No inverse: only this side changes.
        try rex.setObject(bob, forKey: "vet")
        #expect(rex.object(forKey: "vet") === bob)
        #expect(bob.objects(forKey: "pets").map(ObjectIdentifier.init) == [ObjectIdentifier(rex)])
    }
}
