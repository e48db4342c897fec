import Foundation

/// A store that keeps the whole file in memory as cache nodes and writes it whole (Core Data's
/// `NSAtomicStore`). Subclass it and implement ``load()`` and ``save()``; the framework does the
/// rest: it mints reference objects (UUID strings), turns a context's save into cache-node
/// changes followed by exactly one call to ``save()`` (none when nothing changed), puts the cache
/// back as it was when ``save()`` throws, keeps relationships pointing only at nodes of this
/// store, and answers every fetch over the cache nodes with the shared query engine.
///
/// A complete custom store — a JSON file — needs nothing more:
///
/// ```swift
/// final class JSONFileStore: AtomicStore {
///     override class var storeType: String { "JSONFile" }
///
///     struct Record: Codable {
///         var entity: String
///         var reference: ReferenceObject
///         var attributes: [String: StoreValue]
///         var toOne: [String: ReferenceObject]
///         var toMany: [String: [ReferenceObject]]
///     }
///     struct File: Codable {
///         var metadata: StoreMetadata
///         var records: [Record]
///     }
///
///     override func load() throws {
///         guard let url, let data = try? Data(contentsOf: url), !data.isEmpty else { return }  // a new store
///         let file = try JSONDecoder().decode(File.self, from: data)
///         metadata = file.metadata  // first: object IDs carry the store identifier
///         let entities = Dictionary(file.records.map { ($0.reference, $0.entity) }) { first, _ in first }
///         func id(_ reference: ReferenceObject) -> ObjectID {
///             objectID(for: entities[reference] ?? "", referenceObject: reference)
///         }
///         addCacheNodes(file.records.map { record in
///             AtomicStoreCacheNode(
///                 objectID: id(record.reference), attributes: record.attributes,
///                 toOne: record.toOne.mapValues(id), toMany: record.toMany.mapValues { $0.map(id) })
///         })
///     }
///
///     override func save() throws {
///         guard let url else { return }
///         var records: [Record] = []
///         forEachCacheNode { node in
///             func reference(_ id: ObjectID) -> ReferenceObject { id.referenceObject ?? .int(0) }
///             records.append(Record(
///                 entity: node.entityName, reference: reference(node.objectID), attributes: node.attributes,
///                 toOne: node.toOne.mapValues(reference), toMany: node.toMany.mapValues { $0.map(reference) }))
///         }
///         try AtomicFileWriter.write(JSONEncoder().encode(File(metadata: metadata, records: records)), to: url)
///     }
/// }
///
/// StoreRegistry.shared.register(JSONFileStore.self)
/// ```
///
/// Override the hooks only to change a default: ``newReferenceObject(for:)`` (a UUID string),
/// ``newCacheNode(for:)``, ``updateCacheNode(_:from:)``, ``willRemoveCacheNodes(_:)``; and
/// ``metadata(forStoreAt:options:)`` / ``setMetadata(_:forStoreAt:options:)`` so the metadata can
/// be read and written without adding the store. In ``load()``, set ``metadata`` before creating
/// object IDs (an ID carries the store identifier, `NSStoreUUID`); a file of another type must
/// fail with 134010 (``StoreError/Code/persistentStoreTypeMismatch``) without being modified.
/// ``save()`` should write through ``AtomicFileWriter`` so a crash never leaves a partial file.
///
/// Relationships of cache nodes point at nodes of this store only: a save that relates an object
/// to another store's object fails with 133010 (``StoreError/Code/managedObjectExternalRelationship``)
/// before ``save()`` is called. When an object is deleted, the framework takes it out of the
/// inverse relationships of the nodes it was related to — except through a relationship whose
/// delete rule is No Action, whose destinations keep their dangling reference, as Core Data's
/// do, until the caller fixes it; relationships without an inverse dangle the same way. A
/// dangling reference lives in the cache only: ``save()`` writes only references that
/// ``containsCacheNode(for:)`` confirms, so a file never holds a reference it could not load.
///
/// Thread safety: like every store, an atomic store is used only under its coordinator's lock.
open class AtomicStore: PersistentStore {
    /// The registered type name; override it.
    open class var storeType: String { "Atomic" }
    /// Persistent, atomic file writes, honours read-only.
    open class var capabilities: StoreCapabilities { [.persistent, .atomicFile, .readOnly] }
    /// nil: a subclass that lists its options (an empty list when it reads none of its own)
    /// has any other option key refused by the configuration target.
    open class var supportedOptions: [StoreOption]? { nil }

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
    /// What the file may hold (``StoreLimits``, from the options): the file size is checked
    /// before ``load()``, the object count and value lengths as ``load()`` adds cache nodes.
    public let limits: StoreLimits
    /// Metadata; changing it makes the next save write the file even without object changes.
    public var metadata: StoreMetadata {
        didSet { metadataChanged = true }
    }
    /// Whether metadata changed since the last load or save.
    public private(set) var metadataChanged = false
    private var tables = EntityNodeTables()
    /// What ``loadFromFile()`` checks against ``limits`` while ``load()`` adds nodes; nil
    /// outside it.
    private var loadLimitCheck: LoadLimitCheck?
    /// The store identifier the added nodes' IDs carry, while they all carry the same one
    /// (checked cheaply per added node, as a pointer, so that loading a file needs no second
    /// pass over the nodes to find IDs made before ``load()`` set the metadata).
    private var addedNodesStore: InternedName?
    /// Whether added nodes' IDs carry different store identifiers.
    private var addedNodesHaveSeveralIdentifiers = false
    /// What the running ``save()`` changed beyond the request (``replaceObjectIDs(_:)``,
    /// ``replaceCacheNodeWhileSaving(_:)``); empty outside a save.
    private var changesWhileSaving = SaveOutcome()
    /// The running save's ``SaveChangesRequest/keptObjectIDs``.
    private var keptObjectIDs: Set<ObjectID> = []

