import Foundation
import StoreCore
import Testing

/// A minimal atomic store for these tests: metadata and attribute values as one JSON file.
class JSONFileTestStore: AtomicStore {
    override class var storeType: String { "JSONFileTest" }

    struct File: Codable {
        var metadata: StoreMetadata
        var nodes: [Node]
    }

    struct Node: Codable {
        var objectID: ObjectID
        var attributes: [String: StoreValue]
    }

    override func load() throws {
        guard let url, let data = try? Data(contentsOf: url), !data.isEmpty else { return }
        let file = try JSONDecoder().decode(File.self, from: data)
        metadata = file.metadata
        addCacheNodes(file.nodes.map { StoreNode(objectID: $0.objectID, attributes: $0.attributes) })
    }

    override func save() throws {
        guard let url else { return }
        let file = File(metadata: metadata, nodes: cacheNodes.map { Node(objectID: $0.objectID, attributes: $0.attributes) })
        try JSONEncoder().encode(file).write(to: url, options: .atomic)
    }

    override class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).metadata
    }
}

/// The same store, reporting the schema given in its options (`"Test.StoredSchema"`: entity →
/// array of property names), as a store that reads its file's structure would.
final class SchemaReportingTestStore: JSONFileTestStore, SchemaReportingStore {
    override class var storeType: String { "SchemaReportingTest" }

    func storedSchema() throws -> [String: Set<String>]? {
        guard let schema = options["Test.StoredSchema"]?.dictionaryValue else { return nil }
        return schema.mapValues { Set(($0.arrayValue ?? []).compactMap(\.stringValue)) }
    }
}

extension MetadataValue {
    fileprivate var arrayValue: [MetadataValue]? { if case .array(let v) = self { return v } else { return nil } }
}

/// Behaviour #53: adding a store whose version hashes differ from the model fails with 134100
/// and leaves the file as it was.
@Suite("Version hashes checked when a store is added (#53)")
struct StoreVersionCheckTests {
    static func registry() -> StoreRegistry {
        let registry = StoreRegistry()
        registry.register(JSONFileTestStore.self)
        registry.register(SchemaReportingTestStore.self)
        return registry
    }

    static func catalog(withPrice: Bool) throws -> ObjectModel {
        try ObjectModel {
            Entity("Item") {
                Attribute("title", .string)
                if withPrice { Attribute("price", .decimal) }
            }
            Entity("Shelf") { Attribute("code", .string) }
        }
    }

