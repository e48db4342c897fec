import Foundation
import Testing

@testable import StoreCore

/// The coordinator's row cache (`RowCache`) against a dictionary of whole rows doing the same
/// operations: rows kept compact (integer keys, slotted nodes, no to-many loaded) and whole
/// (to-manys loaded, dictionary nodes, string keys, versions a compact row cannot hold, keys
/// far apart), rows moving from compact to whole, runs growing and emptying, and copies.
@Suite struct RowCacheTests {
    private typealias Expected = [ObjectID: (node: StoreNode, holders: Int)]

    private static let model: ObjectModel? = try? ObjectModel {
        Entity("Person") {
            Attribute("name", .string)
            Attribute("age", .integer64)
            Relationship("team", to: "Team", inverse: "players")
        }
        Entity("Team") {
            Attribute("name", .string)
            Relationship("players", to: "Person", inverse: "team", toMany: true)
        }
    }

    private static func id(_ key: Int64, entity: String = "Person", store: String = "S") -> ObjectID {
        ObjectID(storeIdentifier: store, entityName: entity, reference: .int(key))
    }

    /// A slotted node of `id`'s entity with values that tell versions apart.
    private static func node(_ id: ObjectID, version: Int64, players: [ObjectID]? = nil) throws -> StoreNode {
        let layout = try #require(model?.layout(ofEntity: id.entityName))
        var node = StoreNode(objectID: id, layout: layout, version: version)
        node.setValue(.string("\(id) v\(version)"), forAttribute: "name")
        if let players { node.setDestinations(players, forToMany: "players") }
        return node
    }

    /// Every row of `expected` is found with its node, holders and loaded to-manys, and the
    /// IDs of `absent` are not.
    private static func expectSame(_ cache: RowCache, _ expected: Expected, absent: [ObjectID] = []) {
        #expect(cache.count == expected.count)
        for (id, wanted) in expected {
            let row = cache[id]
            #expect(row?.node == wanted.node, "\(id)")
            #expect(row?.holders == wanted.holders, "\(id)")
            #expect(cache.node(for: id) == wanted.node, "\(id)")
            #expect(cache.version(of: id) == wanted.node.version, "\(id)")
            #expect(cache.destinations(forToMany: "players", of: id) == wanted.node.destinations(forToMany: "players"), "\(id)")
        }
        for id in absent {
            #expect(cache[id] == nil, "\(id) is absent")
            #expect(cache.version(of: id) == nil, "\(id) is absent")
        }
    }

    @Test func fetchedRowsAreKeptCompactAndFoundAsTheyWere() throws {
        var cache = RowCache()
        var expected: Expected = [:]
        let nodes = try (1...1_000).map { try Self.node(Self.id($0), version: 1) }
        cache.reserveCapacity(for: nodes)
        for node in nodes {
            cache.remember(node)
            expected[node.objectID] = (node, 1)
        }
        Self.expectSame(cache, expected, absent: [Self.id(0), Self.id(1_001), Self.id(5, entity: "Team")])
        #expect(cache.counts.compact == 1_000)
        #expect(cache.counts.whole == 0)
        #expect(cache.counts.runSlots == 1_000, "one run covering exactly the fetched keys")
        // The same rows again: a holder more each, nothing replaced; a newer version replaces.
        for node in nodes { cache.remember(node) }
        for id in expected.keys { expected[id]?.holders = 2 }
        let newer = try Self.node(Self.id(7), version: 2)
        cache.remember(newer)
        expected[newer.objectID] = (newer, 3)
        Self.expectSame(cache, expected)
        #expect(MemoryLayout<CompactRow>.size == 16)
    }

    @Test func rowsThatCannotBeCompactAreKeptWhole() throws {
        var cache = RowCache()
        var expected: Expected = [:]
        var wholeRows: [StoreNode] = []
        // A loaded to-many, a dictionary node, a string key, versions beyond a compact row's.
        wholeRows.append(try Self.node(Self.id(1, entity: "Team"), version: 1, players: [Self.id(1), Self.id(2)]))
        wholeRows.append(StoreNode(objectID: Self.id(2, entity: "Team"), attributes: ["name": .string("dictionary")], version: 1))
        wholeRows.append(try Self.node(ObjectID(storeIdentifier: "S", entityName: "Person", reference: .string("k")), version: 1))
        wholeRows.append(try Self.node(Self.id(3), version: Int64(UInt32.max)))
        wholeRows.append(try Self.node(Self.id(4), version: -1))
        for node in wholeRows {
            cache.replaceNode(node, holders: 2)
            expected[node.objectID] = (node, 2)
        }
        // Compact rows beside them, of the same scopes.
        for key in Int64(5)...40 {
            let node = try Self.node(Self.id(key), version: key)
            cache.replaceNode(node, holders: nil)
            expected[node.objectID] = (node, 0)
        }
        let team = try Self.node(Self.id(9, entity: "Team"), version: 1)
        cache.remember(team)
        expected[team.objectID] = (team, 1)
        Self.expectSame(cache, expected)
        #expect(cache.counts.whole == 5)
        #expect(cache.counts.compact == 37)
    }