    /// The store identifier: the metadata's `NSStoreUUID`.
    public var identifier: String { metadata[MetadataKey.storeUUID]?.stringValue ?? "" }

    /// Creates an empty store with fresh metadata; ``load()`` then reads the file.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.isReadOnly = Self.isReadOnly(options: options)
        self.limits = try StoreLimits(options: options)
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
        .string(UUIDGenerator.next().uuidString)
    }

    /// The cache node for an inserted object (default: the snapshot itself).
    open func newCacheNode(for snapshot: StoreNode) -> AtomicStoreCacheNode { snapshot }

    /// Updates a cache node from a changed object's snapshot (default: takes its attributes and
    /// to-ones, and the to-manys it carries). A node in its entity's compiled slots stays in them.
    open func updateCacheNode(_ node: inout AtomicStoreCacheNode, from snapshot: StoreNode) {
        if let layout = node.layout, layout.isCompiled {  // a compiled layout has a slot for every property
            let (values, snapshotToManys) = snapshot.slots(in: layout)
            var toManys = node.slots(in: layout).toManys
            for slot in toManys.indices where snapshotToManys[slot] != nil { toManys[slot] = snapshotToManys[slot] }
            node = AtomicStoreCacheNode(objectID: node.objectID, layout: layout, values: values, toManys: toManys, version: node.version)
            return
        }
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

    /// Every cache node, grouped by entity (in model order), each entity in insertion order.
    /// ``forEachCacheNode(_:)`` visits the same nodes without building an array.
    public var cacheNodes: [AtomicStoreCacheNode] {
        var nodes: [AtomicStoreCacheNode] = []
        nodes.reserveCapacity(cacheNodeCount)
        forEachCacheNode { nodes.append($0) }
        return nodes
    }

    /// Calls `body` for every cache node, in the order of ``cacheNodes``; what a streaming
    /// ``save()`` uses.
    public func forEachCacheNode(_ body: (AtomicStoreCacheNode) throws -> Void) rethrows {
        for entityName in model.entityNames {
            try tables[entityName]?.forEach(body)
        }
    }

    /// Calls `body` for every cache node of one entity (not its sub-entities), in insertion
    /// order, without building an array.
    public func forEachCacheNode(ofEntity entityName: String, _ body: (AtomicStoreCacheNode) throws -> Void) rethrows {
        try tables[entityName]?.forEach(body)
    }

    /// The number of cache nodes.
    public var cacheNodeCount: Int { tables.count }

    /// The number of cache nodes of one entity (not its sub-entities).
    public func cacheNodeCount(ofEntity entityName: String) -> Int { tables[entityName]?.count ?? 0 }

    /// Makes room for `count` nodes of an entity in all (during ``load()``, before adding a
    /// known number of nodes), so that adding them does not rehash.
    public func reserveCacheCapacity(_ count: Int, ofEntity entityName: String) {
        tables.reserveCapacity(count, ofEntity: entityName)
    }

    /// Adds nodes to the cache (during ``load()``), replacing nodes with the same ID.
    public func addCacheNodes(_ nodes: [AtomicStoreCacheNode]) {
        for node in nodes { addCacheNode(node) }
    }

    /// Adds one node to the cache (during ``load()``), replacing a node with the same ID.
    public func addCacheNode(_ node: consuming AtomicStoreCacheNode) {
        if var check = loadLimitCheck {
            check.add(node, limits: limits)
            loadLimitCheck = check
        }
        addCheckedCacheNode(node)
    }

    /// Adds one node to the cache (during ``load()``) whose reader already checked the object
    /// count and every string and binary value's length against ``limits`` before building
    /// them (the built-in stores' readers do), so the load's own check of each added node is
    /// left out; replaces a node with the same ID.
    package func addCheckedCacheNode(_ node: consuming AtomicStoreCacheNode) {
        if let added = node.objectID.internedScope.store, added !== addedNodesStore {
            if addedNodesStore != nil { addedNodesHaveSeveralIdentifiers = true }
            addedNodesStore = added
        }
        tables.upsert(node)
    }

    /// The cache node for an ID.
    public func cacheNode(for objectID: ObjectID) -> AtomicStoreCacheNode? {
        tables[entityOf: objectID]?.node(for: objectID)
    }

    /// Whether the cache holds a node for the ID: false for a reference left dangling by a
    /// deleted object (No Action, or a relationship without an inverse), which a ``save()``
    /// must not write.
    public func containsCacheNode(for objectID: ObjectID) -> Bool {
        tables[entityOf: objectID]?.contains(objectID) ?? false
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

    /// Gives saved objects other IDs, during ``save()``: for a format whose keys are chosen
    /// when it writes (a SwiftData `DataStore` remaps each inserted object's identifier). The
    /// cache nodes move to the new IDs, with every relationship pointing at them; when the save
    /// succeeds the saving context's objects take the new IDs (as they took their permanent
    /// ones), so fetches, faults and the store reopened later agree. A failed save undoes it.
    ///
    /// IDs the application obtained before the save (``SaveChangesRequest/keptObjectIDs``)
    /// are not replaced. Returns the replacements made.
    @discardableResult
    public func replaceObjectIDs(_ replacements: [ObjectID: ObjectID]) -> [ObjectID: ObjectID] {
        let replacements = replacements.filter { $0.key != $0.value && !keptObjectIDs.contains($0.key) }
        guard !replacements.isEmpty else { return [:] }
        func replaced(_ id: ObjectID) -> ObjectID { replacements[id] ?? id }
        // The nodes that move or point at one that moves: taken out under their old IDs,
        // added back under their new ones.
        var moved: [(old: ObjectID, node: AtomicStoreCacheNode)] = []
        forEachCacheNode { node in
            let refers =
                replacements[node.objectID] != nil || node.toOne.values.contains { replacements[$0] != nil }
                || node.toMany.values.contains { $0.contains { replacements[$0] != nil } }
            guard refers else { return }
            var copy = node
            copy.objectID = replaced(node.objectID)
            copy.toOne = node.toOne.mapValues(replaced)
            copy.toMany = node.toMany.mapValues { $0.map(replaced) }
            moved.append((node.objectID, copy))
        }
        for (old, _) in moved { tables.remove(old) }
        for (_, node) in moved { tables.upsert(node) }
        for (old, new) in replacements {
            // A second replacement of an ID replaced earlier in the same save keeps the first ID as the key.
            let first = changesWhileSaving.replacedObjectIDs.first { $0.value == old }?.key ?? old
            changesWhileSaving.replacedObjectIDs[first] = new
            if changesWhileSaving.changedObjectIDs.remove(old) != nil { changesWhileSaving.changedObjectIDs.insert(new) }
        }
        return replacements
    }

    /// Replaces the cache node of a saved object with values the store chose while writing it,
    /// during ``save()`` (a SwiftData `DataStore`'s `snapshotsToReregister`): the saving
    /// context's object takes these values as saved. The node keeps its ID and version.
    public func replaceCacheNodeWhileSaving(_ node: AtomicStoreCacheNode) {
        guard let current = cacheNode(for: node.objectID) else { return }
        var replacement = node
        replacement.version = current.version
        tables.upsert(replacement)
        changesWhileSaving.changedObjectIDs.insert(replacement.objectID)
    }

    // MARK: Used by the coordinator

    /// Loads the file; the metadata just read counts as written. A file whose metadata has no
    /// `NSStoreUUID` gets a new identifier (written at the next save), and nodes created before
    /// ``load()`` set the metadata are moved to the store's final identifier.
    func loadFromFile() throws {
        let initialIdentifier = identifier
        if let url, let size = try StoreFile.regularFileSize(at: url, storeType: Self.storeType) {
            try limits.checkFileSize(size, of: url)
        }
        loadLimitCheck = LoadLimitCheck()
        defer { loadLimitCheck = nil }
        try load()
        if let problem = loadLimitCheck?.problem {
            throw StoreError(
                .persistentStoreOpen, "\(url?.path ?? "The store file"): \(problem)", fileURL: url, entityName: problem.entityName)
        }
        if identifier.isEmpty {
            metadata[MetadataKey.storeUUID] = .string(UUID().uuidString)
        }
        if metadata[MetadataKey.storeType] == nil {
            metadata[MetadataKey.storeType] = .string(Self.storeType)
        }
        if identifier != initialIdentifier && (addedNodesHaveSeveralIdentifiers || addedNodesStore?.text == initialIdentifier) {
            rekeyNodes(from: initialIdentifier)
        }
        metadataChanged = false
    }

    /// Moves object IDs that still carry `oldIdentifier` (created before ``load()`` set the
    /// metadata) to the current identifier.
    private func rekeyNodes(from oldIdentifier: String) {
        let newIdentifier = identifier
        func rekey(_ id: ObjectID) -> ObjectID {
            guard id.storeIdentifier == oldIdentifier, let reference = id.referenceObject else { return id }
            return ObjectID(storeIdentifier: newIdentifier, entityName: id.entityName, reference: reference)
        }
        var stale = false
        forEachCacheNode { node in
            if node.objectID.storeIdentifier == oldIdentifier { stale = true }
        }
        guard stale else { return }
        let old = tables
        tables = EntityNodeTables()
        for entityName in model.entityNames {
            old[entityName]?.forEach { node in
                var moved = node
                moved.objectID = rekey(node.objectID)
                moved.toOne = node.toOne.mapValues(rekey)
                moved.toMany = node.toMany.mapValues { $0.map(rekey) }
                addCacheNode(moved)
            }
        }
    }

    /// Answers a fetch the coordinator validated already.
    func execute(_ request: FetchRequest) throws -> StoreResult {
        if request.resultType == .count, request.predicate == nil || request.predicate == .truePredicate {
            // Counting every object needs no node: the tables know their sizes (an array of
            // every node would copy each one).
            let total = request.matchingEntityNames(in: model).reduce(0) { $0 + (tables[$1]?.count ?? 0) }
            return .count(QueryEngine.window(0..<total, offset: request.fetchOffset, limit: request.fetchLimit).count)
        }
        let nodes = request.matchingEntityNames(in: model).flatMap { tables[$0]?.nodes ?? [] }
        return try QueryEngine.execute(request, over: nodes, graph: nodeGraph, validating: false)
    }

    /// The cache seen as a graph, for evaluating key paths across relationships.
    public var nodeGraph: NodeGraph {
        NodeGraph(model: model, node: { [tables] id in tables[entityOf: id]?.node(for: id) })
    }

    func obtainPermanentIDs(for objectIDs: [ObjectID]) -> [ObjectID] {
        objectIDs.map { objectID(for: $0.entityName, referenceObject: newReferenceObject(for: $0.entityName)) }
    }

    /// Applies a save to the cache and calls ``save()`` once; on any failure the cache and
    /// metadata are as before. Nothing is written when nothing changed. A read-only store
    /// refuses object changes (134070); metadata set on it stays in memory and is never written.
    func apply(_ request: SaveChangesRequest) throws -> SaveOutcome {
        if request.isEmpty && !metadataChanged { return SaveOutcome() }
        if isReadOnly {
            if request.isEmpty { return SaveOutcome() }
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
        changesWhileSaving = SaveOutcome()
        keptObjectIDs = request.keptObjectIDs
        defer {
            changesWhileSaving = SaveOutcome()
            keptObjectIDs = []
        }
        do {
            var outcome = SaveOutcome()
            outcome.versions = try applyChanges(request)
            try save()
            metadataChanged = false
            outcome.replacedObjectIDs = changesWhileSaving.replacedObjectIDs
            outcome.changedObjectIDs = changesWhileSaving.changedObjectIDs
            if !outcome.replacedObjectIDs.isEmpty {
                var versions: [ObjectID: Int64] = [:]
                for (id, version) in outcome.versions { versions[outcome.replacedObjectIDs[id] ?? id] = version }
                outcome.versions = versions
            }
            return outcome
        } catch {
            tables = savedTables
            metadata = savedMetadata
            metadataChanged = savedMetadataChanged
            throw error
        }
    }

    /// Changes the cache as the request says and checks that every relationship still points at
    /// a node of this store.
    private func applyChanges(_ request: SaveChangesRequest) throws -> [ObjectID: Int64] {
        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(request.insertedObjects.count + request.updatedObjects.count)
        for snapshot in request.insertedObjects {
            var node = newCacheNode(for: snapshot)
            node.version = 1
            // A cache node carries every to-many relationship; an inserted object's unset ones are empty.
            for relationship in model.relationships(of: node.entityName)
            where relationship.isToMany && !relationship.isTransient && node.destinations(forToMany: relationship.name) == nil {
                node.setDestinations([], forToMany: relationship.name)
            }
            addCacheNode(node)
            versions[node.objectID] = 1
        }
        for snapshot in request.updatedObjects {
            // Changed outside the table so that an overridden hook may read the cache.
            guard var node = cacheNode(for: snapshot.objectID) else { continue }
            updateCacheNode(&node, from: snapshot)
            node.version += 1
            addCacheNode(node)
            versions[node.objectID] = node.version
        }
        let removed = request.deletedObjects.compactMap { cacheNode(for: $0.objectID) }
        willRemoveCacheNodes(removed)
        for node in removed { tables.remove(node.objectID) }
        removeFromInverses(removed)
        for changed in [request.insertedObjects, request.updatedObjects] {
            for node in changed {
                guard let current = cacheNode(for: node.objectID) else { continue }
                try checkReferences(of: current)
            }
        }
        return versions
    }

    /// Takes deleted nodes out of the inverse relationships of the nodes they were related to
    /// (whatever the context sent for those nodes), except through No Action relationships.
    private func removeFromInverses(_ removed: [AtomicStoreCacheNode]) {
        for deleted in removed {
            for relationship in model.relationships(of: deleted.entityName) where relationship.deleteRule != .noAction {
                guard let inverse = model.inverse(of: relationship) else { continue }
                let destinations =
                    relationship.isToMany
                    ? deleted.destinations(forToMany: relationship.name) ?? []
                    : deleted.destination(forToOne: relationship.name).map { [$0] } ?? []
                for destination in destinations {
                    tables.modify(destination) { node in
                        if inverse.isToMany {
                            if var sources = node.destinations(forToMany: inverse.name) {
                                sources.removeAll { $0 == deleted.objectID }
                                node.setDestinations(sources, forToMany: inverse.name)
                            }
                        } else if node.destination(forToOne: inverse.name) == deleted.objectID {
                            node.setDestination(nil, forToOne: inverse.name)
                        }
                    }
                }
            }
        }
    }

    /// Fails with 133010 when a relationship of `node` points at another store's object, and
    /// with 134030 for a temporary ID (an object never saved).
    private func checkReferences(of node: AtomicStoreCacheNode) throws {
        if let layout = node.layout {
            // Slots: no dictionary is built; a name is looked up only for a failure.
            let (values, toManys) = node.slots(in: layout)
            for slot in layout.attributeCount..<layout.valueCount {
                if case .objectID(let destination) = values[slot] {
                    try checkReference(from: node, relationship: layout.name(ofValueSlot: slot), to: destination)
                }
            }
            for (slot, destinations) in toManys.enumerated() {
                for destination in destinations ?? [] {
                    try checkReference(from: node, relationship: layout.toManyNames[slot], to: destination)
                }
            }
            return
        }
        for (name, destination) in node.toOne {
            try checkReference(from: node, relationship: name, to: destination)
        }
        for (name, destinations) in node.toMany {
            for destination in destinations {
                try checkReference(from: node, relationship: name, to: destination)
            }
        }
    }

    private func checkReference(from node: AtomicStoreCacheNode, relationship: String, to destination: ObjectID) throws {
        guard destination.storeIdentifier != identifier else { return }
        let source = "\(node.entityName) \(node.objectID.referenceObject?.description ?? "\(node.objectID)")"
        guard destination.isTemporaryID else {
            throw StoreError(
                .managedObjectExternalRelationship,
                "\(source): relationship \(relationship) refers to \(destination), an object of another store; relationships cannot cross stores",
                objectIDs: [node.objectID, destination], entityName: node.entityName, propertyName: relationship)
        }
        throw StoreError(
            .persistentStoreSave,
            "\(source): relationship \(relationship) refers to an object that was never saved (\(destination))",
            objectIDs: [node.objectID, destination], entityName: node.entityName, propertyName: relationship)
    }
}
