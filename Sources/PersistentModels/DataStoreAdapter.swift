import Foundation

/// Runs a ``DataStore`` as a store type: an atomic store whose ``load()`` reads the data
/// store's objects and whose ``save()`` hands it the changes.
///
/// `ModelContainer(for:configurations:)` makes one for each ``DataStoreConfiguration`` it is
/// given; a plain coordinator adds one by the name `StoreRegistry.register(dataStore:forStoreType:capabilities:configuration:)`
/// registered:
///
/// ```swift
/// StoreRegistry.shared.register(dataStore: JSONStore.self, forStoreType: "JSONStore") { url in
///     JSONStoreConfiguration(name: "Trips", fileURL: url ?? defaultURL)
/// }
/// try coordinator.addPersistentStore(type: "JSONStore", at: url)
/// ```
///
/// - When it is added, every object is read with one ``DataStore/fetch(_:)`` per entity that
///   has a `@Model` class (one for all when the model has no classes), with a descriptor
///   without predicate, sort, limit or offset; snapshots of entities the model lacks, and
///   relationship destinations the store did not return, are left out.
/// - Fetches are answered in memory over those objects (the framework's query engine), as
///   SwiftData answers them when a store throws ``DataStoreError/preferInMemoryFilter``.
/// - A context save becomes one ``DataStore/save(_:)`` with the snapshots of the objects
///   inserted, changed and deleted since the last one (none when nothing changed), and a
///   second one, of updates, when inserted objects refer to each other: the store's
///   permanent identifiers (``DataStoreSaveChangesResult/remappedIdentifiers``) then replace
///   the ones the first save carried in relationships. When that second call fails, the save
///   fails and the adapter records what the first one wrote, so the next save sends those
///   relationships and inserts nothing twice.
/// - ``ModelContext/fetchIdentifiers(_:)`` asks ``DataStore/fetchIdentifiers(_:)`` as
///   `fetchCount` asks ``DataStore/fetchCount(_:)`` (below); ``DataStore/initializeState(for:)``
///   is called when the store is made, ``DataStore/invalidateState(for:)`` when the adapter is
///   released, with the adapter's one ``EditingState``.
/// - Identifiers: an inserted object gets a temporary ID, then, before the save, a permanent
///   one the adapter makes (the framework's contexts need one before any store is written,
///   and a `DataStore` chooses its keys only when it saves); the store then remaps it. The
///   object then takes the ID the store's identifier stands for, the one adding the store
///   again makes of it (this store's ID with the identifier's primary key): in the cache
///   and, when the save succeeds, in the saving context (object, registration, references
///   and committed values), through `AtomicStore.replaceObjectIDs(_:)`. So a
///   `persistentModelID` taken after the save is the store's, in this container and in one
///   opened later; an object the store does not remap keeps the adapter's ID, which the
///   store then holds. Two tables map the framework's IDs to the store's identifiers and
///   back for the requests to the store.
/// - Values the store chose while saving (``DataStoreSaveChangesResult/snapshotsToReregister``)
///   become the saved objects' values, in the cache and in the saving context.
/// - A context's `fetchCount` asks ``DataStore/fetchCount(_:)`` when the context has
///   nothing unsaved to count and the descriptor no limit or offset; a store that throws
///   ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort`` is
///   counted in memory.
/// - `PersistentStoreCoordinator.destroyPersistentStore(at:type:options:)` calls
///   ``DataStore/erase()`` (``eraseStore(at:model:options:)``).
public final class DataStoreAdapter<Store: DataStore>: AtomicStore {
    /// The name the data store type was registered under; its type name when it was not.
    public override class var storeType: String {
        DataStoreRegistrations.shared.registration(for: Store.self)?.name ?? String(describing: Store.self)
    }

    /// What the registration declared, and always: works without a URL (the configuration
    /// says where the data is) and honours read-only.
    public override class var capabilities: StoreCapabilities {
        (DataStoreRegistrations.shared.registration(for: Store.self)?.capabilities ?? []).union([.noURL, .readOnly])
    }

