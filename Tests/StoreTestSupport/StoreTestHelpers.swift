import Foundation
import StoreCore
import Testing

/// A fresh temporary folder, removed when `body` returns.
public func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PersistentStoresTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// A fresh temporary folder, removed when `body` returns (for tests that await).
public func withAsyncTemporaryDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("PersistentStoresTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory)
}

/// The file's bytes, or empty when it does not exist.
public func contents(of url: URL) -> Data { (try? Data(contentsOf: url)) ?? Data() }

/// The file's text.
public func text(of url: URL) -> String { String(decoding: contents(of: url), as: UTF8.self) }

/// The store error `body` throws, or nil (recorded as an issue) when it throws none or another.
@discardableResult
public func storeError(_ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> StoreError? {
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

/// The shared fixtures folder: `$PERSISTENTSTORES_FIXTURES`, or `../shared/fixtures` beside the
/// package.
public let sharedFixturesDirectory: URL = {
    if let path = ProcessInfo.processInfo.environment["PERSISTENTSTORES_FIXTURES"], !path.isEmpty {
        return URL(fileURLWithPath: path, isDirectory: true)
    }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/fixtures", isDirectory: true)
}()

/// A coordinator with one store of type `Store`: the store machinery without a context.
public struct StoreStack<Store: PersistentStore> {
    /// The coordinator.
    public let coordinator: PersistentStoreCoordinator
    /// The store.
    public let store: StoreHandle
    /// The store file.
    public let url: URL

    /// A registry holding only `Store`.
    public static var registry: StoreRegistry {
        let registry = StoreRegistry()
        registry.register(Store.self)
        return registry
    }

    /// Adds a store of type `Store` at `url` to a new coordinator.
    public init(model: ObjectModel, url: URL, options: StoreOptions = [:]) throws {
        coordinator = PersistentStoreCoordinator(model: model, registry: Self.registry)
        store = try coordinator.addPersistentStore(type: Store.storeType, at: url, options: options)
        self.url = url
    }

    /// Every node of an entity (sub-entities included).
    public func nodes(_ entity: String) throws -> [StoreNode] {
        guard case .nodes(let nodes) = try coordinator.execute(FetchRequest(entityName: entity)) else {
            Issue.record("fetch of \(entity) did not return nodes")
            return []
        }
        return nodes
    }

    /// Every node of every concrete entity of the model, by object ID.
    public func everything() throws -> [ObjectID: StoreNode] {
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
    public func newIDs(_ entity: String, count: Int = 1) throws -> [ObjectID] {
        try coordinator.obtainPermanentIDs(for: (0..<count).map { _ in .temporary(entityName: entity) })
    }

    /// Saves changes.
    @discardableResult
    public func save(inserted: [StoreNode] = [], updated: [StoreNode] = [], deleted: [StoreNode] = []) throws -> [ObjectID: Int64] {
        try coordinator.save(SaveChangesRequest(insertedObjects: inserted, updatedObjects: updated, deletedObjects: deleted))
    }
}

/// Loads the atomic store of type `Store` at `url` without a coordinator and returns its cache
/// nodes (the loaders' own output, before any coordinator touches it).
public func loadedCacheNodes<Store: AtomicStore>(_ type: Store.Type, _ model: ObjectModel, at url: URL) throws -> [AtomicStoreCacheNode] {
    let store = try Store(model: model, configurationName: nil, url: url, options: [:])
    try store.load()
    return store.cacheNodes
}

/// Checks that each loaded node is in `layout` (the entity's compiled one) and holds exactly the
/// attributes saved for its ID; `also` runs further checks on each node with its saved values.
public func expectSlottedNodes(
    _ nodes: [AtomicStoreCacheNode], in layout: EntityLayout, saved: [[String: StoreValue]], ids: [ObjectID],
    sourceLocation: SourceLocation = #_sourceLocation,
    also: (AtomicStoreCacheNode, [String: StoreValue]) -> Void = { _, _ in }
) throws {
    #expect(nodes.count == saved.count, sourceLocation: sourceLocation)
    for node in nodes {
        #expect(node.layout === layout, "a loaded node is not in the entity's compiled layout", sourceLocation: sourceLocation)
        let index = try #require(ids.firstIndex { $0.referenceObject == node.objectID.referenceObject }, sourceLocation: sourceLocation)
        #expect(node.attributes == saved[index], sourceLocation: sourceLocation)
        also(node, saved[index])
    }
}
