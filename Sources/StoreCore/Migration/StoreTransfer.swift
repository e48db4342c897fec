import Foundation

/// Reading every object out of a store and writing objects into another, through the store
/// protocols only, so that copying and migrating work for every store type (custom ones too).
///
/// Objects travel as ``StoreNode``s in their entity's compiled slots: a node read from a store
/// keeps its layout, and a node written is built slot by slot, never through dictionaries keyed
/// by property name.
enum StoreTransfer {
    /// Reads the file of a store object that is not added to a coordinator: ``IncrementalStore/loadMetadata()``
    /// or the atomic store's load, with its checks.
    static func load(_ store: any PersistentStore) throws {
        if let incremental = store as? any IncrementalStore {
            try incremental.loadMetadata()
        } else if let atomic = store as? AtomicStore {
            try atomic.loadFromFile()
        } else {
            throw unsupported(store)
        }
    }

    /// The entities whose objects a store holds and can hold: those of its configuration that
    /// are not abstract, in model order.
    static func storedEntities(of store: any PersistentStore) -> [String] {
        store.model.entityNames.filter { name in
            store.holds(entityName: name) && store.model.entity(named: name)?.isAbstract == false
        }
    }

    /// Every object of a store, entity by entity (each entity's own objects, not its
    /// sub-entities'), with every persistent to-many relationship loaded (in order for ordered
    /// ones).
    static func nodes(of store: any PersistentStore) throws -> [StoreNode] {
        if let atomic = store as? AtomicStore { return atomic.cacheNodes }
        guard let incremental = store as? any IncrementalStore else { throw unsupported(store) }
        var result: [StoreNode] = []
        for entityName in storedEntities(of: store) {
            var request = FetchRequest(entityName: entityName)
            request.includesSubentities = false
            request.returnsObjectsAsFaults = false
            request.includesPendingChanges = false
            guard case .nodes(let found) = try incremental.execute(.fetch(request)) else {
                throw StoreError(
                    .migration, "The \(type(of: store).storeType) store did not answer a fetch of \(entityName) with objects",
                    fileURL: store.url, entityName: entityName)
            }
            let toManys = store.model.relationships(of: entityName).filter { $0.isToMany && !$0.isTransient }
            result.reserveCapacity(result.count + found.count)
            for var node in found {
                for relationship in toManys where node.destinations(forToMany: relationship.name) == nil {
                    let ids = try incremental.newValue(forRelationship: relationship.name, forObjectWith: node.objectID)
                    node.setDestinations(ids, forToMany: relationship.name)
                }
                result.append(node)
            }
        }
        return result
    }

    /// The number of objects a store holds.
    static func count(of store: any PersistentStore) throws -> Int {
        if let atomic = store as? AtomicStore { return atomic.cacheNodeCount }
        guard let incremental = store as? any IncrementalStore else { throw unsupported(store) }
        var total = 0
        for entityName in storedEntities(of: store) {
            var request = FetchRequest(entityName: entityName)
            request.includesSubentities = false
            request.resultType = .count
            if case .count(let count) = try incremental.execute(.fetch(request)) { total += count }
        }
        return total
    }

    /// Writes `nodes` into an empty, loaded store in one save (all or nothing). Every node's ID
    /// must already belong to `store` (see ``remap(_:to:)``).
    static func write(_ nodes: [StoreNode], to store: any PersistentStore) throws {
        let request = SaveChangesRequest(insertedObjects: nodes)
        if let incremental = store as? any IncrementalStore {
            guard case .saved = try incremental.execute(.save(request)) else {
                throw StoreError(.migration, "The \(type(of: store).storeType) store did not answer the save of migrated objects", fileURL: store.url)
            }
        } else if let atomic = store as? AtomicStore {
            _ = try atomic.apply(request)
        } else {
            throw unsupported(store)
        }
    }

    /// Gives `nodes` IDs of `store` (minted by the store, as for new objects) and points every
    /// relationship at the new IDs; a destination that is not among `nodes` (a dangling
    /// reference) is dropped.
    static func remap(_ nodes: [StoreNode], to store: any PersistentStore) throws -> [StoreNode] {
        let temporary = nodes.map { ObjectID.temporary(entityName: $0.entityName) }
        let permanent: [ObjectID]
        if let incremental = store as? any IncrementalStore {
            permanent = try incremental.obtainPermanentIDs(for: temporary)
        } else if let atomic = store as? AtomicStore {
            permanent = atomic.obtainPermanentIDs(for: temporary)
        } else {
            throw unsupported(store)
        }
        guard permanent.count == nodes.count else {
            throw StoreError(
                .migration, "The \(type(of: store).storeType) store returned \(permanent.count) IDs for \(nodes.count) objects",
                fileURL: store.url)
        }
        var mapping: [ObjectID: ObjectID] = Dictionary(minimumCapacity: nodes.count)
        for (node, id) in zip(nodes, permanent) { mapping[node.objectID] = id }
        return try nodes.map { node in
            guard let id = mapping[node.objectID] else { return node }  // every node has an entry (built above)
            return try rebuild(node, as: id, in: store.model) { mapping[$0] }
        }
    }

    /// A node of `model`'s layout for `id` with `node`'s values, every relationship destination
    /// passed through `destination` (nil drops it).
    static func rebuild(
        _ node: StoreNode, as id: ObjectID, in model: ObjectModel, destination: (ObjectID) -> ObjectID?
    ) throws -> StoreNode {
        guard let layout = model.layout(ofEntity: id.entityName) else {
            throw StoreError(.migration, "The model has no entity named \(id.entityName)", entityName: id.entityName)
        }
        var (values, toManys) = node.slots(in: layout)
        for slot in layout.attributeCount..<layout.valueCount {
            if case .objectID(let old) = values[slot] { values[slot] = destination(old).map(StoreValue.objectID) ?? .null }
        }
        for slot in toManys.indices {
            if let ids = toManys[slot] { toManys[slot] = ids.compactMap(destination) }
        }
        return StoreNode(objectID: id, layout: layout, values: values, toManys: toManys, version: node.version)
    }

    static func unsupported(_ store: any PersistentStore) -> StoreError {
        StoreError(
            .persistentStoreUnsupportedRequestType,
            "\(type(of: store).storeType) store: \(type(of: store)) is neither an IncrementalStore nor an AtomicStore",
            fileURL: store.url)
    }
}
