import Foundation

/// A store that keeps the whole file in memory as cache nodes and writes it whole (Core Data's
/// `NSAtomicStore`). Subclass it and implement ``load()`` and ``save()``; the framework answers
/// every fetch over the cache nodes, mints reference objects, and turns a context's save into
/// cache-node changes followed by one call to ``save()``.
///
/// ```swift
/// final class JSONFileStore: AtomicStore {
///     override class var storeType: String { "JSONFile" }
///     override func load() throws {
///         guard let url, let data = try? Data(contentsOf: url), !data.isEmpty else { return }  // new store
///         let file = try JSONDecoder().decode(File.self, from: data)
///         metadata = file.metadata
///         addCacheNodes(file.nodes.map(\.node))
///     }
///     override func save() throws {
///         guard let url else { return }
///         let file = File(metadata: metadata, nodes: cacheNodes.map(Node.init))
///         try JSONEncoder().encode(file).write(to: url, options: .atomic)
///     }
/// }
/// ```
///
/// Thread safety: like every store, an atomic store is used only under its coordinator's lock.
open class AtomicStore: PersistentStore {
    /// The registered type name; override it.
    open class var storeType: String { "Atomic" }
    /// Persistent, atomic file writes, honours read-only.
    open class var capabilities: StoreCapabilities { [.persistent, .atomicFile, .readOnly] }

    /// The coordinator's model.
    public let model: ObjectModel
    /// The configuration the store holds; nil for every entity.
    public let configurationName: String?
    /// The store file.
    public let url: URL?
    /// The options given when the store was added.
    public let options: StoreOptions
    /// Whether saves are refused.
    public let isReadOnly: Bool
    /// Metadata; changing it makes the next save write the file even without object changes.
    public var metadata: StoreMetadata {
        didSet { metadataChanged = true }
    }
    /// Whether metadata changed since the last load or save.
    public private(set) var metadataChanged = false
    private var tables: [String: NodeTable] = [:]

    /// The store identifier: the metadata's `NSStoreUUID`.
    public var identifier: String { metadata[MetadataKey.storeUUID]?.stringValue ?? "" }

