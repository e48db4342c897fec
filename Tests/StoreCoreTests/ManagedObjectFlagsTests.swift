import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// An object keeps its flags and its registration order in one word (what a fault's heap block
/// holds is checked in SQLiteStoreTests' `SingleFaultTests`): each is read and written without
/// disturbing the others.
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

    static func permanentID(_ key: Int64, of entity: String = "Person") -> ObjectID {
        ObjectID(storeIdentifier: "FaultSizeTests", entityName: entity, reference: .int(key))
    }

    @Test func theFlagsAndTheRegistrationOrderDoNotDisturbEachOther() throws {
        let context = ManagedObjectContext(coordinator: PersistentStoreCoordinator(model: try Self.model()))
        let first = context.object(with: Self.permanentID(1))
        let second = context.object(with: Self.permanentID(2))
        let inserted = try context.insert(entityName: "Address")
        #expect(first.isFault && second.isFault && !inserted.isFault)
        #expect(!first.isInserted && !first.isDeleted && !first.holdsRow && !first.fillsFromCommitted)
        #expect(inserted.isInserted && !inserted.isDeleted)
        #expect(first.registrationOrder < second.registrationOrder)
        #expect(second.registrationOrder < inserted.registrationOrder)

        let order = (1 << 55) + 12_345
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
    }

    @Test func unsavedInsertsAreFetchedInTheOrderTheyWereInserted() throws {
        // Unsaved inserts come back from a fetch in the order they were inserted.
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try Self.model(), registry: registry)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        let cities = (0..<20).map { "city \(19 - $0)" }
        for city in cities { try context.insert(entityName: "Address").setValue(.string(city), forKey: "city") }
        let fetched = try context.fetch(FetchRequest(entityName: "Address"))
        #expect(fetched.map { $0.value(forKey: "city", as: String.self) } == cities)
        try context.save()
        #expect(Set(try context.fetch(FetchRequest(entityName: "Address")).compactMap { $0.value(forKey: "city", as: String.self) }) == Set(cities))
    }
}
