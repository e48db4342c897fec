import Foundation
import Testing

@testable import StoreCore

/// A context's uniquing table (`ObjectRegistry`) against a dictionary doing the same
/// operations: registering, replacing, unregistering (with the objects after a removed one
/// shifted back), growing, iterating while changing, and re-keying an object whose ID changes.
@Suite struct ObjectRegistryTests {
    private static func layout() throws -> EntityLayout {
        try #require(try FetchedFaultTests.model().layout(ofEntity: "Person"))
    }

    private static func objects(_ keys: ClosedRange<Int64>, store: String = "S") throws -> [ManagedObject] {
        let layout = try layout()
        return keys.map { ManagedObject(layout: layout, objectID: ObjectID(storeIdentifier: store, entityName: "Person", reference: .int($0))) }
    }

    @Test func objectsAreFoundReplacedAndRemovedAsInADictionary() throws {
        var registry = ObjectRegistry()
        var expected: [ObjectID: ManagedObject] = [:]
        let objects = try Self.objects(1...3_000) + Self.objects(1...500, store: "T")
        for object in objects {
            registry[object.objectID] = object
            expected[object.objectID] = object
        }
        #expect(registry.count == expected.count)
        for (id, object) in expected { #expect(registry[id] === object) }
        // Replacing an object with another of the same ID returns the first.
        let replacement = try Self.objects(7...7)[0]
        #expect(registry.updateValue(replacement) === expected[replacement.objectID])
        expected[replacement.objectID] = replacement
        // Unregistering every third object, by each of the two ways, then finding every other.
        for (position, object) in objects.enumerated() where position % 3 == 0 {
            if position % 2 == 0 {
                registry[object.objectID] = nil
            } else {
                #expect(registry.removeValue(forKey: object.objectID) != nil)
            }
            expected[object.objectID] = nil
        }
        #expect(registry.count == expected.count)
        for (id, object) in expected { #expect(registry[id] === object, "\(id)") }
        for object in objects.enumerated().filter({ $0.offset % 3 == 0 }).map(\.element) {
            #expect(registry[object.objectID] == nil)
            #expect(registry.removeValue(forKey: object.objectID) == nil)
        }
        // The values are every registered object once.
        #expect(Set(registry.values.map(ObjectIdentifier.init)) == Set(expected.values.map(ObjectIdentifier.init)))
    }

    @Test func iteratingWhileUnregisteringSeesTheObjectsOfTheStart() throws {
        var registry = ObjectRegistry()
        let objects = try Self.objects(1...100)
        for object in objects { registry.updateValue(object) }
        var seen = 0
        for object in registry.values {
            registry[object.objectID] = nil
            seen += 1
        }
        #expect(seen == 100 && registry.count == 0)
    }

    @Test func anObjectReKeyedIsFoundByItsNewIDOnly() throws {
        var registry = ObjectRegistry()
        let objects = try Self.objects(1...50)
        for object in objects { registry.updateValue(object) }
        let moved = objects[10]
        let old = moved.objectID
        // The context's order: out under the old ID, the ID changed, in under the new one.
        #expect(registry.removeValue(forKey: old) === moved)
        moved.objectID = ObjectID(storeIdentifier: "S", entityName: "Person", reference: .int(1_000))
        registry[moved.objectID] = moved
        #expect(registry[moved.objectID] === moved)
        #expect(registry[old] == nil)
        #expect(registry.count == 50)
    }

    /// `rekey` (what a save's permanent IDs use): an object moved from its temporary ID to its
    /// permanent one within the table, the temporary segment dropped once empty, an occupied
    /// new ID taken over, an absent ID refused.
    @Test func rekeyingMovesObjectsToTheirNewIDs() throws {
        let layout = try Self.layout()
        let temporary = (0..<100).map { _ in ManagedObject(layout: layout, objectID: .temporary(entityName: "Person")) }
        let permanent = (1...100).map { ObjectID(storeIdentifier: "S", entityName: "Person", reference: .int(Int64($0))) }
        var registry = ObjectRegistry()
        for object in temporary { registry[object.objectID] = object }
        registry.reserveCapacity(forKeysOf: permanent) { $0 }
        for (object, id) in zip(temporary, permanent) {
            let old = object.objectID
            #expect(registry.rekey(old) { $0.objectID = id })
            #expect(registry[old] == nil && registry[id] === object)
        }
        #expect(registry.count == 100)
        // The permanent keys' segment only: the temporary one went when its last object moved.
        #expect(registry.slotCount.segments >= 100 && registry.slotCount.segments < 200 && registry.slotCount.buckets == 0)
        // Onto an ID another object holds: the moved object takes it.
        let other = try Self.objects(200...200)[0]
        registry[other.objectID] = other
        let target = other.objectID
        #expect(registry.rekey(permanent[0]) { $0.objectID = target })
        #expect(registry[target] === temporary[0] && registry[permanent[0]] == nil && registry.count == 100)
        #expect(!registry.rekey(ObjectID.temporary(entityName: "Person")) { _ in Issue.record("changed an absent element") })
    }
}