    /// Creates a store at `url` with `model` holding one Item.
    static func createStore(at url: URL, model: ObjectModel, type: String = "JSONFileTest") throws {
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry())
        try coordinator.addPersistentStore(type: type, at: url)
        let ids = try coordinator.obtainPermanentIDs(for: [ObjectID.temporary(entityName: "Item")])
        _ = try coordinator.save(SaveChangesRequest(insertedObjects: [StoreNode(objectID: ids[0], attributes: ["title": "Lamp"])]))
    }

    @Test func storeWrittenWithTheSameModelOpens() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("catalog.json")
        let model = try Self.catalog(withPrice: false)
        try Self.createStore(at: url, model: model)

        let coordinator = PersistentStoreCoordinator(model: model, registry: Self.registry())
        let handle = try coordinator.addPersistentStore(type: "JSONFileTest", at: url)
        let metadata = try coordinator.metadata(for: handle)
        #expect(metadata[MetadataKey.versionHashes]?.dictionaryValue?["Item"]?.dataValue == model.versionHash(ofEntity: "Item"))
        #expect(try coordinator.execute(FetchRequest(entityName: "Item")) != .nodes([]))
        let fromFile = try coordinator.metadataForPersistentStore(type: "JSONFileTest", at: url)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: fromFile))
    }

    @Test func storeWrittenWithAnotherModelFailsAndIsUnchanged() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("catalog.json")
        try Self.createStore(at: url, model: try Self.catalog(withPrice: false))
        let before = try Data(contentsOf: url)

        let coordinator = PersistentStoreCoordinator(model: try Self.catalog(withPrice: true), registry: Self.registry())
        let error = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(type: "JSONFileTest", at: url)
        }
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.message.hasPrefix("The model used to open the store is incompatible with the one used to create the store"))
        #expect(error.message.contains("Item (version hash differs: +price)"))
        #expect(!error.message.contains("Shelf"))
        #expect(error.fileURL == url)
        #expect(coordinator.persistentStores.isEmpty)
        #expect(try Data(contentsOf: url) == before)

        #expect(error.message.contains("automatic migration was not requested"))
        #expect(error.message.contains(url.path))

        // Asking for automatic migration with the model only: the store's version is not one
        // the coordinator knows, so it is not migrated (134130) and stays as it was.
        let unknown = try #require(throws: StoreError.self) {
            try coordinator.addPersistentStore(
                type: "JSONFileTest", at: url,
                options: [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true])
        }
        #expect(unknown.code == .migrationMissingSourceModel)
        #expect(try Data(contentsOf: url) == before)

        // Given the version that wrote it, automatic migration migrates the store (a new optional attribute).
        let upgrading = PersistentStoreCoordinator(
            model: try Self.catalog(withPrice: true), versions: [try Self.catalog(withPrice: false)], registry: Self.registry())
        let migrated = try upgrading.addPersistentStore(
            type: "JSONFileTest", at: url,
            options: [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true])
        #expect(try Data(contentsOf: url) != before)
        let metadata = try upgrading.metadata(for: migrated)
        #expect(upgrading.model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
    }

    @Test func newStoreIsFine() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("new.json")
        let coordinator = PersistentStoreCoordinator(model: try Self.catalog(withPrice: true), registry: Self.registry())
        let handle = try coordinator.addPersistentStore(type: "JSONFileTest", at: url)
        #expect(try coordinator.metadata(for: handle)[MetadataKey.versionHashesVersion] == .int(3))
        // A zero-length file is a new store too.
        let empty = directory.appendingPathComponent("empty.json")
        try Data().write(to: empty)
        try coordinator.addPersistentStore(type: "JSONFileTest", at: empty)
        #expect(coordinator.persistentStores.count == 2)
    }

    /// Writes a store file whose metadata looks like Core Data's: its own hashes (which this
    /// framework does not reproduce) and `NSPersistenceFrameworkVersion`.
    static func writeCoreDataStyleStore(at url: URL, entities: [String], type: String = "JSONFileTest") throws {
        var metadata = ModelCompatibilityTests.coreDataMetadata(entities: entities)
        metadata[MetadataKey.storeType] = .string(type)
        try JSONEncoder().encode(JSONFileTestStore.File(metadata: metadata, nodes: [])).write(to: url)
    }

    @Test func coreDataStoreOpensStructurallyUnlessStrict() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("coredata.json")
        try Self.writeCoreDataStyleStore(at: url, entities: ["Item", "Shelf"])
        let before = try Data(contentsOf: url)
        let model = try Self.catalog(withPrice: true)

        let lenient = PersistentStoreCoordinator(model: model, registry: Self.registry())
        try lenient.addPersistentStore(type: "JSONFileTest", at: url)
        #expect(lenient.persistentStores.count == 1)

        let strict = PersistentStoreCoordinator(model: model, registry: Self.registry())
        let error = try #require(throws: StoreError.self) {
            try strict.addPersistentStore(type: "JSONFileTest", at: url, options: [StoreOptionKey.strictVersionChecking: true])
        }
        #expect(error.code.rawValue == 134100)
        #expect(error.message.contains("Item (version hash differs)"))
        #expect(error.message.contains("Shelf (version hash differs)"))
        #expect(try Data(contentsOf: url) == before)

        // Another entity set is incompatible even without strict checking.
        try Self.writeCoreDataStyleStore(at: url, entities: ["Item", "Bin"])
        let error2 = try #require(throws: StoreError.self) {
            try PersistentStoreCoordinator(model: model, registry: Self.registry()).addPersistentStore(type: "JSONFileTest", at: url)
        }
        #expect(error2.message.contains("Bin (in the store, not in the model)"))
        #expect(error2.message.contains("Shelf (in the model, not in the store)"))
    }

    @Test func coreDataStoreWithReportedSchemaComparesProperties() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("coredata.json")
        try Self.writeCoreDataStyleStore(at: url, entities: ["Item", "Shelf"], type: "SchemaReportingTest")
        let model = try Self.catalog(withPrice: true)
        func options(item: [String]) -> StoreOptions {
            ["Test.StoredSchema": .dictionary(["Item": .array(item.map { .string($0) }), "Shelf": .array(["code"])])]
        }
        let coordinator = PersistentStoreCoordinator(model: model, registry: Self.registry())
        try coordinator.addPersistentStore(type: "SchemaReportingTest", at: url, options: options(item: ["title", "price"]))
        let error = try #require(throws: StoreError.self) {
            try PersistentStoreCoordinator(model: model, registry: Self.registry())
                .addPersistentStore(type: "SchemaReportingTest", at: url, options: options(item: ["title"]))
        }
        #expect(error.message.contains("Item (properties differ: +price)"))
    }
}
