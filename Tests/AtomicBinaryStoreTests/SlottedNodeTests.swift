import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import AtomicBinaryStore

/// The loader builds cache nodes in the slots of each entity's compiled layout, and saves read
/// them by slot: what a load gives is what the file holds, in that form.
@Suite("Slotted cache nodes")
struct SlottedNodeTests {
    func loadedNodes(_ model: ObjectModel, at url: URL) throws -> [AtomicStoreCacheNode] {
        try loadedCacheNodes(AtomicBinaryStore.self, model, at: url)
    }

    @Test func aLoadBuildsEveryAttributeTypeInTheEntitysSlots() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("AllTypes.store")
            var everything = requiredValues()
            everything["integer16Optional"] = .int(Int64(Int16.min))
            everything["integer64Optional"] = .int(Int64.min)
            everything["doubleOptional"] = .double(-0.0)
            everything["stringOptional"] = "é|=,\\\n"
            everything["booleanOptional"] = false
            everything["dateOptional"] = .date(Date(timeIntervalSinceReferenceDate: 0.5))
            everything["binaryDataOptional"] = .data(Data([1, 2, 3]))
            everything["uuidOptional"] = .uuid(UUID())
            let saved = [requiredValues(), everything]
            let stack = try BinaryStore(model: Models.allTypes, url: url)
            let ids = try stack.newIDs("AllTypes", count: saved.count)
            try stack.save(inserted: zip(ids, saved).map { StoreNode(objectID: $0, attributes: $1, version: 0) })

            let layout = try #require(Models.allTypes.layout(ofEntity: "AllTypes"))
            let nodes = try loadedNodes(Models.allTypes, at: url)
            try expectSlottedNodes(nodes, in: layout, saved: saved, ids: ids) { node, values in
                for (name, value) in values { #expect(node.attributeValue(forKey: name) == value, "\(name)") }
                #expect(node.version == 1)
            }
        }
    }

    @Test func aLoadBuildsRelationshipsInSlotsAndASaveWritesThemBack() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            let expected = try makeLeagueStore(at: url)
            let nodes = try loadedNodes(Models.league, at: url)
            #expect(nodes.count == expected.count)
            for node in nodes {
                #expect(node.layout === Models.league.layout(ofEntity: node.entityName))
                #expect(node == expected[node.objectID])
            }
            // Every stored to-many is loaded (empty, not missing, when the object has none).
            let coach = try #require(nodes.first { $0.entityName == "Team" && $0.destination(forToOne: "coach") == nil })
            #expect(coach.destinations(forToMany: "players") != nil)

            // An update through a coordinator rewrites the file from slotted nodes.
            let stack = try BinaryStore(model: Models.league, url: url)
            var player = try #require(try stack.nodes("Player").first { $0.attributeValue(forKey: "number") == .int(7) })
            player.setValue("Renamed", forAttribute: "name")
            try stack.save(updated: [player])
            let reloaded = try loadedNodes(Models.league, at: url)
            let renamed = try #require(reloaded.first { $0.objectID == player.objectID })
            #expect(renamed.layout === Models.league.layout(ofEntity: "Player"))
            #expect(renamed.attributeValue(forKey: "name") == "Renamed")
            #expect(renamed.destination(forToOne: "team") == expected[player.objectID]?.destination(forToOne: "team"))
            #expect(renamed.destinations(forToMany: "friends") == expected[player.objectID]?.destinations(forToMany: "friends"))
            #expect(renamed.version == 2)
        }
    }
}
