import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// An object keeps its flags, its row version and its registration order in one word, and its
/// extras or its `@Model` instance in another (what a fault's heap block holds is checked in
/// SQLiteStoreTests' `SingleFaultTests`): each is read and written without disturbing the
/// others, a version too large for its bits goes to the extras, and a context that runs out of
/// orders numbers its objects again in the same order.
@Suite struct ManagedObjectFlagsTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer32)
                Relationship("address", to: "Address", inverse: "person")
            }
            Entity("Address") {
                Attribute("city", .string)
                Relationship("person", to: "Person", inverse: "address")
            }
        }
    }

    /// A context of a coordinator with no store (its objects are never filled).
    static func storelessContext() throws -> ManagedObjectContext {
        ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try model()))
    }

    /// A context of a coordinator with one in-memory store.
    static func inMemoryContext() throws -> ManagedObjectContext {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        try coordinator.addPersistentStore(type: "InMemory")
        return ManagedObjectContext(coordinator: coordinator)
    }

    static func permanentID(_ key: Int64, of entity: String = "Person") -> ObjectID {
        ObjectID(storeIdentifier: "FaultSizeTests", entityName: entity, reference: .int(key))
    }

    @Test func theFlagsAndTheRegistrationOrderDoNotDisturbEachOther() throws {
        let context = try Self.storelessContext()
        let first = context.object(with: Self.permanentID(1))
        let second = context.object(with: Self.permanentID(2))
        let inserted = try context.insert(entityName: "Address")
        #expect(first.isFault && second.isFault && !inserted.isFault)
        #expect(!first.isInserted && !first.isDeleted && !first.holdsRow && !first.fillsFromCommitted)
        #expect(inserted.isInserted && !inserted.isDeleted)
        #expect(first.registrationOrder < second.registrationOrder)
        #expect(second.registrationOrder < inserted.registrationOrder)

        let order = ManagedObject.registrationOrderLimit - 12_345
        first.registrationOrder = order
        #expect(first.registrationOrder == order)
        #expect(first.isFault && !first.isInserted && !first.isDeleted, "the order leaves the flags alone")
        first.isDeleted = true
        first.holdsRow = true
        first.isFault = false
        #expect(first.registrationOrder == order, "the flags leave the order alone")
        #expect(first.isDeleted && first.holdsRow && !first.isFault && !first.isInserted && !first.fillsFromCommitted)
        first.fillsFromCommitted = true
        first.isDeleted = false
        #expect(first.fillsFromCommitted && !first.isDeleted && first.holdsRow)
        #expect(first.registrationOrder == order)
        first.version = 7
        #expect(first.version == 7 && first.registrationOrder == order && first.fillsFromCommitted && first.holdsRow)
    }

    @Test(arguments: [0, 1, 1 << 20 - 2, 1 << 20 - 1, 1 << 20, 1 << 40, .max, -1, .min] as [Int64])
    func everyVersionIsKeptExactly(_ version: Int64) throws {
        let context = try Self.storelessContext()
        let object = context.object(with: Self.permanentID(1))
        let order = object.registrationOrder
        object.isDeleted = true
        object.version = version
        #expect(object.version == version)
        #expect(object.registrationOrder == order && object.isDeleted && object.isFault, "the version leaves the rest alone")
        object.version = 3
        #expect(object.version == 3, "a small version after a large one is read from the word again")
        object.version = version
        object.registrationOrder = order + 1
        object.isDeleted = false
        #expect(object.version == version && object.registrationOrder == order + 1 && !object.isDeleted)
    }

    @Test func theExtrasTakeOverTheModelInstance() throws {
        let context = try Self.storelessContext()
        let person = try context.insert(entityName: "Person")
        let address = try context.insert(entityName: "Address")
        let instance = NSObject()
        person.linkModelInstance(instance)
        #expect(person.modelInstance === instance)
        person.version = 1 << 30  // made in the extras
        try person.setValue(.string("Ada"), forKey: "name")
        try person.setObject(address, forKey: "address")
        #expect(person.modelInstance === instance, "kept when the extras are made")
        #expect(person.version == 1 << 30 && person.toOneObjects.first??.objectID == address.objectID)
        #expect(address.value(forKey: "person") == .objectID(person.objectID))
        person.unlinkModelInstance(Unmanaged.passUnretained(instance).toOpaque())
        #expect(person.modelInstance == nil)
        #expect(person.version == 1 << 30 && person.toOneObjects.count == 1, "the extras stay")
    }

    @Test func aContextThatRunsOutOfOrdersNumbersItsObjectsAgainInTheSameOrder() throws {
        let context = try Self.inMemoryContext()
        try context.insert(entityName: "Address").setValue(.string("first"), forKey: "city")
        context.nextRegistrationOrder = ManagedObject.registrationOrderLimit - 2
        try context.insert(entityName: "Address").setValue(.string("second"), forKey: "city")
        try context.insert(entityName: "Address").setValue(.string("third"), forKey: "city")
        try context.insert(entityName: "Address").setValue(.string("fourth"), forKey: "city")
        #expect(context.nextRegistrationOrder == 4, "the four objects numbered 0 to 3 again")
        let fetched = try context.fetch(FetchRequest(entityName: "Address"))
        #expect(fetched.map { $0.value(forKey: "city", as: String.self) } == ["first", "second", "third", "fourth"])
        #expect(fetched.map(\.registrationOrder) == [0, 1, 2, 3])
    }

    @Test func unsavedInsertsAreFetchedInTheOrderTheyWereInserted() throws {
        // Unsaved inserts come back from a fetch in the order they were inserted.
        let context = try Self.inMemoryContext()
        let cities = (0..<20).map { "city \(19 - $0)" }
        for city in cities { try context.insert(entityName: "Address").setValue(.string(city), forKey: "city") }
        let fetched = try context.fetch(FetchRequest(entityName: "Address"))
        #expect(fetched.map { $0.value(forKey: "city", as: String.self) } == cities)
        try context.save()
        #expect(Set(try context.fetch(FetchRequest(entityName: "Address")).compactMap { $0.value(forKey: "city", as: String.self) }) == Set(cities))
    }
}
