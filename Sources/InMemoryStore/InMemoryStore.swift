import Foundation
import StoreCore

/// An incremental store whose tables live in memory: nothing is written, the data lives as long
/// as the store is added. Registered as "InMemory"; works with `url == nil`.
///
/// Like Core Data's in-memory store, it takes a URL only as a name: nothing is read from or
/// written to it (an existing file there is left as it is), the store's handle keeps it, and
/// the coordinator finds the store by it (`persistentStore(for:)`) and refuses a second store
/// at the same URL. So code written for a file store can pass its URL unchanged.
///
/// ```swift
/// let store = try coordinator.addPersistentStore(type: InMemoryStore.storeType)
/// ```
///
/// Each entity has its own table of nodes in insertion order; primary keys are integers handed
/// out per inheritance tree (like SQLite's `Z_PK`). To-one relationships are indexed by
/// destination, so a to-many whose inverse is a to-one (`team.players`) is answered from the
/// index of `player.team` instead of a scan, and is not stored twice. Ordered to-manys,
/// many-to-manys and to-manys without an inverse are stored on the node.
public final class InMemoryStore: IncrementalStore {
    /// "InMemory".
    public static let storeType = "InMemory"
    /// Incremental; needs no URL; not persistent.
    public static var capabilities: StoreCapabilities { [.incremental, .noURL, .readOnly] }
    /// None besides the standard options.
    public static var supportedOptions: [StoreOption]? { [] }

    /// The coordinator's model.
    public let model: ObjectModel
    /// The configuration the store holds.
    public let configurationName: String?
    /// The store's name when it was added with a URL; no file is read or written there.
    public let url: URL?
    /// The options given when the store was added.
    public let options: StoreOptions
    /// Whether saves are refused.
    public let isReadOnly: Bool
    /// The store identifier (`NSStoreUUID`).
    public let identifier: String
    /// The metadata, kept in memory.
    public var metadata: StoreMetadata

    /// Each entity's nodes, by the entity's interned number (``ObjectID/entityNumber``), so that
    /// finding a node by its ID hashes an integer, not the entity's name.
    private var tables: [Int: NodeTable] = [:]
    /// The interned number of each entity of the model, for reading a table by entity name.
    private let entityNumbers: [String: Int]
    private var lastPrimaryKey: [String: Int64] = [:]
    /// entity → relationship names whose to-many is derived from the inverse's to-one index.
    private let derivedToMany: [String: Set<String>]
    /// entity → its indexes (to-one destinations, indexed attributes), reached by one lookup
    /// per node and changed in place.
    private let indexes: [String: EntityIndexes]
    /// The same indexes by interned entity number, so a node's are found by its ID without
    /// hashing its entity's name.
    private let indexesByNumber: [EntityIndexes?]

    /// One entity's indexes: for each to-one relationship, destination → sources; for each
    /// indexed attribute (inherited ones included), value → objects. Slots are resolved once,
    /// when the store is created, so indexing a node reads its slot arrays and hashes no name.
    private final class EntityIndexes {
        let layout: EntityLayout
        /// Value slots and names of the to-one relationships (transient ones excluded).
        let toOnes: [(slot: Int, name: String)]
        /// Value slots, names and types of the indexed attributes.
        let indexed: [(slot: Int, name: String, type: AttributeType)]
        /// Relationship names whose to-many is derived from an inverse to-one index.
        let derived: [(slot: Int, name: String)]
        var toOneIndex: [[ObjectID: Set<ObjectID>]]
        var attributeIndex: [[StoreValue: IndexEntry]]

        init(layout: EntityLayout, derived: Set<String>) {
            self.layout = layout
            var toOnes: [(slot: Int, name: String)] = []
            for (offset, relationship) in layout.toOnes.enumerated() where !relationship.isTransient {
                toOnes.append((layout.attributeCount + offset, relationship.name))
            }
            self.toOnes = toOnes
            var indexed: [(slot: Int, name: String, type: AttributeType)] = []
            for (slot, attribute) in layout.attributes.enumerated() where attribute.isIndexed && !attribute.isTransient {
                indexed.append((slot, attribute.name, attribute.type))
            }
            self.indexed = indexed
            self.derived = derived.sorted().compactMap { name in layout.toManySlot(of: name).map { ($0, name) } }
            self.toOneIndex = Array(repeating: [:], count: toOnes.count)
            self.attributeIndex = Array(repeating: [:], count: indexed.count)
        }

