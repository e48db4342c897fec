import Foundation
import StoreCore
import Testing
import XMLStore

/// A fresh temporary folder, removed when the test's body returns.
func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("XMLStoreTests-\(UUID().uuidString)", isDirectory: true)
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

    static let vehicles = directory.appendingPathComponent("coredata-xml/Vehicles.xml")

    static var available: Bool { FileManager.default.fileExists(atPath: vehicles.path) }

    /// Copies Vehicles.xml into `directory` (the fixture itself is never written).
    static func copyVehicles(to directory: URL) throws -> URL {
        let copy = directory.appendingPathComponent("Vehicles.xml")
        try FileManager.default.copyItem(at: vehicles, to: copy)
        return copy
    }
}

/// A registry holding only the XML store type.
let xmlRegistry: StoreRegistry = {
    let registry = StoreRegistry()
    registry.register(XMLStore.self)
    return registry
}()

enum Models {
    /// The model of the Vehicles.xml fixture, as its README lists it.
    static let vehicles: ObjectModel = build {
        Entity("Vehicle") {
            Attribute("make", .string)
            Attribute("model", .string)
            Attribute("nickname", .string)
            Attribute("year", .integer32)
            Relationship(
                "vehiclePictures", to: "VehiclePicture", inverse: "picturesForVehicle", toMany: true, deleteRule: .cascade)
        }
        Entity("VehiclePicture") {
            Attribute("pictureName", .string)
            Attribute("sequence", .integer32)
            Attribute("imageData", .binaryData)
            Relationship("picturesForVehicle", to: "Vehicle", inverse: "vehiclePictures", deleteRule: .nullify)
        }
    }

    /// Team ↔ Player, as in Core Data's documentation.
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

    /// An abstract parent, two concrete children, a to-one to the parent and an ordered to-many.
    static let shapes: ObjectModel = build {
        Entity("Shape", abstract: true) {
            Attribute("color", .string)
        }
        Entity("Circle", parent: "Shape") {
            Attribute("radius", .float)
        }
        Entity("Polygon", parent: "Shape") {
            Relationship("vertices", to: "Vertex", inverse: "polygon", toMany: true, ordered: true, minCount: 3, deleteRule: .cascade)
        }
        Entity("Vertex") {
            Attribute("index", .integer16)
            Relationship("polygon", to: "Polygon", inverse: "vertices")
        }
        Entity("Canvas") {
            Relationship("favorite", to: "Shape")
        }
    }

    static func build(@ModelBuilder _ entities: () -> [EntityDescription]) -> ObjectModel {
        do {
            return try ObjectModel(entities: entities())
        } catch {
            Issue.record("test model is invalid: \(error)")
            return (try? ObjectModel(entities: [])) ?? Models.league
        }
    }
}

/// A coordinator with one XML store: the store machinery without a context.
struct XMLStack {
    let coordinator: PersistentStoreCoordinator
    let store: StoreHandle
    let url: URL

    init(model: ObjectModel, url: URL, options: StoreOptions = [:]) throws {
        coordinator = PersistentStoreCoordinator(model: model, registry: xmlRegistry)
        store = try coordinator.addPersistentStore(type: "XML", at: url, options: options)
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

/// Writes `text` to `url`.
func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
}

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
