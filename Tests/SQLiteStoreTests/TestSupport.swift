import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// A fresh temporary directory per test, removed when the value goes away.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteStoreTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}

enum Fixtures {
    /// `../shared/fixtures` next to the package, or `PERSISTENTSTORES_FIXTURES`.
    static let directory = sharedFixturesDirectory

    static let bnrStore = directory.appendingPathComponent("coredata-sqlite/BNRTestModel/TestModel.sqlite")
    static let easyLifeStore = directory.appendingPathComponent("coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.sqlite")

    static let bnrModel = directory.appendingPathComponent("coredata-sqlite/BNRTestModel/Sample.xcdatamodeld/TestModel.xcdatamodel")
    static let easyLifeModel = directory.appendingPathComponent("coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.xcdatamodel")

    static var available: Bool {
        FileManager.default.fileExists(atPath: bnrStore.path) && FileManager.default.fileExists(atPath: easyLifeStore.path)
    }

    /// Copies a fixture into `directory` (fixtures are never opened in place: SQLite would
    /// create -wal/-shm files beside them).
    static func copy(_ fixture: URL, into directory: TemporaryDirectory) throws -> URL {
        let target = directory.file(fixture.lastPathComponent)
        try FileManager.default.copyItem(at: fixture, to: target)
        return target
    }
}

enum Models {
    /// BNRTestModel's `TestModel.xcdatamodel`.
    static func bnr() throws -> ObjectModel {
        try ObjectModel {
            Entity("Author") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Relationship("books", to: "Book", inverse: "authors", toMany: true)
            }
            Entity("Book") {
                Attribute("title", .string)
                Relationship("authors", to: "Author", inverse: "books", toMany: true)
            }
        }
    }

    /// EasyLife 1.5.0's model.
    static func easyLife() throws -> ObjectModel {
        try ObjectModel {
            Entity("Project") {
                Attribute("name", .string)
                Attribute("priority", .integer16, defaultValue: -1)
                Relationship("todoItem", to: "TodoItem", inverse: "project", toMany: true)
            }
            Entity("TodoItem") {
                Attribute("date", .date)
                Attribute("done", .boolean)
                Attribute("name", .string)
                Attribute("notes", .string)
                Attribute("repeats", .integer16, defaultValue: 0, minValue: 0)
                Relationship("blockedBy", to: "TodoItem", inverse: "blocking", toMany: true)
                Relationship("blocking", to: "TodoItem", inverse: "blockedBy", toMany: true)
                Relationship("project", to: "Project", inverse: "todoItem")
            }
        }
    }

    /// League: Team ↔ Player.
    static func league() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("uniformColor", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("firstName", .string)
                Attribute("lastName", .string)
                Attribute("email", .string)
                Relationship("team", to: "Team", inverse: "players")
            }
        }
    }

    /// OrgChart: relationships without inverses.
    static func orgChart() throws -> ObjectModel {
        try ObjectModel {
            Entity("Organization") {
                Attribute("id", .integer16)
                Attribute("name", .string)
                Relationship("leader", to: "Person")
            }
            Entity("Person") {
                Attribute("id", .integer16)
                Attribute("name", .string)
                Relationship("employees", to: "Person", toMany: true)
            }
        }
    }

    /// Shapes: inheritance, a to-one to an abstract parent, many-to-many with a parent.
    static func shapes() throws -> ObjectModel {
        try ObjectModel {
            Entity("Shape", abstract: true) {
                Attribute("color", .string)
                Relationship("canvases", to: "Canvas", inverse: "shapes", toMany: true)
            }
            Entity("Circle", parent: "Shape") {
                Attribute("radius", .float, defaultValue: 8.0)
                Attribute("x", .float)
                Attribute("y", .float)
            }
            Entity("Polygon", parent: "Shape") {
                Attribute("name", .string)
                Relationship("vertices", to: "Vertex", inverse: "polygon", toMany: true, ordered: true, deleteRule: .cascade)
            }
            Entity("Vertex") {
                Attribute("index", .integer16)
                Attribute("x", .float)
                Attribute("y", .float)
                Relationship("polygon", to: "Polygon", inverse: "vertices")
            }
            Entity("Canvas") {
                Attribute("name", .string)
                Relationship("shapes", to: "Shape", inverse: "canvases", toMany: true, ordered: true)
                Relationship("favorite", to: "Shape")
            }
        }
    }

    /// One attribute of every type.
    static func allTypes() throws -> ObjectModel {
        try ObjectModel {
            Entity("Item") {
                Attribute("int16", .integer16)
                Attribute("int32", .integer32)
                Attribute("int64", .integer64)
                Attribute("decimal", .decimal)
                Attribute("double", .double)
                Attribute("float", .float)
                Attribute("string", .string)
                Attribute("boolean", .boolean)
                Attribute("date", .date)
                Attribute("binary", .binaryData)
                Attribute("uuid", .uuid)
                Attribute("uri", .uri)
                Attribute("transformable", .transformable)
                Attribute("objectID", .objectID)
                Attribute("scratch", .string, transient: true)
            }
        }
    }
}

/// A store of `model` at `url`, loaded.
func openStore(_ model: ObjectModel, at url: URL?, options: StoreOptions = [:]) throws -> SQLiteStore {
    let store = try SQLiteStore(model: model, configurationName: nil, url: url, options: options)
    try store.loadMetadata()
    return store
}

/// Inserts nodes through the store the way a coordinator does: permanent IDs, then a save.
@discardableResult
func insert(_ nodes: [(entity: String, attributes: [String: StoreValue])], into store: SQLiteStore) throws -> [ObjectID] {
    let temporary = nodes.map { ObjectID.temporary(entityName: $0.entity) }
    let ids = try store.obtainPermanentIDs(for: temporary)
    let request = SaveChangesRequest(
        insertedObjects: zip(ids, nodes).map { StoreNode(objectID: $0.0, attributes: $0.1.attributes, version: 0) })
    _ = try store.execute(.save(request))
    return ids
}

/// Every row of a fetch as nodes.
func fetchNodes(_ entity: String, from store: SQLiteStore, configure: (inout FetchRequest) -> Void = { _ in }) throws -> [StoreNode] {
    var request = FetchRequest(entityName: entity)
    configure(&request)
    guard case .nodes(let nodes) = try store.execute(.fetch(request)) else { return [] }
    return nodes
}

/// Runs a query on a separate connection and returns each row's columns as text ("" for NULL).
func rows(_ sql: String, in url: URL) throws -> [[String]] {
    let connection = try SQLiteConnection(url: url, readOnly: true, create: false)
    let statement = try connection.prepare(sql)
    var result: [[String]] = []
    while try statement.step() {
        result.append((0..<statement.columnCount).map { statement.isNull(at: $0) ? "" : statement.text(at: $0) })
    }
    return result
}
