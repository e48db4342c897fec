import Foundation
import Testing

@testable import StoreCore

/// `ObjectIDTable`'s dense segments (IDs with integer keys, by scope): keys far apart stay in the
/// hashed part, so memory follows the number of elements and not the keys; a segment that grows
/// takes in the hashed elements it then covers; a segment emptied is dropped; a batch reserved
/// ahead gets one segment of exactly its range. Each against a dictionary doing the same.
@Suite struct ObjectIDTableSegmentTests {
    private typealias Row = PersistentStoreCoordinator.CachedRow
    private typealias RowTable = ObjectIDTable<Row>

    private static func id(_ key: Int64, store: String = "Segments", entity: String = "Person") -> ObjectID {
        ObjectID(storeIdentifier: store, entityName: entity, reference: .int(key))
    }

    private static func row(_ id: ObjectID, holders: Int = 1) -> Row {
        Row(node: StoreNode(objectID: id, attributes: [:], version: 1), holders: holders)
    }

    /// The table holds exactly `expected` (by holders), and none of `absent`; iterating it
    /// visits each element once.
    private static func expectSame(_ table: RowTable, _ expected: [ObjectID: Int], absent: [ObjectID] = []) {
        #expect(table.count == expected.count)
        for (id, holders) in expected { #expect(table[id]?.holders == holders, "\(id)") }
        for id in absent { #expect(table[id] == nil, "\(id) is not in the table") }
        var seen: [ObjectID: Int] = [:]
        for row in table.values { seen[row.node.objectID, default: 0] += 1 }
        #expect(seen.count == expected.count && seen.values.allSatisfy { $0 == 1 })
    }

    @Test func keysFarApartTakeMemoryInProportionToTheirNumber() {
        var table = RowTable()
        let keys: [Int64] = [1, 2, 1 << 20, 1 << 40, 1 << 62, .max, .min, -5, 0, 3]
        var expected: [ObjectID: Int] = [:]
        for key in keys {
            table.updateValue(Self.row(Self.id(key)))
            expected[Self.id(key)] = 1
        }
        Self.expectSame(table, expected, absent: [Self.id(4), Self.id(1 << 20 + 1), Self.id(.max - 1)])
        let slots = table.slotCount
        #expect(slots.segments + slots.buckets <= 256, "\(slots) slots for \(keys.count) keys")
        // A reserved batch spread over the whole key space is hashed too.
        var spread = RowTable()
        let wide = (0..<1_000).map { Self.id(Int64($0) * 1_000_003) }
        spread.reserveCapacity(forKeysOf: wide) { $0 }
        for id in wide { spread.updateValue(Self.row(id)) }
        #expect(spread.count == 1_000 && wide.allSatisfy { spread[$0] != nil })
        #expect(spread.slotCount.segments <= 4 * 1_000 + 64)
    }

    @Test func keysAtTheEndsOfTheKeySpaceStartSegmentsAndGrowThem() {
        // A store file may name any 64-bit key: a table whose first key is within a few of the
        // largest or smallest one makes its segment, grows it towards the other keys, and
        // keeps every key found (arithmetic past the ends of the key space would trap).
        for first: Int64 in [.max, .max - 3, .max - 15, .max - 16, .min, .min + 3] {
            var table = RowTable()
            var expected: [ObjectID: Int] = [:]
            let keys: [Int64] = [first, first == .max ? .max - 1 : first &+ 1, .max, .max - 20, .min, .min + 40, 0, first &- 1]
            for key in keys {
                table.updateValue(Self.row(Self.id(key)))
                expected[Self.id(key)] = 1
            }
            for key in Int64(1)...50 {
                table.updateValue(Self.row(Self.id(.max - key)))
                expected[Self.id(.max - key)] = 1
                table.updateValue(Self.row(Self.id(.min + key)))
                expected[Self.id(.min + key)] = 1
            }
            Self.expectSame(table, expected)
            var reserved = RowTable()
            let ends = [Self.id(.max), Self.id(.max - 2), Self.id(.min), Self.id(.min + 2)]
            reserved.reserveCapacity(forKeysOf: ends) { $0 }
            for id in ends { reserved.updateValue(Self.row(id)) }
            #expect(ends.allSatisfy { reserved[$0] != nil } && reserved.count == 4, "first key \(first)")
        }
    }

    @Test func updateOrInsertChangesAnElementInPlaceOrPutsTheNewOneIn() {
        // Segment slots (keys 1...40), hashed keys far apart, and boxed references: each key's
        // first update inserts what `make` gives, every later one changes it in place.
        var table = RowTable()
        var expected: [ObjectID: Int] = [:]
        let ids = (1...40).map { Self.id(Int64($0)) } + [Self.id(1 << 40), Self.id(-(1 << 50))]
            + ["a", "b"].map { ObjectID(storeIdentifier: "Segments", entityName: "Person", reference: .string($0)) }
        for round in 1...3 {
            for id in ids {
                var made = 0
                table.update(id, orInsert: {
                    made += 1
                    return Self.row(id, holders: 1)
                }) { $0.holders += 1 }
                #expect(made == (round == 1 ? 1 : 0), "\(id), round \(round)")
                expected[id] = round
            }
        }
        Self.expectSame(table, expected, absent: [Self.id(41), Self.id(0)])
        // A copy of the table is not changed through the other.
        let copy = table
        table.update(Self.id(1), orInsert: { Self.row(Self.id(1)) }) { $0.holders = 100 }
        #expect(copy[Self.id(1)]?.holders == 3 && table[Self.id(1)]?.holders == 100)
    }

    @Test func aSegmentThatGrowsTakesInTheHashedElementsItCovers() {
        var table = RowTable()
        var expected: [ObjectID: Int] = [:]
        // 500 goes to the hashed part (the first segment is 1...16), then the keys up to 600
        // make the segment grow over it, downwards too.
        for key: Int64 in [1, 500] {
            table.updateValue(Self.row(Self.id(key), holders: Int(key)))
            expected[Self.id(key)] = Int(key)
        }
        for key in Int64(2)...600 where key != 500 {
            table.updateValue(Self.row(Self.id(key), holders: Int(key)))
            expected[Self.id(key)] = Int(key)
        }
        for key in stride(from: Int64(-300), through: 0, by: 1) {
            table.updateValue(Self.row(Self.id(key), holders: 7))
            expected[Self.id(key)] = 7
        }
        Self.expectSame(table, expected, absent: [Self.id(601), Self.id(-301)])
        #expect(table.slotCount.buckets == 0 || table.slotCount.segments >= 901, "\(table.slotCount)")
        // Changed in place through an index, and replaced.
        if let index = table.index(forKey: Self.id(500)) { table[index].holders += 1 }
        expected[Self.id(500)] = 501
        #expect(table.updateValue(Self.row(Self.id(10), holders: 99))?.holders == 10)
        expected[Self.id(10)] = 99
        Self.expectSame(table, expected)
    }

    @Test func aReservedBatchGetsOneSegmentOfItsRangeAndSegmentsEmptiedAreDropped() {
        var table = RowTable()
        // Two scopes, keys in no order, a few absent from the range.
        var ids = (1...5_000).map { Self.id(Int64($0)) } + (101...400).map { Self.id(Int64($0), entity: "Team") }
        ids.removeAll { $0 == Self.id(77) || $0 == Self.id(4_000) }
        ids.shuffle()
        table.reserveCapacity(forKeysOf: ids) { $0 }
        #expect(table.slotCount == (5_000 + 300, 0), "one segment per scope, of exactly its range")
        var expected: [ObjectID: Int] = [:]
        for id in ids {
            table.updateValue(Self.row(id))
            expected[id] = 1
        }
        #expect(table.slotCount == (5_000 + 300, 0), "nothing grew while the batch went in")
        Self.expectSame(table, expected, absent: [Self.id(77), Self.id(4_000), Self.id(5_001), Self.id(100, entity: "Team")])
        // Reserving the same batch again changes nothing.
        table.reserveCapacity(forKeysOf: ids) { $0 }
        Self.expectSame(table, expected)
        // Emptied by every way of removing, the segments go.
        for (position, id) in ids.enumerated() {
            switch position % 3 {
            case 0: table[id] = nil
            case 1:
                if let index = table.index(forKey: id) { table.remove(at: index) }
            default: #expect(table.removeValue(forKey: id) != nil)
            }
        }
        #expect(table.isEmpty && table.slotCount.segments == 0)
        // And come back.
        table.updateValue(Self.row(Self.id(3)))
        #expect(table[Self.id(3)] != nil && table.count == 1)
    }

    @Test func randomOperationsAgreeWithADictionary() {
        var generator = SystemRandomNumberGenerator()
        var table = RowTable()
        var expected: [ObjectID: Int] = [:]
        // Dense runs, keys far apart, two scopes and boxed references, inserted, replaced and
        // removed at random, with copies taken along the way.
        let pool: [ObjectID] =
            (1...2_000).map { Self.id(Int64($0)) } + (1...200).map { Self.id(Int64($0) * 97_531, entity: "Team") }
            + (1...100).map { ObjectID(storeIdentifier: "Segments", entityName: "Person", reference: .string("k\($0)")) }
        var copies: [(RowTable, [ObjectID: Int])] = []
        for step in 0..<20_000 {
            let id = pool.randomElement(using: &generator) ?? pool[0]
            switch Int.random(in: 0..<4, using: &generator) {
            case 0, 1:
                table.updateValue(Self.row(id, holders: step))
                expected[id] = step
            case 2:
                #expect(table.removeValue(forKey: id)?.holders == expected.removeValue(forKey: id))
            default:
                table[id]?.holders += 1
                if expected[id] != nil { expected[id]? += 1 }
            }
            if step % 5_000 == 0 { copies.append((table, expected)) }
        }
        Self.expectSame(table, expected)
        for (copy, then) in copies { Self.expectSame(copy, then) }
        table.removeAll { $0.holders % 2 == 0 }
        Self.expectSame(table, expected.filter { $0.value % 2 != 0 })
    }
}