        /// The position in ``toOneIndex`` of a to-one relationship.
        func toOnePosition(of name: String) -> Int? { toOnes.firstIndex { $0.name == name } }

        /// The position in ``attributeIndex`` of an indexed attribute.
        func indexedPosition(of name: String) -> Int? { indexed.firstIndex { $0.name == name } }
    }

    /// What a fetch of one shape compiles to in this store (``FetchRequestShape``): the
    /// entities it reads and, when an index applies, which conjunct it uses. Made when a shape is
    /// first fetched (and the request validated then); requests of that shape with other
    /// constants reuse it.
    ///
    /// A class, so that the coordinator can keep it with its own compiled request and hand it
    /// back with each request of the shape (``FetchCompilingStore``).
    private final class FetchPlan {
        let entities: [String]
        let index: IndexPlan?

        init(entities: [String], index: IndexPlan?) {
            self.entities = entities
            self.index = index
        }
    }

    /// How an index narrows a fetch: the top-level conjunct `key == constant` it answers, the
    /// index of each matching entity that holds it, and whether the index's objects are exactly
    /// the result.
    private struct IndexPlan {
        /// The position of the conjunct among the predicate's top-level conjuncts.
        let conjunct: Int
        /// The attribute's type, or nil for a to-one relationship (the constant an object ID).
        let attributeType: AttributeType?
        /// The indexes to read, in the order of the matching entities, with their positions.
        let lookups: [(indexes: EntityIndexes, position: Int)]
        /// The conjunct is the whole predicate and compares values whose equality is identity.
        let isExact: Bool
        /// Entity name → its place among the matching entities (to order the IDs found).
        let entityOrder: [String: Int]
    }

    /// Compiled fetches by shape (the store is used under its coordinator's lock), for fetches
    /// that come without the coordinator's compiled plan (``FetchCompilingStore``).
    private var plans = CompiledRequestCache<FetchRequestShape, FetchPlan>(capacity: 128)

    /// How many fetches looked their plan up in the store's own cache (found or not): fetches
    /// that did not come with the coordinator's compiled plan.
    package var ownPlanLookups: Int { plans.hits + plans.misses }

    /// The objects with one value of an indexed attribute: one ID without a set (the common
    /// case of a unique key), or a set.
    private enum IndexEntry {
        case one(ObjectID)
        case many(Set<ObjectID>)

        var ids: [ObjectID] {
            switch self {
            case .one(let id): return [id]
            case .many(let ids): return Array(ids)
            }
        }

        /// The entry with `id` added.
        func adding(_ id: ObjectID) -> IndexEntry {
            switch self {
            case .one(let existing): return existing == id ? self : .many([existing, id])
            case .many(var ids):
                ids.insert(id)
                return .many(ids)
            }
        }

        /// The entry without `id`; nil when nothing is left.
        func removing(_ id: ObjectID) -> IndexEntry? {
            switch self {
            case .one(let existing): return existing == id ? nil : self
            case .many(var ids):
                ids.remove(id)
                if ids.count == 1, let last = ids.first { return .one(last) }
                return ids.isEmpty ? nil : .many(ids)
            }
        }
    }