    /// The data store.
    public let dataStore: Store
    /// The schema the data store was made with.
    public let schema: Schema
    /// The migration plan the data store was made with (the container's).
    let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The editing state of the adapter's requests.
    private let editingState = EditingState()
    /// The store's identifier of each object (by the framework's ID).
    private var storeIdentifiers: [ObjectID: PersistentIdentifier] = [:]
    /// The framework's ID of each of the store's identifiers.
    private var objectIDs: [PersistentIdentifier: ObjectID] = [:]
    /// The objects as the data store holds them since the last load or save.
    private var savedNodes: [ObjectID: StoreNode] = [:]
    /// Objects the data store holds with relationships that name the framework's identifiers
    /// of objects it has since given identifiers of its own: a save whose second call (the
    /// remapped relationships) failed left them so. The next save sends them as updates.
    private var unsettled: Set<ObjectID> = []

    /// Makes the data store: with the configuration `ModelContainer` hands over, else with the
    /// one the registration makes for `url`. A configuration without a schema gets the
    /// container's (or one of the coordinator's model).
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        let handOff = DataStoreHandOff.current.flatMap { $0.storeType == ObjectIdentifier(Store.self) ? $0 : nil }
        var configuration: Store.Configuration
        if let handed = handOff?.configuration as? Store.Configuration {
            configuration = handed
        } else if let make = DataStoreRegistrations.shared.registration(for: Store.self)?.makeConfiguration(Store.self) {
            configuration = try make(url)
        } else {
            throw StoreError(
                .persistentStoreOperation,
                "\(Store.self) has no configuration: pass one to ModelContainer(for:configurations:), or register it with "
                    + "StoreRegistry.register(dataStore:forStoreType:capabilities:configuration:)", fileURL: url)
        }
        let schema = configuration.schema ?? handOff?.schema ?? Schema(objectModel: model)
        if configuration.schema == nil { configuration.schema = schema }
        let checked = configuration
        try Self.calling("validate", url: url) { try checked.validate() }
        let migrationPlan = handOff?.migrationPlan
        self.dataStore = try Self.calling("open", url: url) { try Store(configuration, migrationPlan: migrationPlan) }
        self.schema = schema
        self.migrationPlan = migrationPlan
        try super.init(model: model, configurationName: configurationName, url: url, options: options)
        metadata = Self.standardMetadata(identifier: dataStore.identifier, model: model)
        dataStore.initializeState(for: editingState)
    }

    /// Tells the data store that the adapter's editing state ends
    /// (``DataStore/invalidateState(for:)``).
    deinit {
        dataStore.invalidateState(for: editingState)
    }

    // MARK: Loading

    /// Reads every object of the data store into cache nodes.
    public override func load() throws {
        let entityNames = Set(model.entityNames(inConfiguration: configurationName))
        var types: [any PersistentModel.Type] = []
        var needsPlaceholder = false
        for name in model.entityNames where entityNames.contains(name) {
            if let type = schema.modelType(forEntityName: name) { types.append(type) } else { needsPlaceholder = true }
        }
        if needsPlaceholder || types.isEmpty { types.append(DataStoreEntityPlaceholder.self) }
        var snapshots: [DefaultSnapshot] = []
        var seen: Set<PersistentIdentifier> = []
        for type in types {
            for snapshot in try fetchAll(type) where entityNames.contains(snapshot.persistentIdentifier.entityName) {
                if seen.insert(snapshot.persistentIdentifier).inserted { snapshots.append(snapshot) }
            }
        }
        for snapshot in snapshots {
            remember(objectID(forStoreIdentifier: snapshot.persistentIdentifier), as: snapshot.persistentIdentifier)
        }
        var nodes: [StoreNode] = []
        nodes.reserveCapacity(snapshots.count)
        for snapshot in snapshots {
            guard let id = objectIDs[snapshot.persistentIdentifier] else { continue }
            let node = self.node(id, from: snapshot)
            nodes.append(node)
            savedNodes[id] = node
        }
        addCacheNodes(nodes)
    }

    /// The snapshots a fetch of every object of `T` returns, related ones included.
    private func fetchAll<T: PersistentModel>(_ type: T.Type) throws -> [DefaultSnapshot] {
        let result = try Self.calling("fetch", url: url) {
            try dataStore.fetch(DataStoreFetchRequest(descriptor: FetchDescriptor<T>(), editingState: editingState))
        }
        return try (result.fetchedSnapshots + result.relatedSnapshots.values).map { try Self.convert($0, to: DefaultSnapshot.self) }
    }

    /// A cache node of a snapshot: every attribute (nil when the snapshot lacks it), and the
    /// relationship destinations the store holds.
    private func node(_ id: ObjectID, from snapshot: DefaultSnapshot) -> StoreNode {
        var attributes: [String: StoreValue] = [:]
        var toOne: [String: ObjectID] = [:]
        var toMany: [String: [ObjectID]] = [:]
        for attribute in model.attributes(of: id.entityName) where !attribute.isTransient {
            if case .attribute(let value) = snapshot[attribute.name] { attributes[attribute.name] = value } else { attributes[attribute.name] = .null }
        }
        for relationship in model.relationships(of: id.entityName) {
            switch snapshot[relationship.name] {
            case .toOne(let destination?): if let target = objectIDs[destination] { toOne[relationship.name] = target }
            case .toMany(let destinations): toMany[relationship.name] = destinations.compactMap { objectIDs[$0] }
            default: break
            }
            if relationship.isToMany, toMany[relationship.name] == nil { toMany[relationship.name] = [] }
        }
        return StoreNode(objectID: id, attributes: attributes, toOne: toOne, toMany: toMany)
    }

    // MARK: Saving

    /// Hands the objects inserted, changed and deleted since the last load or save to the
    /// data store.
    public override func save() throws {
        var current: [ObjectID: StoreNode] = [:]
        var inserted: [DefaultSnapshot] = []
        var updated: [DefaultSnapshot] = []
        forEachCacheNode { node in
            current[node.objectID] = node
            if let saved = savedNodes[node.objectID] {
                if unsettled.contains(node.objectID) || saved.attributes != node.attributes || saved.toOne != node.toOne
                    || saved.toMany != node.toMany
                {
                    updated.append(snapshot(of: node))
                }
            } else {
                inserted.append(snapshot(of: node))
            }
        }
        let deleted = savedNodes.filter { current[$0.key] == nil }.values.sorted { $0.objectID.description < $1.objectID.description }
            .map { snapshot(of: $0) }
        guard !inserted.isEmpty || !updated.isEmpty || !deleted.isEmpty else { return }
        let request = try DataStoreSaveChangesRequest(
            editingState: editingState, inserted: inserted.map(Self.storeSnapshot), updated: updated.map(Self.storeSnapshot),
            deleted: deleted.map(Self.storeSnapshot))
        let result = try Self.calling("save", url: url) { try dataStore.save(request) }
        let remapped = result.remappedIdentifiers
        // The first save carried the framework's identifiers of inserted objects in
        // relationships; the store's permanent ones replace them.
        let stale = (inserted + updated).filter { $0.refers(toAny: remapped) }
        if !stale.isEmpty {
            let fixes = try stale.map { snapshot in
                try Self.storeSnapshot(
                    snapshot.copy(
                        persistentIdentifier: remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier,
                        remappedIdentifiers: remapped))
            }
            let fix = DataStoreSaveChangesRequest<Store.Snapshot>(editingState: editingState, inserted: [], updated: fixes, deleted: [])
            do {
                _ = try Self.calling("save", url: url) { try dataStore.save(fix) }
            } catch {
                try recordFirstCallOnly(inserted: inserted, updated: updated, deleted: deleted, stale: stale, remapped: remapped, current: current, error: error)
            }
        }
        // Each inserted object takes the ID the store's identifier stands for (what adding the
        // store again makes of it), in the cache and, once the save is done, in the contexts.
        // An ID the application obtained before the save stays (Core Data's promise), mapped
        // to the store's identifier until the store is added again.
        var replacements: [ObjectID: ObjectID] = [:]
        var storeIdentifiersOfInserted: [ObjectID: PersistentIdentifier] = [:]
        for snapshot in inserted {
            let id = objectIDs[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier.objectID
            let storeIdentifier = remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier
            storeIdentifiersOfInserted[id] = storeIdentifier
            if remapped[snapshot.persistentIdentifier] != nil { replacements[id] = objectID(forStoreIdentifier: storeIdentifier) }
        }
        for snapshot in deleted { forget(snapshot.persistentIdentifier) }
        let replaced = replaceObjectIDs(replacements)
        for (id, storeIdentifier) in storeIdentifiersOfInserted { remember(replaced[id] ?? id, as: storeIdentifier) }
        try reregister(result.snapshotsToReregister, remapped: remapped)
        savedNodes = [:]
        forEachCacheNode { savedNodes[$0.objectID] = $0 }
        unsettled = []
    }

    /// The second call of a save (the relationships remapped to the store's identifiers)
    /// failed after the first one was written: the data store holds the inserted objects under
    /// its own identifiers, the updates and the deletions, but relationships that name the
    /// framework's identifiers of the inserted objects. The adapter's tables take what the
    /// store now holds, so the next save neither inserts those objects a second time nor
    /// deletes again: each object is mapped to the store's identifier (keeping the framework's
    /// ID, as an object the store does not remap does) and the objects with such
    /// relationships are sent again as updates. Then the save fails (the context keeps its
    /// changes; the cache is as before the save) with an error that says what the store holds.
    private func recordFirstCallOnly(
        inserted: [DefaultSnapshot], updated: [DefaultSnapshot], deleted: [DefaultSnapshot], stale: [DefaultSnapshot],
        remapped: [PersistentIdentifier: PersistentIdentifier], current: [ObjectID: StoreNode], error: any Error
    ) throws -> Never {
        for snapshot in inserted {
            let id = objectIDs[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier.objectID
            remember(id, as: remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier)
            savedNodes[id] = current[id]
        }
        for snapshot in updated {
            guard let id = objectIDs[snapshot.persistentIdentifier] else { continue }
            savedNodes[id] = current[id]
        }
        for snapshot in deleted {
            if let id = objectIDs[snapshot.persistentIdentifier] { savedNodes[id] = nil }
            forget(snapshot.persistentIdentifier)
        }
        for snapshot in stale {
            if let id = objectIDs[remapped[snapshot.persistentIdentifier] ?? snapshot.persistentIdentifier] { unsettled.insert(id) }
        }
        let place = url.map { " at \($0.path)" } ?? ""
        throw StoreError(
            .persistentStoreSave,
            "\(Self.storeType) store\(place): \(Store.self).save wrote the save's \(inserted.count) inserted, \(updated.count) updated "
                + "and \(deleted.count) deleted object(s), then failed to write the relationships of \(stale.count) of them to the "
                + "inserted objects' new identifiers (\(error)); the next save writes those relationships",
            objectIDs: stale.compactMap { objectIDs[remapped[$0.persistentIdentifier] ?? $0.persistentIdentifier] })
    }

    /// Takes the values the store chose while saving (``DataStoreSaveChangesResult/snapshotsToReregister``,
    /// by the store's identifier or by the one the save carried) as the saved objects' values.
    private func reregister(_ snapshots: [PersistentIdentifier: Store.Snapshot], remapped: [PersistentIdentifier: PersistentIdentifier]) throws {
        for (key, storeSnapshot) in snapshots.sorted(by: { $0.key < $1.key }) {
            let snapshot = try Self.convert(storeSnapshot, to: DefaultSnapshot.self)
            let storeIdentifier = remapped[key] ?? key
            guard let id = objectIDs[storeIdentifier], containsCacheNode(for: id) else { continue }
            replaceCacheNodeWhileSaving(node(id, from: snapshot))
        }
    }

    /// A snapshot of a cache node under the data store's identifier (the framework's for an
    /// object not saved to it yet), relationships to objects the cache holds.
    private func snapshot(of node: StoreNode) -> DefaultSnapshot {
        var values: [String: DefaultSnapshot.Value] = [:]
        for attribute in model.attributes(of: node.entityName) where !attribute.isTransient {
            values[attribute.name] = .attribute(node.attributes[attribute.name] ?? .null)
        }
        for relationship in model.relationships(of: node.entityName) {
            if relationship.isToMany {
                let destinations = (node.toMany[relationship.name] ?? []).filter(containsCacheNode(for:))
                values[relationship.name] = .toMany(destinations.map(storeIdentifier(of:)))
            } else {
                let destination = node.toOne[relationship.name].flatMap { containsCacheNode(for: $0) ? $0 : nil }
                values[relationship.name] = .toOne(destination.map(storeIdentifier(of:)))
            }
        }
        return DefaultSnapshot(persistentIdentifier: storeIdentifier(of: node.objectID), values: values)
    }

    /// The framework's ID of an object the data store holds under `storeIdentifier`: an ID of
    /// this store with the identifier's reference object (its URI form when it has none).
    private func objectID(forStoreIdentifier storeIdentifier: PersistentIdentifier) -> ObjectID {
        objectID(
            for: storeIdentifier.entityName,
            referenceObject: storeIdentifier.objectID.referenceObject ?? .string(storeIdentifier.description))
    }

    /// The data store's identifier of an object; the framework's for one it does not hold yet.
    private func storeIdentifier(of id: ObjectID) -> PersistentIdentifier { storeIdentifiers[id] ?? PersistentIdentifier(id) }

    private func remember(_ id: ObjectID, as storeIdentifier: PersistentIdentifier) {
        storeIdentifiers[id] = storeIdentifier
        objectIDs[storeIdentifier] = id
    }

    private func forget(_ storeIdentifier: PersistentIdentifier) {
        guard let id = objectIDs.removeValue(forKey: storeIdentifier) else { return }
        storeIdentifiers[id] = nil
    }

    // MARK: Errors and snapshot types

    /// Runs a call into the data store; what it throws becomes a `StoreError` naming the store
    /// type and the call (a `StoreError` is passed on as it is): 134030 for a save, 134080 for
    /// checking the configuration, making the store and the fetches when it is added.
    private static func calling<R>(_ call: String, url: URL?, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            let code: StoreError.Code =
                switch call {
                case "save": .persistentStoreSave
                case "fetchCount", "fetchIdentifiers": .persistentStoreOperation
                default: .persistentStoreOpen
                }
            let place = url.map { " at \($0.path)" } ?? ""
            throw StoreError(code, "\(storeType) store\(place): \(Store.self).\(call) failed: \(error)", fileURL: url)
        }
    }

    /// A snapshot as the data store's snapshot type.
    private static func storeSnapshot(_ snapshot: DefaultSnapshot) throws -> Store.Snapshot {
        try convert(snapshot, to: Store.Snapshot.self)
    }

    /// A snapshot of one type as another: itself when the types are the same, else through
    /// its JSON form (both encode with ``DataStoreSnapshotCodingKey``).
    private static func convert<From: DataStoreSnapshot, To: DataStoreSnapshot>(_ snapshot: From, to type: To.Type) throws -> To {
        if let same = snapshot as? To { return same }
        do {
            return try JSONDecoder().decode(To.self, from: JSONEncoder().encode(snapshot))
        } catch {
            throw StoreError(
                .persistentStoreOperation, "\(storeType) store: a \(From.self) cannot be read as a \(To.self): \(error)")
        }
    }
}

