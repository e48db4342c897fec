import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import PipeCSVStore

/// The loader builds cache nodes in the slots of each entity's compiled layout, decoding
/// integers, booleans and plain strings straight from the bytes; what it reads is what the
/// general parser reads.
@Suite("Slotted cache nodes")
struct SlottedNodeTests {
    func loadedNodes(_ model: ObjectModel, at url: URL) throws -> [AtomicStoreCacheNode] {
        try loadedCacheNodes(PipeCSVStore.self, model, at: url)
    }

    @Test func aLoadBuildsEveryAttributeTypeInTheEntitysSlots() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("AllTypes.txt")
            var everything = requiredValues()
            everything["integer16Optional"] = .int(Int64(Int16.min))
            everything["integer64Optional"] = .int(Int64.min)
            everything["stringOptional"] = "é|=,\\\n(null)"
            everything["booleanOptional"] = false
            everything["uuidOptional"] = .uuid(UUID())
            let saved = [requiredValues(), everything]
            let stack = try PipeStore(model: Models.allTypes, url: url)
            let ids = try stack.newIDs("AllTypes", count: saved.count)
            try stack.save(inserted: zip(ids, saved).map { StoreNode(objectID: $0, attributes: $1, version: 0) })

            let layout = try #require(Models.allTypes.layout(ofEntity: "AllTypes"))
            let nodes = try loadedNodes(Models.allTypes, at: url)
            try expectSlottedNodes(nodes, in: layout, saved: saved, ids: ids)
        }
    }

    @Test func integersAndBooleansReadFromTheBytesAgreeWithTheGeneralParser() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Stats.txt")
            let lines = [
                "Stats|a|count=-0|flag=1", "Stats|b|count=+12|flag=YES", "Stats|c|count=32767|flag=0",
                "Stats|d|count=-32768|flag=false", "Stats|e|count=007|flag=(null)",
            ]
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
            try customStoreMetadata.write(to: PipeCSVStore.metadataURL(forStoreAt: url))
            let nodes = try loadedNodes(malformedModel, at: url)
            let byReference = Dictionary(uniqueKeysWithValues: nodes.map { ($0.objectID.referenceObject?.description ?? "", $0) })
            let expected: [String: (Int64, Bool?)] = ["a": (0, true), "b": (12, true), "c": (32767, false), "d": (-32768, false), "e": (7, nil)]
            for (reference, (count, flag)) in expected {
                let node = try #require(byReference[reference], "\(reference)")
                #expect(node.layout === malformedModel.layout(ofEntity: "Stats"))
                #expect(node.attributeValue(forKey: "count") == .int(count), "\(reference)")
                #expect(node.attributeValue(forKey: "flag") == flag.map(StoreValue.bool), "\(reference)")
            }
            // A value too large for the type still fails, on the general path, naming it.
            let error = try loadError(Array("Stats|s1|count=1234567890123456789012\n".utf8))
            #expect(error?.message.contains("not a valid integer16") == true)
        }
    }

    @Test func aLoadBuildsRelationshipsInSlots() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.txt")
            let stack = try PipeStore(model: Models.league, url: url)
            let teams = try stack.newIDs("Team", count: 2)
            let players = try stack.newIDs("Player", count: 3)
            try stack.save(inserted: [
                StoreNode(objectID: teams[0], attributes: ["name": "Crew"], toMany: ["players": [players[0], players[1]]], version: 0),
                StoreNode(objectID: teams[1], attributes: ["name": "Idle"], version: 0),
                StoreNode(objectID: players[0], attributes: ["firstName": "A"], toOne: ["team": teams[0]], version: 0),
                StoreNode(objectID: players[1], attributes: ["firstName": "B"], toOne: ["team": teams[0]], version: 0),
                StoreNode(objectID: players[2], attributes: ["firstName": "C"], version: 0),
            ])
            let nodes = try loadedNodes(Models.league, at: url)
            #expect(nodes.count == 5)
            func node(_ id: ObjectID) -> AtomicStoreCacheNode? { nodes.first { $0.objectID.referenceObject == id.referenceObject } }
            for node in nodes { #expect(node.layout === Models.league.layout(ofEntity: node.entityName)) }
            #expect(Set(node(teams[0])?.destinations(forToMany: "players")?.compactMap(\.referenceObject) ?? [])
                == Set(players[0...1].compactMap(\.referenceObject)))
            #expect(node(teams[1])?.destinations(forToMany: "players") == [])
            #expect(node(players[1])?.destination(forToOne: "team")?.referenceObject == teams[0].referenceObject)
            #expect(node(players[2])?.destination(forToOne: "team") == nil)
        }
    }

    @Test func uuidReferencesResolveByTheirTextExactly() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.txt")
            let team = "9F2662B9-3006-4B8D-BC43-EA68DB7AD037"
            // An escaped reference names the same object as its unescaped text; a lower-case
            // spelling of a UUID is another reference.
            let lines = [
                "Team|\(team)|name=Crew|players=5247F86F-0397-4814-9AF7-5F6946BE20C4,\\5247F86F-0397-4814-9AF7-5F6946BE20C5",
                "Player|5247F86F-0397-4814-9AF7-5F6946BE20C4|firstName=A|team=\\\(team)",
                "Player|\\5247F86F-0397-4814-9AF7-5F6946BE20C5|firstName=B|team=\(team)",
            ]
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
            try customStoreMetadata.write(to: PipeCSVStore.metadataURL(forStoreAt: url))
            let nodes = try loadedNodes(Models.league, at: url)
            #expect(nodes.count == 3)
            let players = nodes.filter { $0.entityName == "Player" }
            #expect(players.count == 2)
            for player in players {
                #expect(player.destination(forToOne: "team")?.referenceObject == .string(team))
            }
            let teamNode = try #require(nodes.first { $0.entityName == "Team" })
            #expect(Set(teamNode.destinations(forToMany: "players")?.compactMap(\.referenceObject) ?? [])
                == [.string("5247F86F-0397-4814-9AF7-5F6946BE20C4"), .string("5247F86F-0397-4814-9AF7-5F6946BE20C5")])

            let lowerCase = "Team|\(team)|name=Crew\nPlayer|p1|firstName=A|team=\(team.lowercased())\n"
            let error = try loadError(Array(lowerCase.utf8))
            #expect(error?.message.contains("refers to \"\(team.lowercased())\", which no line of the file defines") == true, "\(String(describing: error))")
            let duplicate = "Team|\(team)|name=Crew\nPlayer|\\\(team)|firstName=A\n"
            let duplicateError = try loadError(Array(duplicate.utf8))
            #expect(duplicateError?.message.contains("duplicate reference object \"\(team)\"") == true, "\(String(describing: duplicateError))")
        }
    }
}
