import Foundation
import Testing

@testable import StoreCore

/// An `ObjectIDTable` of whole rows (where `RowCache` keeps the rows it cannot keep compact)
/// against a dictionary doing the same operations: inserting, replacing, changing in place, removing (with the rows after a removed
/// one shifted back), growing, and removing by a condition.
@Suite struct RowCacheTableTests {
    private typealias Row = PersistentStoreCoordinator.CachedRow
    private typealias RowTable = ObjectIDTable<Row>

    private static func id(_ key: Int64, store: String = "S", entity: String = "Person") -> ObjectID {
        ObjectID(storeIdentifier: store, entityName: entity, reference: .int(key))
    }

    private static func row(_ id: ObjectID, version: Int64 = 1, holders: Int = 1) -> Row {
        Row(node: StoreNode(objectID: id, attributes: ["name": .string("row \(id)")], version: version), holders: holders)
    }

    /// Every ID of `expected` is found with its holders and version, and nothing else is.
    private static func expectSame(_ cache: RowTable, _ expected: [ObjectID: (version: Int64, holders: Int)], _ absent: [ObjectID]) {
        #expect(cache.count == expected.count)
        for (id, wanted) in expected {
            let row = cache[id]
            #expect(row?.node.objectID == id)
            #expect(row?.node.version == wanted.version, "\(id)")
            #expect(row?.holders == wanted.holders, "\(id)")
        }
        for id in absent { #expect(cache[id] == nil, "\(id) was removed") }
    }

    @Test func rowsAreFoundReplacedChangedAndRemovedAsInADictionary() {
        var cache = RowTable()
        var expected: [ObjectID: (version: Int64, holders: Int)] = [:]
        var removed: [ObjectID] = []
        // Enough rows to grow the table several times, keys of two entities and two stores
        // (the same key in each), and string keys (boxed references).
        var ids: [ObjectID] = (1...3_000).map { Self.id($0) } + (1...500).map { Self.id($0, entity: "Team") }
        ids += (1...500).map { Self.id($0, store: "T") }
        ids += (1...200).map { ObjectID(storeIdentifier: "S", entityName: "Person", reference: .string("k\($0)")) }
        for id in ids {
            #expect(cache.updateValue(Self.row(id)) == nil)
            expected[id] = (1, 1)
        }
        Self.expectSame(cache, expected, [])
        // Replacing returns the earlier row; changing through an index or the ID's subscript
        // changes the row in place.
        for id in ids where id.hashValue % 3 == 0 {
            #expect(cache.updateValue(Self.row(id, version: 2, holders: 5))?.holders == 1)
            expected[id] = (2, 5)
        }
        for id in ids where id.hashValue % 5 == 0 {
            guard let index = cache.index(forKey: id) else {
                Issue.record("\(id) not found")
                continue
            }
            cache[index].holders += 10
            cache[index].node.version += 100
            expected[id]?.holders += 10
            expected[id]?.version += 100
        }
        for id in ids where id.hashValue % 7 == 0 {
            cache[id]?.holders -= 1
            expected[id]?.holders -= 1
        }
        Self.expectSame(cache, expected, [])
        // Removing every other row by each of the three ways, then looking every row up: rows
        // that probed past a removed one are still found.
        for (position, id) in ids.enumerated() where position % 2 == 0 {
            switch position % 3 {
            case 0: cache[id] = nil
            case 1:
                if let index = cache.index(forKey: id) { cache.remove(at: index) }
            default: cache.removeAll { $0.node.objectID == id }
            }
            expected[id] = nil
            removed.append(id)
        }
        Self.expectSame(cache, expected, removed)
        // Setting through the ID's subscript inserts a row that is not there.
        for id in removed.prefix(100) {
            cache[id] = Self.row(id, version: 9, holders: 3)
            expected[id] = (9, 3)
        }
        Self.expectSame(cache, expected, Array(removed.dropFirst(100)))
        // Removing by a condition keeps the others.
        cache.removeAll { $0.node.objectID.storeIdentifier == "T" }
        for id in ids where id.storeIdentifier == "T" { expected[id] = nil }
        Self.expectSame(cache, expected, ids.filter { $0.storeIdentifier == "T" })
        cache.removeAll { _ in true }
        #expect(cache.isEmpty && cache[ids[1]] == nil)
    }

    @Test func aCopySharesNothingItChanges() {
        var original = RowTable()
        for key in Int64(1)...100 { original.updateValue(Self.row(Self.id(key))) }
        var copy = original
        copy[Self.id(1)]?.holders = 7
        copy[Self.id(2)] = nil
        if let index = copy.index(forKey: Self.id(3)) { copy.remove(at: index) }
        for key in Int64(101)...300 { copy.updateValue(Self.row(Self.id(key))) }
        #expect(original.count == 100 && copy.count == 298)
        #expect(original[Self.id(1)]?.holders == 1 && copy[Self.id(1)]?.holders == 7)
        #expect(original[Self.id(2)] != nil && original[Self.id(3)] != nil && original[Self.id(101)] == nil)
        // And the other way round: the original changed, the copy not.
        let snapshot = original
        if let index = original.index(forKey: Self.id(4)) { original[index].holders = 9 }
        #expect(snapshot[Self.id(4)]?.holders == 1 && original[Self.id(4)]?.holders == 9)
    }

    @Test func reservingCapacityKeepsTheRows() {
        var cache = RowTable()
        #expect(cache.index(forKey: Self.id(1)) == nil, "an empty table finds nothing")
        cache.reserveCapacity(10)
        for key in Int64(1)...10 { cache.updateValue(Self.row(Self.id(key))) }
        cache.reserveCapacity(100_000)
        #expect(cache.count == 10)
        for key in Int64(1)...10 { #expect(cache[Self.id(key)]?.node.objectID == Self.id(key)) }
        #expect(cache[Self.id(11)] == nil)
    }
}