extension DataStoreAdapter: ErasingStore {
    /// Erases the data store at `url` (SwiftData's ``DataStore/erase()``), for
    /// `PersistentStoreCoordinator.destroyPersistentStore(at:type:options:)`: the store is made
    /// with the configuration the registration makes for `url` (given the model's schema when
    /// it has none) and asked to erase.
    ///
    /// - Throws: 134070 when the type has no registration, or the store does not erase
    ///   (``DataStoreError/unsupportedFeature``, the default): nothing is removed then; what
    ///   the store throws while it is made (134080) or erasing (134070), naming the call.
    public static func eraseStore(at url: URL, model: ObjectModel, options: StoreOptions) throws {
        guard let make = DataStoreRegistrations.shared.registration(for: Store.self)?.makeConfiguration(Store.self) else {
            throw StoreError(
                .persistentStoreOperation,
                "\(Store.self) is not registered with StoreRegistry.register(dataStore:forStoreType:capabilities:configuration:), "
                    + "so the store at \(url.path) cannot be erased", fileURL: url)
        }
        var configuration = try calling("open", url: url) { try make(url) }
        if configuration.schema == nil { configuration.schema = Schema(objectModel: model) }
        let checked = configuration
        try calling("validate", url: url) { try checked.validate() }
        let store = try calling("open", url: url) { try Store(checked, migrationPlan: nil) }
        try erase(store, url: url)
    }

