import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import XMLStore

/// The loader builds cache nodes in the slots of each entity's compiled layout, and saves read
/// them by slot.
@Suite("Slotted cache nodes")
struct SlottedNodeTests {
    func loadedNodes(_ model: ObjectModel, at url: URL) throws -> [AtomicStoreCacheNode] {
        try loadedCacheNodes(XMLStore.self, model, at: url)
    }

    @Test func aLoadBuildsEveryAttributeTypeInTheEntitysSlots() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("AllTypes.xml")
            var everything = requiredValues()
            everything["integer16Optional"] = .int(Int64(Int16.min))
            everything["integer64Optional"] = .int(Int64.min)
            everything["doubleOptional"] = .double(-0.0)
            everything["stringOptional"] = "<&> \"é\""
            everything["booleanOptional"] = false
            everything["dateOptional"] = .date(Date(timeIntervalSinceReferenceDate: 0.5))
            everything["binaryDataOptional"] = .data(Data([1, 2, 3]))
            everything["uuidOptional"] = .uuid(UUID())
            let saved = [requiredValues(), everything]
            let stack = try XMLStack(model: Models.allTypes, url: url)
            let ids = try stack.newIDs("AllTypes", count: saved.count)
            try stack.save(inserted: zip(ids, saved).map { StoreNode(objectID: $0, attributes: $1, version: 0) })

            let layout = try #require(Models.allTypes.layout(ofEntity: "AllTypes"))
            let nodes = try loadedNodes(Models.allTypes, at: url)
            try expectSlottedNodes(nodes, in: layout, saved: saved, ids: ids)
        }
    }

    @Test func aLoadBuildsRelationshipsInSlotsAndASaveWritesThemBack() throws {
        try withTemporaryDirectory { directory in
            let (stack, team, player) = try savedLeague(in: directory)
            let nodes = try loadedNodes(Models.league, at: stack.url)
            #expect(nodes.count == 2)
            for node in nodes { #expect(node.layout === Models.league.layout(ofEntity: node.entityName)) }
            let loadedTeam = try #require(nodes.first { $0.objectID.referenceObject == team.referenceObject })
            let loadedPlayer = try #require(nodes.first { $0.objectID.referenceObject == player.referenceObject })
            #expect(loadedTeam.destinations(forToMany: "players") == [loadedPlayer.objectID])
            #expect(loadedPlayer.destination(forToOne: "team") == loadedTeam.objectID)

            // An update through a coordinator rewrites the file from slotted nodes.
            let reopened = try XMLStack(model: Models.league, url: stack.url)
            var changed = try #require(try reopened.nodes("Player").first)
            changed.setValue("Renamed", forAttribute: "firstName")
            try reopened.save(updated: [changed])
            let reloaded = try loadedNodes(Models.league, at: stack.url)
            let renamed = try #require(reloaded.first { $0.objectID.referenceObject == player.referenceObject })
            #expect(renamed.layout === Models.league.layout(ofEntity: "Player"))
            #expect(renamed.attributeValue(forKey: "firstName") == "Renamed")
            #expect(renamed.destination(forToOne: "team")?.referenceObject == team.referenceObject)
        }
    }
}
