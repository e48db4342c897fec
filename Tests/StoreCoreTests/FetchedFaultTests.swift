import Foundation
import PersistentStores
import Testing

@testable import StoreCore

/// A fault a fetch returned keeps its row and fills from it on first access without its
/// context; one whose context was reset or went away fails to fill, as any fault without a
/// context does.
@Suite struct FetchedFaultTests {
    /// A coordinator on an in-memory store holding two saved persons.
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer32)
            }
        }
    }

    static func savedPersons() throws -> PersistentStoreCoordinator {
        let model = try model()
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: "InMemory")
        let context = ManagedObjectContext(coordinator: coordinator)
        for (name, age) in [("Ada", 36), ("Alan", 41)] {
            let person = try context.insert(entityName: "Person")
            try person.setValue(.string(name), forKey: "name")
            try person.setValue(.int(Int64(age)), forKey: "age")
        }
        try context.save()
        return coordinator
    }

    static func fetchedFaults(in context: ManagedObjectContext) throws -> [ManagedObject] {
        let persons = try context.fetch(FetchRequest(entityName: "Person", sortKeys: [SortKey("name")]))
        #expect(persons.count == 2)
        #expect(persons.allSatisfy { $0.isFault && $0.fillsFromCommitted })
        return persons
    }

    @Test func aFetchedFaultFillsFromItsRow() throws {
        let context = ManagedObjectContext(coordinator: try Self.savedPersons())
        let persons = try Self.fetchedFaults(in: context)
        #expect(persons[0].value(forKey: "name") == .string("Ada"))
        #expect(persons[1].value(forKey: "age") == .int(41))
        #expect(persons.allSatisfy { !$0.isFault && !$0.fillsFromCommitted && $0.holdsRow })
        #expect(persons.allSatisfy { $0.managedObjectContext === context })
    }

    @Test func aFetchedFaultOfAResetContextDoesNotFill() throws {
        let context = ManagedObjectContext(coordinator: try Self.savedPersons())
        let persons = try Self.fetchedFaults(in: context)
        context.reset()
        #expect(persons.allSatisfy { $0.isFault && !$0.fillsFromCommitted && $0.managedObjectContext == nil })
        #expect(persons[0].value(forKey: "name") == .null)
        #expect(throws: StoreError.self) { try persons[1].fireFault() }
    }

    @Test func aFetchedFaultWhoseContextWentAwayDoesNotFill() throws {
        let coordinator = try Self.savedPersons()
        var context: ManagedObjectContext? = ManagedObjectContext(coordinator: coordinator)
        weak let gone = context
        let persons = try Self.fetchedFaults(in: try #require(context))
        context = nil
        #expect(gone == nil)
        #expect(persons.allSatisfy { $0.isFault && !$0.fillsFromCommitted && $0.managedObjectContext == nil })
        #expect(persons[0].value(forKey: "name") == .null)
        #expect(throws: StoreError.self) { try persons[1].fireFault() }
    }
}

/// A node is seven words on 64-bit platforms: the compiler builds a node of that size in place,
/// where it built one of eight words in a temporary and copied it out (docs/benchmarks.md).
/// Both forms keep their meaning in that size.
@Suite struct StoreNodeSizeTests {
    @Test func aNodeIsSevenWords() throws {
        #if arch(x86_64) || arch(arm64)
        #expect(MemoryLayout<StoreNode>.size == 56)
        #endif
        let layout = try #require(try FetchedFaultTests.model().layout(ofEntity: "Person"))
        let id = ObjectID(storeIdentifier: "StoreNodeSizeTests", entityName: "Person", reference: .int(1))
        var slotted = StoreNode(objectID: id, layout: layout, values: [.string("Ada"), .int(36)], toManys: [])
        #expect(slotted.layout === layout && slotted.attributeValue(forKey: "name") == .string("Ada"))
        slotted.attributes["age"] = .int(37)  // through a dictionary view: the dictionary form
        #expect(slotted.layout == nil)
        #expect(slotted.attributes == ["name": .string("Ada"), "age": .int(37)])
        let empty = StoreNode(objectID: id)
        #expect(empty.layout == nil && empty.attributes.isEmpty && empty.toOne.isEmpty && empty.toMany.isEmpty)
        #expect(StoreNode(objectID: id, attributes: ["name": .string("Ada")]).attributeValue(forKey: "name") == .string("Ada"))
    }
}
