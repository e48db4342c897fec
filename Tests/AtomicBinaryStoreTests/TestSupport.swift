import Foundation
import StoreCore
import Testing

@testable import AtomicBinaryStore

/// A fresh temporary folder, removed when the test's body returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("AtomicBinaryStoreTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// A registry holding only the Binary store type.
let binaryRegistry: StoreRegistry = {
    let registry = StoreRegistry()
    registry.register(AtomicBinaryStore.self)
    return registry
}()

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

/// A coordinator with one Binary store: the store machinery without a context.
struct BinaryStore {
    let coordinator: PersistentStoreCoordinator
    let store: StoreHandle
    let url: URL

    init(model: ObjectModel, url: URL, options: StoreOptions = [:]) throws {
        coordinator = PersistentStoreCoordinator(model: model, registry: binaryRegistry)
        store = try coordinator.addPersistentStore(type: "Binary", at: url, options: options)
        self.url = url
    }

    /// Every node of an entity (sub-entities included).
    func nodes(_ entity: String) throws -> [StoreNode] {
        guard case .nodes(let nodes) = try coordinator.execute(FetchRequest(entityName: entity)) else {
            Issue.record("fetch of \(entity) did not return nodes")
            return []
        }
        return nodes
    }

    /// Every node of every entity of the model, by object ID.
    func everything() throws -> [ObjectID: StoreNode] {
        var all: [ObjectID: StoreNode] = [:]
        for entity in coordinator.model.entities where !entity.isAbstract {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            guard case .nodes(let nodes) = try coordinator.execute(request) else { continue }
            for node in nodes { all[node.objectID] = node }
        }
        return all
    }

    /// Permanent IDs for `count` new objects of an entity.
    func newIDs(_ entity: String, count: Int = 1) throws -> [ObjectID] {
        try coordinator.obtainPermanentIDs(for: (0..<count).map { _ in .temporary(entityName: entity) })
    }

    /// Saves changes.
    @discardableResult
    func save(inserted: [StoreNode] = [], updated: [StoreNode] = [], deleted: [StoreNode] = []) throws -> [ObjectID: Int64] {
        try coordinator.save(SaveChangesRequest(insertedObjects: inserted, updatedObjects: updated, deletedObjects: deleted))
    }
}

/// The file's bytes, or empty when it does not exist.
func contents(of url: URL) -> Data { (try? Data(contentsOf: url)) ?? Data() }

/// The store error `body` throws, or nil (recorded as an issue) when it throws none or another.
@discardableResult
func storeError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreError? {
    do {
        try body()
        Issue.record("expected a StoreError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        return error
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
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