    @Test func aCompactRowBecomesWholeWhenItMustAndKeepsItsHolders() throws {
        var cache = RowCache()
        var expected: Expected = [:]
        for key in Int64(1)...20 {
            let node = try Self.node(Self.id(key, entity: "Team"), version: 1)
            cache.remember(node)
            cache.remember(node)
            expected[node.objectID] = (node, 2)
        }
        // A to-many loaded into a cached row.
        let players = [Self.id(100), Self.id(101)]
        cache.setDestinations(players, forToMany: "players", of: Self.id(3, entity: "Team"))
        expected[Self.id(3, entity: "Team")]?.node.setDestinations(players, forToMany: "players")
        // A newer fetched version with a to-many loaded, and a version too large.
        let loaded = try Self.node(Self.id(4, entity: "Team"), version: 2, players: [])
        cache.remember(loaded)
        expected[loaded.objectID] = (loaded, 3)
        let large = try Self.node(Self.id(5, entity: "Team"), version: Int64(UInt32.max) + 10)
        cache.replaceNode(large, holders: nil)
        expected[large.objectID]?.node = large
        Self.expectSame(cache, expected)
        #expect(cache.counts.whole == 3)
        // A save's node keeps the to-manys the whole row had loaded (with the flag), and sets
        // the holders it is given.
        let saved = try Self.node(Self.id(3, entity: "Team"), version: 7)
        cache.replaceNode(saved, holders: 1, keepingLoadedToManys: true)
        var keptNode = saved
        keptNode.setDestinations(players, forToMany: "players")
        expected[saved.objectID] = (keptNode, 1)
        // Without the flag (a node read again from the store), it replaces the row as it is.
        let reread = try Self.node(Self.id(4, entity: "Team"), version: 8)
        cache.replaceNode(reread, holders: nil)
        expected[reread.objectID]?.node = reread
        Self.expectSame(cache, expected)
    }

    @Test func holdersRowsRemovalsAndCopiesBehaveAsADictionary() throws {
        var cache = RowCache()
        var expected: Expected = [:]
        var generator = SystemRandomNumberGenerator()
        var seed = UInt64.random(in: 0 ... .max, using: &generator)
        // A small deterministic generator seeded at random, the seed printed with any failure.
        func next(_ bound: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(bound))
        }
        let startSeed = seed
        let ids: [ObjectID] =
            (1...400).map { Self.id($0) } + (1...60).map { Self.id($0, entity: "Team") }
            + (1...40).map { Self.id($0 * 1_000_003) } + (1...40).map { Self.id($0, store: "T") }
            + (1...20).map { ObjectID(storeIdentifier: "S", entityName: "Person", reference: .string("k\($0)")) }
        var copies: [(RowCache, Expected)] = []
        for step in 0..<6_000 {
            let id = ids[next(ids.count)]
            let version = Int64(next(4))
            let players: [ObjectID]? = id.entityName == "Team" && next(3) == 0 ? [Self.id(Int64(next(400) + 1))] : nil
            switch next(9) {
            case 0, 1:
                let node = try Self.node(id, version: version, players: players)
                cache.remember(node)
                if let cached = expected[id] {
                    if cached.node.version != version { expected[id]?.node = node }
                    expected[id]?.holders += 1
                } else {
                    expected[id] = (node, 1)
                }
            case 2:
                let node = try Self.node(id, version: version, players: players)
                cache.rememberIfCached(node)
                if let cached = expected[id] {
                    if version >= cached.node.version { expected[id]?.node = node }
                    expected[id]?.holders += 1
                }
            case 3:
                let node = try Self.node(id, version: version, players: players)
                let holders = next(2) == 0 ? nil : next(3)
                let keeping = next(2) == 0
                cache.replaceNode(node, holders: holders, keepingLoadedToManys: keeping)
                if let cached = expected[id] {
                    var kept = node
                    if keeping { kept.keepLoadedToManys(of: cached.node) }
                    expected[id] = (kept, holders ?? cached.holders)
                } else {
                    expected[id] = (node, holders ?? 0)
                }
            case 4:
                cache.addHolder(to: id)
                expected[id]?.holders += 1
            case 5, 6:
                cache.removeHolder(from: id)
                if let cached = expected[id] {
                    if cached.holders <= 1 { expected[id] = nil } else { expected[id]?.holders -= 1 }
                }
            case 7:
                cache.removeRow(for: id)
                expected[id] = nil
            default:
                if id.entityName == "Team" {
                    let destinations = [Self.id(Int64(next(400) + 1))]
                    cache.setDestinations(destinations, forToMany: "players", of: id)
                    expected[id]?.node.setDestinations(destinations, forToMany: "players")
                } else if step % 500 == 0 {
                    let store = next(2) == 0 ? "S" : "T"
                    cache.removeAll { $0.storeIdentifier == store && $0.entityName == "Person" }
                    expected = expected.filter { !($0.key.storeIdentifier == store && $0.key.entityName == "Person") }
                }
            }
            if step % 1_000 == 0 { copies.append((cache, expected)) }
        }
        Self.expectSame(cache, expected)
        // Copies taken along the way kept their rows while the cache went on changing.
        for (copy, wanted) in copies { Self.expectSame(copy, wanted) }
        if cache.count != expected.count { Issue.record("seed \(startSeed)") }
    }
}
