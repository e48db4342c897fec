import Foundation
import PipeCSVStore
import StoreCore
import Testing

/// A fresh temporary folder, removed when the test's body returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PipeCSVStoreTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// The shared fixtures folder: `$PERSISTENTSTORES_FIXTURES`, or `../shared/fixtures` beside the
/// package.
enum Fixtures {
    static let directory: URL = {
        if let path = ProcessInfo.processInfo.environment["PERSISTENTSTORES_FIXTURES"] {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures", isDirectory: true)
    }()

    static let leagueManager = directory.appendingPathComponent("pipe/League_Manager.txt")
    static let leagueManagerMetadata = directory.appendingPathComponent("pipe/League_Manager.plist")

    static var available: Bool { FileManager.default.fileExists(atPath: leagueManager.path) }

    /// Copies the League Manager fixture (data and metadata) into `directory`.
    static func copyLeagueManager(to directory: URL) throws -> URL {
        let data = directory.appendingPathComponent("League_Manager.txt")
        try FileManager.default.copyItem(at: leagueManager, to: data)
        try FileManager.default.copyItem(at: leagueManagerMetadata, to: directory.appendingPathComponent("League_Manager.plist"))
        return data
    }
}

/// A registry holding only the PipeCSV store type.
let pipeRegistry: StoreRegistry = {
    let registry = StoreRegistry()
    registry.register(PipeCSVStore.self)
    return registry
}()

enum Models {
    /// The League Manager model of the fixture.
    static let league: ObjectModel = build {
        Entity("Team") {
            Attribute("name", .string)
            Attribute("uniformColor", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("email", .string)
            Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
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

/// A coordinator with one PipeCSV store: the store machinery without a context.
struct PipeStore {
    let coordinator: PersistentStoreCoordinator
    let store: StoreHandle
    let url: URL

    init(model: ObjectModel, url: URL, options: StoreOptions = [:]) throws {
        coordinator = PersistentStoreCoordinator(model: model, registry: pipeRegistry)
        store = try coordinator.addPersistentStore(type: "PipeCSV", at: url, options: options)
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

/// The file's text.
func text(of url: URL) -> String { String(decoding: contents(of: url), as: UTF8.self) }

/// The store error `body` throws, or nil (recorded as an issue) when it throws none or another.
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