    /// Creates an empty store with fresh metadata; ``load()`` then reads the file.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.isReadOnly = Self.isReadOnly(options: options)
        self.metadata = Self.standardMetadata(identifier: UUID().uuidString, model: model)
    }

    /// Reads the file into cache nodes (``addCacheNodes(_:)``) and ``metadata``. A missing or
    /// empty file is a new store: leave the cache empty. Override it.
    open func load() throws {
        throw StoreError(.persistentStoreOperation, "\(Self.self) does not implement load()")
    }

    /// Writes ``cacheNodes`` and ``metadata`` to the file, atomically. Override it.
    open func save() throws {
        throw StoreError(.persistentStoreOperation, "\(Self.self) does not implement save()")
    }

    /// A new, unique reference object for an inserted object of `entityName` (default: a UUID
    /// string).
    open func newReferenceObject(for entityName: String) -> ReferenceObject {
        .string(UUID().uuidString)
    }

    /// The cache node for an inserted object (default: the snapshot itself).
    open func newCacheNode(for snapshot: StoreNode) -> AtomicStoreCacheNode { snapshot }

    /// Updates a cache node from a changed object's snapshot (default: takes its attributes and
    /// to-ones, and the to-manys it carries).
    open func updateCacheNode(_ node: inout AtomicStoreCacheNode, from snapshot: StoreNode) {
        node.attributes = snapshot.attributes
        node.toOne = snapshot.toOne
        for (key, value) in snapshot.toMany { node.toMany[key] = value }
    }

    /// Called before nodes of deleted objects leave the cache (default: nothing).
    open func willRemoveCacheNodes(_ nodes: [AtomicStoreCacheNode]) {}

    /// Reads the metadata of the store at `url` without adding it; override it.
    open class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        throw StoreError(.persistentStoreOperation, "\(self) cannot read metadata without adding the store")
    }

    /// Writes the metadata of the store at `url` without adding it; override it.
    open class func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        throw StoreError(.persistentStoreOperation, "\(self) cannot write metadata without adding the store")
    }

    // MARK: Provided by the framework

    /// Every cache node, grouped by entity, each entity in insertion order.
    public var cacheNodes: [AtomicStoreCacheNode] {
        model.entityNames.flatMap { tables[$0]?.nodes ?? [] }
    }

    /// The number of cache nodes.
    public var cacheNodeCount: Int { tables.values.reduce(0) { $0 + $1.count } }

    /// Adds nodes to the cache (during ``load()``), replacing nodes with the same ID.
    public func addCacheNodes(_ nodes: [AtomicStoreCacheNode]) {
        for node in nodes { tables[node.entityName, default: NodeTable()].upsert(node) }
    }

    /// The cache node for an ID.
    public func cacheNode(for objectID: ObjectID) -> AtomicStoreCacheNode? {
        tables[objectID.entityName]?.node(for: objectID)
    }

    /// The nodes of one entity (not its sub-entities), in insertion order.
    public func cacheNodes(ofEntity entityName: String) -> [AtomicStoreCacheNode] {
        tables[entityName]?.nodes ?? []
    }

    /// The object ID of a reference object in this store.
    public func objectID(for entityName: String, referenceObject: ReferenceObject) -> ObjectID {
        newObjectID(for: entityName, referenceObject: referenceObject)
    }

    /// Marks metadata as written (call after writing it outside ``save()``).
    public func metadataWasWritten() { metadataChanged = false }

    // MARK: Used by the coordinator

    /// Loads the file; the metadata just read counts as written.
    func loadFromFile() throws {
        try load()
        metadataChanged = false
    }

    func execute(_ request: FetchRequest) throws -> StoreResult {
        let nodes = request.matchingEntityNames(in: model).flatMap { tables[$0]?.nodes ?? [] }
        return try QueryEngine.execute(request, over: nodes, graph: nodeGraph)
    }

    /// The cache seen as a graph, for evaluating key paths across relationships.
    public var nodeGraph: NodeGraph {
        NodeGraph(model: model, node: { [tables] id in tables[id.entityName]?.node(for: id) })
    }

    func obtainPermanentIDs(for objectIDs: [ObjectID]) -> [ObjectID] {
        objectIDs.map { objectID(for: $0.entityName, referenceObject: newReferenceObject(for: $0.entityName)) }
    }

    /// Applies a save to the cache and calls ``save()``; on any failure the cache and metadata
    /// are as before.
    func apply(_ request: SaveChangesRequest) throws -> [ObjectID: Int64] {
        if request.isEmpty && !metadataChanged { return [:] }
        if isReadOnly {
            throw StoreError(.persistentStoreOperation, "The \(Self.storeType) store at \(url?.path ?? "(no URL)") is read-only", fileURL: url)
        }
        var conflicts: [ObjectID] = []
        for node in request.updatedObjects + request.deletedObjects {
            guard let current = cacheNode(for: node.objectID) else {
                conflicts.append(node.objectID)
                continue
            }
            if current.version != node.version { conflicts.append(node.objectID) }
        }
        for node in request.insertedObjects where cacheNode(for: node.objectID) != nil {
            throw StoreError(.persistentStoreSave, "Object \(node.objectID) is inserted twice", objectIDs: [node.objectID])
        }
        if !conflicts.isEmpty {
            throw StoreError(
                .managedObjectMerge, "Optimistic locking failure: \(conflicts.count) object(s) changed or deleted in the store since they were read",
                objectIDs: conflicts)
        }
        let savedTables = tables
        let savedMetadata = metadata
        let savedMetadataChanged = metadataChanged
        var versions: [ObjectID: Int64] = [:]
        for snapshot in request.insertedObjects {
            var node = newCacheNode(for: snapshot)
            node.version = 1
            tables[node.entityName, default: NodeTable()].upsert(node)
            versions[node.objectID] = 1
        }
        for snapshot in request.updatedObjects {
            tables[snapshot.entityName]?.modify(snapshot.objectID) { node in
                updateCacheNode(&node, from: snapshot)
                node.version += 1
                versions[node.objectID] = node.version
            }
        }
        let removed = request.deletedObjects.compactMap { cacheNode(for: $0.objectID) }
        willRemoveCacheNodes(removed)
        for node in removed { tables[node.entityName]?.remove(node.objectID) }
        do {
            try save()
        } catch {
            tables = savedTables
            metadata = savedMetadata
            metadataChanged = savedMetadataChanged
            throw error
        }
        metadataChanged = false
        return versions
    }
}
