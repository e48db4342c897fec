import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import AtomicBinaryStore

/// A registry holding only the AtomicBinaryStore type.
let binaryRegistry = StoreStack<AtomicBinaryStore>.registry

enum Models {
    /// Team ↔ Player with an ordered to-many, a Coach (to-one both sides), and a self-referencing
    /// Player.friends many-to-many.
    static let league: ObjectModel = build {
        Entity("Team") {
            Attribute("name", .string)
            Attribute("founded", .date)
            Relationship("players", to: "Player", inverse: "team", toMany: true, ordered: true, deleteRule: .cascade)
            Relationship("coach", to: "Coach", inverse: "team")
        }
        Entity("Player") {
            Attribute("name", .string)
            Attribute("number", .integer16)
            Relationship("team", to: "Team", inverse: "players")
            Relationship("friends", to: "Player", inverse: "friends", toMany: true)
        }
        Entity("Coach") {
            Attribute("name", .string)
            Relationship("team", to: "Team", inverse: "coach")
        }
    }

    /// One attribute of every type, optional (`<type>Optional`) and not (`<type>`).
    static let allTypes: ObjectModel = build {
        Entity("AllTypes") {
            for type in AttributeType.allCases {
                Attribute(type.rawValue, type, optional: false)
                Attribute(type.rawValue + "Optional", type)
            }
        }
    }

    private static func build(@ModelBuilder _ entities: () -> [EntityDescription]) -> ObjectModel {
        do {
            return try ObjectModel(entities: entities())
        } catch {
            Issue.record("test model is invalid: \(error)")
            return (try? ObjectModel(entities: [])) ?? Models.league
        }
    }
}

/// A value for every non-optional attribute of the AllTypes model.
func requiredValues() -> [String: StoreValue] {
    [
        "integer16": .int(Int64(Int16.max)), "integer32": .int(Int64(Int32.min)), "integer64": .int(Int64.max),
        "decimal": .decimal(Decimal(string: "12345678901234567890123456789012345678", locale: Locale(identifier: "en_US_POSIX")) ?? 0),
        "double": .double(.leastNonzeroMagnitude), "float": .double(Double(Float.leastNonzeroMagnitude)),
        "string": "", "boolean": true, "date": .date(Date(timeIntervalSinceReferenceDate: -1e9 - 0.123456789)),
        "binaryData": .data(Data()), "uuid": .uuid(UUID()),
        "uri": .uri(URL(string: "https://example.com/a%20b?q=1&r=2#frag") ?? URL(fileURLWithPath: "/")),
        "transformable": .data(Data([0, 1, 2, 255])),
        "objectID": .objectID(ObjectID(storeIdentifier: "S|1", entityName: "AllTypes", reference: .string("a,b=c"))),
    ]
}

/// A small League store with every kind of relationship, saved at `url`; returns its content.
@discardableResult
func makeLeagueStore(at url: URL, options: StoreOptions = [:]) throws -> [ObjectID: StoreNode] {
    let store = try BinaryStore(model: Models.league, url: url, options: options)
    let teams = try store.newIDs("Team", count: 2)
    let players = try store.newIDs("Player", count: 4)
    let coach = try store.newIDs("Coach")[0]
    let date = Date(timeIntervalSinceReferenceDate: -123_456.789)
    try store.save(inserted: [
        StoreNode(objectID: teams[0], attributes: ["name": "Crew", "founded": .date(date)],
                  toOne: ["coach": coach], toMany: ["players": [players[2], players[0], players[1]]], version: 0),
        StoreNode(objectID: teams[1], attributes: ["name": "Fire"], toMany: ["players": [players[3]]], version: 0),
        StoreNode(objectID: players[0], attributes: ["name": "Jordan Gordon", "number": 7], toOne: ["team": teams[0]],
                  toMany: ["friends": [players[1], players[3]]], version: 0),
        StoreNode(objectID: players[1], attributes: ["name": "Pat Sprat", "number": -1], toOne: ["team": teams[0]],
                  toMany: ["friends": [players[0]]], version: 0),
        StoreNode(objectID: players[2], attributes: ["name": "Bailey Staley"], toOne: ["team": teams[0]], toMany: ["friends": []], version: 0),
        StoreNode(objectID: players[3], attributes: ["name": "Terry Gary 🔥"], toOne: ["team": teams[1]],
                  toMany: ["friends": [players[0]]], version: 0),
        StoreNode(objectID: coach, attributes: ["name": "Coach"], toOne: ["team": teams[0]], version: 0),
    ])
    return try store.everything()
}

/// A coordinator with one AtomicBinaryStore store.
typealias BinaryStore = StoreStack<AtomicBinaryStore>