    /// Calls a data store's ``DataStore/erase()``; what it throws becomes a 134070 naming the
    /// store (`unsupportedFeature`, the default: "nothing was removed").
    private static func erase(_ store: Store, url: URL?) throws {
        let place = url.map { " at \($0.path)" } ?? ""
        do {
            try store.erase()
        } catch DataStoreError.unsupportedFeature {
            throw StoreError(
                .persistentStoreOperation, "\(storeType) store\(place): \(Store.self) does not implement erase(); nothing was removed",
                fileURL: url)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.persistentStoreOperation, "\(storeType) store\(place): \(Store.self).erase failed: \(error)", fileURL: url)
        }
    }
}

extension DataStoreAdapter: DataStoreErasing {
    /// The data store's ``DataStore/erase()``, as ``eraseStore(at:model:options:)`` calls it;
    /// the hand-off adds the store again with its configuration.
    func eraseData() throws -> DataStoreHandOff {
        try Self.erase(dataStore, url: url)
        return DataStoreHandOff(dataStore.configuration, schema: schema, migrationPlan: migrationPlan)
    }
}

extension DataStoreAdapter: DataStoreAnswering {
    /// The data store's ``DataStore/fetchCount(_:)`` of the descriptor; nil when it throws
    /// ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort`` (the
    /// framework then counts in memory, as for fetches).
    func count<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int? {
        try Self.calling("fetchCount", url: url) { () throws -> Int? in
            do {
                return try dataStore.fetchCount(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState))
            } catch DataStoreError.preferInMemoryFilter, DataStoreError.preferInMemorySort {
                return nil
            }
        }
    }

    /// The data store's ``DataStore/fetchIdentifiers(_:)`` of the descriptor, each as the
    /// identifier the object has in the framework (the store's own once the object was saved
    /// and the store added again, see the type's notes); nil when it throws
    /// ``DataStoreError/preferInMemoryFilter`` or ``DataStoreError/preferInMemorySort``.
    func identifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]? {
        try Self.calling("fetchIdentifiers", url: url) { () throws -> [PersistentIdentifier]? in
            let listed: [PersistentIdentifier]
            do {
                listed = try dataStore.fetchIdentifiers(DataStoreFetchRequest(descriptor: descriptor, editingState: editingState))
            } catch DataStoreError.preferInMemoryFilter, DataStoreError.preferInMemorySort {
                return nil
            }
            return listed.map { PersistentIdentifier(objectIDs[$0] ?? objectID(forStoreIdentifier: $0)) }
        }
    }
}

extension DefaultSnapshot {
    /// Whether a relationship of the snapshot names one of the keys of `identifiers`.
    fileprivate func refers(toAny identifiers: [PersistentIdentifier: PersistentIdentifier]) -> Bool {
        guard !identifiers.isEmpty else { return false }
        return values.values.contains { value in
            switch value {
            case .attribute: false
            case .toOne(let destination): destination.map { identifiers[$0] != nil } ?? false
            case .toMany(let destinations): destinations.contains { identifiers[$0] != nil }
            }
        }
    }
}