    /// Creates an empty store.
    public init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.options = options
        self.isReadOnly = Self.isReadOnly(options: options)
        let identifier = UUID().uuidString
        self.identifier = identifier
        self.metadata = Self.standardMetadata(identifier: identifier, model: model)
        var derived: [String: Set<String>] = [:]
        for entity in model.entityNames {
            for relationship in model.relationships(of: entity) where relationship.isToMany && !relationship.isOrdered {
                if let inverse = model.inverse(of: relationship), !inverse.isToMany {
                    derived[entity, default: []].insert(relationship.name)
                }
            }
        }
        self.derivedToMany = derived
        var indexes: [String: EntityIndexes] = [:]
        for entity in model.entityNames {
            guard let layout = model.layout(ofEntity: entity) else { continue }  // the model compiles every entity
            indexes[entity] = EntityIndexes(layout: layout, derived: derived[entity] ?? [])
        }
        self.indexes = indexes
        var numbers: [String: Int] = [:]
        var byNumber: [EntityIndexes?] = []
        for entity in model.entityNames {
            let number = ObjectID.entityNumber(of: entity)
            numbers[entity] = number
            if byNumber.count <= number { byNumber += Array(repeating: nil, count: number + 1 - byNumber.count) }
            byNumber[number] = indexes[entity]
        }
        self.entityNumbers = numbers
        self.indexesByNumber = byNumber
    }

    /// Nothing to read.
    public func loadMetadata() throws {}

    /// There is no file to read metadata from: throws 134070.
    public static func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        throw StoreError(.persistentStoreOperation, "An InMemory store has no file to read metadata from", fileURL: url)
    }

    /// There is no file to write metadata to: throws 134070.
    public static func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        throw StoreError(.persistentStoreOperation, "An InMemory store has no file to write metadata to", fileURL: url)
    }

    // MARK: Requests

    /// Answers fetches with the shared `QueryEngine` and applies saves all-or-nothing.
    public func execute(_ request: StoreRequest) throws -> StoreResult {
        switch request {
        case .fetch(let fetch):
            return try self.fetch(fetch, plan: try plan(for: fetch))
        case .save(let save):
            return .saved(versions: try apply(save))
        case .batchUpdate, .batchDelete, .batchInsert:
            throw StoreError(
                .persistentStoreUnsupportedRequestType, "The InMemory store does not run batch requests (it lacks the batchRequests capability)")
        }
    }

    /// Answers a fetch with its compiled plan.
    private func fetch(_ fetch: FetchRequest, plan: FetchPlan) throws -> StoreResult {
        var nodes: [StoreNode] = []
        if let (candidates, isExact) = indexedCandidates(for: fetch, plan: plan) {
            nodes.reserveCapacity(candidates.count)
            for id in candidates {
                if let node = tables[id.entityNumber]?.node(for: id) { nodes.append(complete(node)) }
            }
            if isExact, fetch.resultType == .managedObjects, fetch.sortKeys.isEmpty {
                // The index found exactly the objects the predicate selects (an equality with
                // a constant of the attribute's own kind is all the predicate is), and the
                // plan validated the request: only offset and limit remain.
                if fetch.fetchOffset <= 0 && (fetch.fetchLimit <= 0 || fetch.fetchLimit >= nodes.count) { return .nodes(nodes) }
                return .nodes(Array(QueryEngine.window(nodes, offset: fetch.fetchOffset, limit: fetch.fetchLimit)))
            }
        } else {
            for entity in plan.entities {
                guard let number = entityNumbers[entity] else { continue }
                tables[number]?.forEach { nodes.append(complete($0)) }
            }
        }
        let graph = NodeGraph(model: model) { [self] id in tables[id.entityNumber]?.node(for: id).map(complete) }
        return try QueryEngine.execute(fetch, over: nodes, graph: graph, validating: false)
    }

    /// The node of an object, with every to-many filled; 133000 when it does not exist.
    public func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode {
        guard let node = tables[objectID.entityNumber]?.node(for: objectID) else { throw missing(objectID) }
        return complete(node)
    }

    /// The destinations of one relationship of one object.
    public func newValue(forRelationship relationshipName: String, forObjectWith objectID: ObjectID) throws -> [ObjectID] {
        guard let node = tables[objectID.entityNumber]?.node(for: objectID) else { throw missing(objectID) }
        if let id = node.destination(forToOne: relationshipName) { return [id] }
        return toMany(relationshipName, of: node)
    }

    /// Integer reference objects, one counter per inheritance tree, in the order given.
    public func obtainPermanentIDs(for objectIDs: [ObjectID]) throws -> [ObjectID] {
        try objectIDs.map { id in
            guard let root = model.rootEntityName(of: id.entityName) else {
                throw StoreError(.coreData, "The model has no entity named \(id.entityName)", entityName: id.entityName)
            }
            let next = (lastPrimaryKey[root] ?? 0) + 1
            lastPrimaryKey[root] = next
            return newObjectID(for: id.entityName, referenceObject: .int(next))
        }
    }

    // MARK: Internals

    private func missing(_ objectID: ObjectID) -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "Object \(objectID) does not exist in the InMemory store \(identifier)",
            objectIDs: [objectID], entityName: objectID.entityName)
    }

    /// Adds the derived to-manys to a stored node.
    private func complete(_ node: StoreNode) -> StoreNode {
        guard let derived = entityIndexes(of: node.objectID)?.derived, !derived.isEmpty else { return node }
        var result = node
        for (_, name) in derived { result.setDestinations(toMany(name, of: node), forToMany: name) }
        return result
    }

    /// The indexes of an object's entity, found by the ID's interned entity number.
    private func entityIndexes(of objectID: ObjectID) -> EntityIndexes? {
        let number = objectID.entityNumber
        return number < indexesByNumber.count ? indexesByNumber[number] : nil
    }

    private func toMany(_ name: String, of node: StoreNode) -> [ObjectID] {
        if let stored = node.destinations(forToMany: name) { return stored }
        guard derivedToMany[node.entityName]?.contains(name) == true,
            let relationship = model.relationship(name, of: node.entityName),
            let inverse = relationship.inverseName
        else { return [] }
        var sources: [ObjectID] = []
        for entity in model.entityAndDescendants(relationship.destinationEntityName) {
            guard let entityIndexes = indexes[entity], let position = entityIndexes.toOnePosition(of: inverse) else { continue }
            if let found = entityIndexes.toOneIndex[position][node.objectID] { sources += found }
        }
        return sources.sorted { StoreValue.compare(.objectID($0), .objectID($1)) == .orderedAscending }
    }

    private func apply(_ save: SaveChangesRequest) throws -> [ObjectID: Int64] {
        if isReadOnly && !save.isEmpty {
            throw StoreError(.persistentStoreOperation, "The InMemory store \(identifier) is read-only")
        }
        // Check everything first, so a failing save changes nothing.
        var conflicts: [ObjectID] = []
        for node in save.updatedObjects + save.deletedObjects {
            guard let current = tables[node.objectID.entityNumber]?.node(for: node.objectID), current.version == node.version else {
                conflicts.append(node.objectID)
                continue
            }
        }
        if !conflicts.isEmpty {
            throw StoreError(
                .managedObjectMerge,
                "Optimistic locking failure: \(conflicts.count) object(s) were changed or deleted since they were read",
                objectIDs: conflicts)
        }
        for node in save.insertedObjects {
            guard node.objectID.storeIdentifier == identifier, tables[node.objectID.entityNumber]?.contains(node.objectID) != true else {
                throw StoreError(
                    .persistentStoreSave, "Object \(node.objectID) cannot be inserted into the InMemory store \(identifier)",
                    objectIDs: [node.objectID])
            }
        }

        var versions: [ObjectID: Int64] = [:]
        versions.reserveCapacity(save.insertedObjects.count + save.updatedObjects.count)
        for node in save.deletedObjects {
            if let removed = tables[node.objectID.entityNumber]?.remove(node.objectID) { unindex(removed) }
        }
        reserveRoom(for: save.insertedObjects)
        for var node in save.insertedObjects {
            node.version = 1
            store(&node)
            index(node)
            versions[node.objectID] = 1
            tables[node.objectID.entityNumber, default: NodeTable()].upsert(node)
        }
        for var node in save.updatedObjects {
            guard let current = tables[node.objectID.entityNumber]?.node(for: node.objectID) else { continue }
            unindex(current)
            node.keepLoadedToManys(of: current)
            node.version = current.version + 1
            store(&node)
            tables[node.objectID.entityNumber]?.upsert(node)
            index(node)
            versions[node.objectID] = node.version
        }
        return versions
    }

    /// Makes room in the tables and attribute indexes for a large insert at once, so they do
    /// not grow step by step (rehashing every entry, a cache miss each at a million) while it
    /// runs. Only an insert that at least doubles an entity's table reserves: reserving a
    /// little more on every save would copy the tables each time, while growth by doubling
    /// already costs a constant per object.
    private func reserveRoom(for inserted: [StoreNode]) {
        guard inserted.count >= Self.bulkInsert else { return }
        var added: [Int: (id: ObjectID, count: Int)] = [:]
        for node in inserted { added[node.objectID.entityNumber, default: (node.objectID, 0)].count += 1 }
        for (entity, (id, count)) in added where count >= Self.bulkInsert {
            let existing = tables[entity]?.count ?? 0
            guard count >= existing else { continue }
            let total = existing + count
            tables[entity, default: NodeTable()].reserveCapacity(total)
            guard let entityIndexes = entityIndexes(of: id) else { continue }
            for position in entityIndexes.attributeIndex.indices {
                entityIndexes.attributeIndex[position].reserveCapacity(total)
            }
        }
    }

    /// The number of objects of one entity from which a save reserves room for them first.
    private static let bulkInsert = 4096

    /// Puts a node in its entity's slots (a node made of dictionaries is converted once) and
    /// drops derived to-manys before it is stored (the index answers them).
    private func store(_ node: inout StoreNode) {
        guard let entityIndexes = entityIndexes(of: node.objectID) else { return }
        let layout = entityIndexes.layout
        if node.layout !== layout || !entityIndexes.derived.isEmpty {
            var (values, toManys) = node.slots(in: layout)
            for (slot, _) in entityIndexes.derived { toManys[slot] = nil }
            node = StoreNode(objectID: node.objectID, layout: layout, values: values, toManys: toManys, version: node.version)
        }
    }

    private func index(_ node: StoreNode) {
        guard let entityIndexes = entityIndexes(of: node.objectID) else { return }
        let values = node.slots(in: entityIndexes.layout).values
        for (position, toOne) in entityIndexes.toOnes.enumerated() {
            guard case .objectID(let destination) = values[toOne.slot] else { continue }
            entityIndexes.toOneIndex[position][destination, default: []].insert(node.objectID)
        }
        for (position, attribute) in entityIndexes.indexed.enumerated() {
            let value = values[attribute.slot]
            if let entry = entityIndexes.attributeIndex[position][value] {
                entityIndexes.attributeIndex[position][value] = entry.adding(node.objectID)
            } else {
                entityIndexes.attributeIndex[position][value] = .one(node.objectID)
            }
        }
    }

    private func unindex(_ node: StoreNode) {
        guard let entityIndexes = entityIndexes(of: node.objectID) else { return }
        let values = node.slots(in: entityIndexes.layout).values
        for (position, toOne) in entityIndexes.toOnes.enumerated() {
            guard case .objectID(let destination) = values[toOne.slot] else { continue }
            entityIndexes.toOneIndex[position][destination]?.remove(node.objectID)
        }
        for (position, attribute) in entityIndexes.indexed.enumerated() {
            let value = values[attribute.slot]
            guard let entry = entityIndexes.attributeIndex[position][value] else { continue }
            entityIndexes.attributeIndex[position][value] = entry.removing(node.objectID)
        }
    }

    /// The compiled form of a fetch: from the cache when a request of its shape was fetched
    /// before, else validated against the model and planned now.
    private func plan(for fetch: FetchRequest) throws -> FetchPlan {
        let shape = FetchRequestShape.isCompact(fetch) ? FetchRequestShape(fetch) : nil
        if let shape, let plan = plans.value(for: shape) { return plan }
        let plan = try compiledPlan(for: fetch)
        if let shape { plans.insert(plan, for: shape.stored()) }
        return plan
    }

    /// A fetch validated against the model and planned, for every request of its shape.
    private func compiledPlan(for fetch: FetchRequest) throws -> FetchPlan {
        try fetch.validate(in: model)
        let entities = fetch.matchingEntityNames(in: model)
        return FetchPlan(entities: entities, index: indexPlan(for: fetch, entities: entities))
    }

    /// The top-level conjuncts of a predicate.
    private static func conjuncts(of predicate: FetchPredicate) -> [FetchPredicate] {
        if case .and(let parts) = predicate { return parts }
        return [predicate]
    }

    /// The key and constant of a conjunct `key == constant` (no options, no modifier).
    private static func keyEquality(_ conjunct: FetchPredicate) -> (key: String, constant: StoreValue)? {
        guard case .comparison(let comparison) = conjunct, comparison.op == .equalTo,
            comparison.modifier == .direct, comparison.options.isEmpty,
            case .keyPath(.evaluatedObject, let components) = comparison.lhs, components.count == 1,
            case .key(let key) = components[0], case .constant(let constant) = comparison.rhs
        else { return nil }
        return (key, constant)
    }

    /// The index plan of a fetch: the first top-level conjunct `key == constant` where `key` is
    /// a to-one relationship and the constant an object ID, or an indexed attribute and the
    /// constant of a kind its index may hold; nil when no index applies. The kinds of constants
    /// are part of a request's shape, so the plan holds for every request of the shape (a value
    /// that still cannot be an index key, such as 2.5 for an integer, falls back to a scan).
    private func indexPlan(for fetch: FetchRequest, entities: [String]) -> IndexPlan? {
        guard let predicate = fetch.predicate, let requested = indexes[fetch.entityName] else { return nil }
        let conjuncts = Self.conjuncts(of: predicate)
        let order = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($1, $0) })
        for (position, conjunct) in conjuncts.enumerated() {
            guard let (key, constant) = Self.keyEquality(conjunct) else { continue }
            if requested.toOnePosition(of: key) != nil {
                guard case .objectID = constant else { continue }
                let lookups = entities.compactMap { entity in
                    indexes[entity].flatMap { indexes in indexes.toOnePosition(of: key).map { (indexes, $0) } }
                }
                return IndexPlan(conjunct: position, attributeType: nil, lookups: lookups, isExact: conjuncts.count == 1, entityOrder: order)
            }
            guard let attribute = requested.indexedPosition(of: key).map({ requested.indexed[$0] }),
                Self.indexKey(constant, for: attribute.type) != nil
            else { continue }
            var isExact = conjuncts.count == 1
            switch attribute.type {
            case .integer16, .integer32, .integer64, .string, .uuid, .boolean: break
            default: isExact = false
            }
            let lookups = entities.compactMap { entity in
                indexes[entity].flatMap { indexes in indexes.indexedPosition(of: key).map { (indexes, $0) } }
            }
            return IndexPlan(conjunct: position, attributeType: attribute.type, lookups: lookups, isExact: isExact, entityOrder: order)
        }
        return nil
    }

    /// The objects an index can narrow a fetch to, in table order, and whether they are exactly
    /// the objects the predicate selects; nil when no index applies.
    ///
    /// An index applies to a top-level conjunct `key == constant` (no options, no modifier)
    /// where `key` is a to-one relationship and the constant an object ID, or an indexed
    /// attribute and the constant a value of the attribute's own kind. The query engine then
    /// evaluates the whole predicate over these candidates only — unless that conjunct is the
    /// whole predicate and compares values whose equality is their identity (object IDs,
    /// integers, strings, UUIDs, booleans): then the candidates are the result.
    private func indexedCandidates(for fetch: FetchRequest, plan: FetchPlan) -> (ids: [ObjectID], isExact: Bool)? {
        guard let index = plan.index, let predicate = fetch.predicate else { return nil }
        let conjuncts = Self.conjuncts(of: predicate)
        guard index.conjunct < conjuncts.count, let (_, constant) = Self.keyEquality(conjuncts[index.conjunct]) else { return nil }
        var found: [ObjectID] = []
        if let type = index.attributeType {
            guard let value = Self.indexKey(constant, for: type) else { return nil }
            for (entityIndexes, position) in index.lookups {
                switch entityIndexes.attributeIndex[position][value] {
                case .one(let id)?: found.append(id)
                case .many(let ids)?: found += ids
                case nil: break
                }
            }
        } else {
            guard case .objectID(let destination) = constant else { return nil }
            for (entityIndexes, position) in index.lookups {
                found += entityIndexes.toOneIndex[position][destination] ?? []
            }
        }
        if found.count <= 1 { return (found, index.isExact) }
        let order = index.entityOrder
        let sorted = found.sorted { lhs, rhs in
            let (l, r) = (order[lhs.entityName] ?? 0, order[rhs.entityName] ?? 0)
            if l != r { return l < r }
            if case .int(let a)? = lhs.referenceObject, case .int(let b)? = rhs.referenceObject { return a < b }
            return false
        }
        return (sorted, index.isExact)
    }

    /// The value an equality with `constant` finds in an attribute index of `type`, when the
    /// structural index key is certain to be the value stored (otherwise no index is used).
    private static func indexKey(_ constant: StoreValue, for type: AttributeType) -> StoreValue? {
        switch (type, constant) {
        case (.integer16, .int), (.integer32, .int), (.integer64, .int), (.string, .string), (.date, .date),
            (.uuid, .uuid), (.uri, .uri), (.boolean, .bool), (.binaryData, .data):
            return constant
        case (.integer16, .double(let d)), (.integer32, .double(let d)), (.integer64, .double(let d)):
            return Int64(exactly: d).map(StoreValue.int)
        case (.boolean, .int(let i)) where i == 0 || i == 1:
            return .bool(i == 1)
        default:
            return nil
        }
    }
}

extension InMemoryStore: FetchCompilingStore {
    /// The request validated and planned (entities, index) for every request of its shape.
    package func compileFetch(_ request: FetchRequest) throws -> AnyObject {
        try compiledPlan(for: request)
    }

    /// Answers a fetch with the plan ``compileFetch(_:)`` made for its shape, without looking
    /// the request up in the store's own plans.
    package func execute(_ request: FetchRequest, compiled: AnyObject) throws -> StoreResult {
        guard let plan = compiled as? FetchPlan else { return try execute(.fetch(request)) }
        return try fetch(request, plan: plan)
    }
}
