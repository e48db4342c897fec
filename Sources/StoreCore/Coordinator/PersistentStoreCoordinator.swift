import CoreMetrics
import Foundation
import Synchronization
import Tracing


/// The coordinator: one model, any number of stores behind it, and the row cache. Contexts talk
/// to stores only through it.
///
/// ```swift
/// let coordinator = PersistentStoreCoordinator(model: model)
/// let store = try coordinator.addPersistentStore(type: "InMemory")
/// let context = ManagedObjectContext(coordinator: coordinator)
/// ```
///
/// The coordinator is `Sendable` and serialises calls into its stores with one lock, so
/// contexts on different threads or tasks can share it. Fetches are the exception where a store
/// allows it (``StoreCapabilities/concurrentReads``, e.g. SQLite in WAL mode): a fetch that
/// involves only such a store runs outside the lock, beside other fetches and saves, and only
/// its row-cache update takes the lock. Stores never leave it: callers hold a
/// ``StoreHandle``. Entities are routed to the store whose configuration holds them (the first
/// added, when several do).
public final class PersistentStoreCoordinator: Sendable {
    /// The model every store of this coordinator uses.
    public let model: ObjectModel
    /// The earlier versions of ``model`` the application knows: the only models automatic
    /// migration takes a store from (Core Data's rule, `docs/migration.md`). A store written
    /// with any other model, a newer one or another program's, is refused with 134130 and left
    /// untouched, unless its options allow ``StoreOptionKey/migrateFromStoredModel``.
    public let modelVersions: [ObjectModel]
    /// Where store type names are looked up.
    public let registry: StoreRegistry
    let state: Locked<State>
    private let classes = Locked<[String: ManagedObject.Type]>([:])
    /// Advances whenever a class is registered, so contexts can cache the class per entity and
    /// know when to look again without taking the lock per object.
    let classGeneration = Atomic<Int>(0)
    private let observers = Locked<(next: Int, handlers: [Int: @Sendable (ContextDidSave) -> Void])>((0, [:]))
    /// The observers of remote changes (PersistentStoreCoordinator+RemoteChanges.swift).
    let remoteChangeObservers = Locked<(next: Int, handlers: [Int: @Sendable (RemoteChange) -> Void])>((0, [:]))
    /// Where the stores log, count and trace what they do (see `docs/observability.md`), with
    /// the process's debug switch applied.
    public let observability: StoreObservability
    /// The metrics backend the stores' metrics go to; nil when none is bootstrapped or given.
    let metricsFactory: (any MetricsFactory)?
    /// The tracer the stores' spans go to; nil when none is bootstrapped or given.
    let tracer: (any Tracer)?
    /// The rows in the row cache, recorded after fetches and saves; nil without metrics.
    let rowCacheGauge: Gauge?
    /// The objects registered in the coordinator's contexts; nil without metrics.
    let registeredObjectsGauge: RegisteredObjectsGauge?
    /// Counts the saves in progress and refuses new ones once the coordinator is closing.
    let saveGate = SaveGate()

    struct Slot {
        let handle: StoreHandle
        let store: any PersistentStore
        /// What answers this store's fetches outside the lock; nil for stores that read under
        /// the lock only.
        var fetcher: (any ConcurrentFetcher)? = nil
        /// What the store reports to; nil when logging, metrics and tracing are all off.
        var instrumentation: StoreInstrumentation? = nil
    }

    struct CachedRow {
        var node: StoreNode
        /// The number of objects, over every context, filled from this row and not yet faulted.
        var holders: Int
    }

    struct State {
        var slots: [Slot] = []
        /// Rows of incremental stores, by object ID: the node last read or written and how many
        /// contexts hold its object (Core Data's snapshot reference counting). A row lives while
        /// some context holds its object, so a process that fetches many objects once does not
        /// keep them after its contexts let them go.
        var rowCache = RowCache()
        var statistics = CoordinatorStatistics()
        /// Incremental stores whose metadata was set and not yet saved.
        var metadataPending: Set<String> = []
        /// Advances whenever rows of an incremental store may have changed (a save, a batch
        /// request, a store removed), so a fetch that ran outside the lock knows whether its
        /// rows may be older than the row cache's.
        var writeGeneration: UInt64 = 0
        /// Fetch requests validated against the model, by shape, with the stores they go to.
        /// Emptied whenever a store is added or removed (the slot positions change).
        var compiledFetches = CompiledRequestCache<FetchRequestShape, CompiledFetch>(capacity: PersistentStoreCoordinator.compiledFetchCapacity)
        /// Advances whenever a store is added or removed, so compiled slot positions are used
        /// only while they are current.
        var storeGeneration: UInt64 = 0

        func slot(for identifier: String?) -> Slot? {
            guard let identifier else { return nil }
            return slots.first { $0.handle.identifier == identifier }
        }
    }

    /// What a fetch request compiles to in the coordinator: the entities it matches and the
    /// positions of the slots of the stores it goes to (valid until a store is added or removed).
    struct CompiledFetch {
        let entities: [String]
        let slots: [Int]
        /// The store generation the slot positions belong to.
        let storeGeneration: UInt64
        /// What the one store the request goes to compiled of it, when that store compiles
        /// fetches (``FetchCompilingStore``); handed back with each request of the shape.
        var storeCompiled: (store: any FetchCompilingStore, compiled: AnyObject)? = nil
    }

    /// The most compiled fetch requests a coordinator keeps.
    static let compiledFetchCapacity = 256

    /// Creates a coordinator for a model; add stores next.
    ///
    /// ```swift
    /// let coordinator = PersistentStoreCoordinator(model: v3, versions: [v1, v2])
    /// ```
    ///
    /// - Parameters:
    ///   - model: the current model.
    ///   - versions: the earlier versions of the model (an `.xcdatamodeld`'s versions, see
    ///     ``ObjectModel/versions(ofModelAt:)``): automatic migration migrates a store
    ///     written with one of them, and refuses any other (134130). Including `model` itself
    ///     is harmless.
    ///   - registry: where store type names are looked up.
    ///   - observability: the logger, metrics backend and tracer the stores report to; nil for
    ///     none (the metrics backend and tracer bootstrapped in the process, if any, are used;
    ///     the debug switch `PERSISTENCE_SQL_DEBUG` still logs to standard error).
    public init(
        model: ObjectModel, versions: [ObjectModel] = [], registry: StoreRegistry = .shared,
        observability: StoreObservability? = nil
    ) {
        self.model = model
        self.modelVersions = versions
        self.registry = registry
        let observability = (observability ?? StoreObservability()).resolved()
        self.observability = observability
        // Read once: the metrics and spans of a coordinator go where the process had
        // bootstrapped them when it was made; a no-op backend means nothing is measured.
        let factory = observability.metricsFactory ?? MetricsSystem.factory
        self.metricsFactory = factory is NOOPMetricsHandler ? nil : factory
        let tracer = observability.tracer ?? InstrumentationSystem.tracer
        self.tracer = tracer is NoOpTracer ? nil : tracer
        self.rowCacheGauge = metricsFactory.map {
            Gauge(label: "persistence.row_cache.rows", dimensions: [("store.name", observability.name ?? "coordinator")], factory: $0)
        }
        self.registeredObjectsGauge = metricsFactory.map { RegisteredObjectsGauge(name: observability.name ?? "coordinator", factory: $0) }
        self.state = Locked(State())
        self.uniqueness = UniquenessCheck(model: model)
        self.hasDerivedAttributes = model.entities.contains { $0.attributes.contains { $0.derivationExpression != nil } }
    }

    /// Whether some entity of the model has a derived attribute (contexts compute them at save).
    let hasDerivedAttributes: Bool

    /// The model's uniqueness constraints, checked before each save writes anything.
    let uniqueness: UniquenessCheck

    // MARK: Classes

    /// Makes contexts of this coordinator create instances of `type` for its entity
    /// (``ManagedObject/entityName``, by default the class name) and its sub-entities that have
    /// no class of their own.
    public func register(_ type: ManagedObject.Type) {
        register(type, forEntityName: type.entityName)
    }

    /// Makes contexts create instances of `type` for `entityName`.
    public func register(_ type: ManagedObject.Type, forEntityName entityName: String) {
        classes.withLock { $0[entityName] = type }
        classGeneration.add(1, ordering: .releasing)
    }

    /// The class contexts create for an entity: its own registered class, else the nearest
    /// ancestor's, else ``ManagedObject``.
    public func objectClass(forEntityName entityName: String) -> ManagedObject.Type {
        let registered = classes.withLock { $0 }
        var current: String? = entityName
        while let name = current {
            if let type = registered[name] { return type }
            current = model.entity(named: name)?.parentEntityName
        }
        return ManagedObject.self
    }

    // MARK: Observers

    /// Calls `handler` after every successful save of any context on this coordinator, on the
    /// saving thread or task, with the IDs it changed. Hand the payload to
    /// ``ManagedObjectContext/mergeChanges(from:)`` in your own context's isolation.
    public func addObserver(_ handler: @escaping @Sendable (ContextDidSave) -> Void) -> ObserverToken {
        observers.withLock { observers in
            let id = observers.next
            observers.next += 1
            observers.handlers[id] = handler
            return ObserverToken(id: id)
        }
    }

    /// Removes an observer added with ``addObserver(_:)``.
    public func removeObserver(_ token: ObserverToken) {
        _ = observers.withLock { $0.handlers.removeValue(forKey: token.id) }
    }

    /// Every later successful save of any context on this coordinator, as an asynchronous
    /// sequence (the IDs each save changed), for a task that reacts to changes without
    /// polling. Iterating stops the observer when the task stops iterating or is cancelled.
    ///
    /// ```swift
    /// for await save in coordinator.saves {
    ///     await view.perform { $0.mergeChanges(from: save) }
    /// }
    /// ```
    public var saves: AsyncStream<ContextDidSave> {
        let (stream, continuation) = AsyncStream.makeStream(of: ContextDidSave.self)
        let token = addObserver { save in continuation.yield(save) }
        continuation.onTermination = { [weak self] _ in self?.removeObserver(token) }
        return stream
    }

    /// The observers a context's save tells (``addObserver(_:)``), in the order they were added;
    /// when there are none, the saving context does not make what it would tell them.
    func saveObservers() -> [@Sendable (ContextDidSave) -> Void] {
        observers.withLock { $0.handlers.isEmpty ? [] : Array($0.handlers.sorted { $0.key < $1.key }.map(\.value)) }
    }

    // MARK: Stores

    /// Adds a store of a registered type.
    ///
    /// - Parameters:
    ///   - type: a name registered in ``registry`` ("SQLite", "InMemory", …); an unknown name
    ///     fails with 134000 listing the registered types.
    ///   - configuration: the model configuration the store holds; nil for every entity.
    ///   - url: the store file; a missing file is created, a zero-length file is a new store. Nil
    ///     for stores that need none (InMemory).
    ///   - options: store options (``StoreOptionKey``).
    /// - Returns: the handle that names the store from now on.
    /// - Throws: 134100 when the store's metadata does not fit the model (see
    ///   ``ModelCompatibility``) and no migration was requested; 134130 when automatic
    ///   migration was requested and the store was written with a model that is neither the
    ///   model nor one of ``modelVersions``. The store is then not added and its file is not
    ///   written.
    @discardableResult
    public func addPersistentStore(
        type: String, configuration: String? = nil, at url: URL? = nil, options: StoreOptions = [:]
    ) throws -> StoreHandle {
        let storeClass = try registry.requireStoreType(named: type)
        if let configuration, model.configurations[configuration] == nil {
            throw StoreError(.persistentStoreOperation, "The model has no configuration named \"\(configuration)\"")
        }
        if url == nil && !storeClass.capabilities.contains(.noURL) {
            throw StoreError(.persistentStoreOperation, "A \(type) store needs a URL")
        }
        checkOptions(options, for: storeClass, type: type, url: url)
        if let url, url.isFileURL, storeClass.capabilities.contains(.persistent) {
            // A mistyped path is an error naming the folder, never a new store somewhere else.
            try StoreFile.requireParentFolder(of: url, storeType: type)
            // A migration killed mid-way left its new store (or the old one moved aside) here.
            MigrationManager.settleAbandonedFiles(besides: url)
        }
        let model = self.model
        let versions = modelVersions
        return try state.withLock { state in
            if let url, state.slots.contains(where: { $0.handle.url?.standardizedFileURL == url.standardizedFileURL }) {
                throw StoreError(
                    .persistentStoreOperation, "A store at \(url.path) has already been added to this coordinator",
                    fileURL: url)
            }
            // Checks the store against the model; migrates it first when the options ask for it
            // (Migration/PersistentStoreCoordinator+Migration.swift).
            // What the store reports to, from its first statement: the connections opened
            // while it is opened (and migrated) take it, and an automatic migration reports to it.
            let instrumentation = self.instrumentation(storeType: type, url: url)
            let store = try StoreInstrumentation.$adding.withValue(instrumentation) {
                try Self.openStore(
                    storeClass, model: model, versions: versions, configuration: configuration, url: url, options: options)
            }
            return try attach(store, type: type, instrumentation: instrumentation, state: &state)
        }
    }

    /// Logs, as a warning with the closest known key, each key of `options` that `storeClass`
    /// does not read (neither ``StoreOptionKey/standardOptions`` nor its
    /// ``PersistentStore/supportedOptions``) and no other registered store type declares. Not an
    /// error in code, as in Core Data (applications pass Core Data's keys these stores do not
    /// read); the configuration target refuses them, since a file's typo would otherwise pass
    /// unseen. Values of the options a store reads are checked by the store as it opens, with
    /// messages of its own.
    func checkOptions(_ options: StoreOptions, for storeClass: any PersistentStore.Type, type: String, url: URL?) {
        guard !options.isEmpty else { return }
        var declared: [String: StoreOption] = [:]
        for option in StoreOptionKey.standardOptions + (storeClass.supportedOptions ?? []) { declared[option.key] = option }
        let location = url.map { " at " + ($0.isFileURL ? $0.path : ConnectionURI.redacted($0.absoluteString)) } ?? ""
        for key in options.keys.sorted() where declared[key] == nil {
            guard storeClass.supportedOptions != nil else { continue }
            let others = registry.registeredStoreTypes.compactMap { registry.storeType(named: $0)?.supportedOptions }.joined()
            guard !others.contains(where: { $0.key == key }) else { continue }
            let known = Array(declared.keys).sorted()
            let suggestion = EditDistance.closestMatch(to: key, in: known).map { " (did you mean \($0)?)" } ?? ""
            observability.logger.warning(
                "The \(type) store\(location) does not read the option \(key)\(suggestion); it is ignored",
                metadata: ["store.type": "\(type)", "option": "\(key)"])
        }
    }

    /// What a store of `storeType` at `url` reports to; nil when logging, metrics and tracing
    /// are all off.
    func instrumentation(storeType: String, url: URL?) -> StoreInstrumentation? {
        StoreInstrumentation(
            observability: observability, storeType: storeType, url: url, model: model, metricsFactory: metricsFactory,
            tracer: tracer)
    }

    /// Puts a loaded and checked store into the coordinator's slots and returns its handle;
    /// `instrumentation` is what it was opened with (``instrumentation(storeType:url:)``).
    func attach(
        _ store: any PersistentStore, type: String, instrumentation: StoreInstrumentation?, state: inout State
    ) throws -> StoreHandle {
        let storeClass = Swift.type(of: store)
        if state.slots.contains(where: { $0.handle.identifier == store.identifier }) {
            throw StoreError(
                .persistentStoreOperation,
                "A store with identifier \(store.identifier) has already been added to this coordinator", fileURL: store.url)
        }
        let handle = StoreHandle(
            identifier: store.identifier, type: type, url: store.url, configurationName: store.configurationName,
            isReadOnly: store.isReadOnly, options: store.options)
        // Before the fetcher is made, so the read pool's connections report too.
        if let instrumentation, let instrumented = store as? any InstrumentedStore { instrumented.instrument(instrumentation) }
        var fetcher: (any ConcurrentFetcher)?
        if storeClass.capabilities.contains(.concurrentReads), let reading = store as? any ConcurrentReadingStore {
            fetcher = try reading.makeConcurrentFetcher()
        }
        store.didAdd(to: self)
        state.slots.append(Slot(handle: handle, store: store, fetcher: fetcher, instrumentation: instrumentation))
        state.compiledFetches.removeAll()
        state.storeGeneration &+= 1
        return handle
    }

    /// Detaches a store; its file stays where it is. Throws 134070 when the store is not added.
    public func remove(_ handle: StoreHandle) throws {
        try state.withLock { state in
            guard let index = state.slots.firstIndex(where: { $0.handle.identifier == handle.identifier }) else {
                throw StoreError(.persistentStoreOperation, "\(handle) is not added to this coordinator")
            }
            state.slots[index].store.willRemove(from: self)
            state.slots.remove(at: index)
            state.compiledFetches.removeAll()
            state.storeGeneration &+= 1
            state.writeGeneration &+= 1
            state.rowCache.removeAll { $0.storeIdentifier == handle.identifier }
        }
    }

    /// The stores, in the order they were added.
    public var persistentStores: [StoreHandle] { state.withLock { $0.slots.map(\.handle) } }

    /// The store added at `url`.
    public func persistentStore(for url: URL) -> StoreHandle? {
        state.withLock { state in
            state.slots.first { $0.handle.url?.standardizedFileURL == url.standardizedFileURL }?.handle
        }
    }

    /// The store with that identifier.
    public func persistentStore(withIdentifier identifier: String) -> StoreHandle? {
        state.withLock { $0.slot(for: identifier)?.handle }
    }

    /// Runs `body` with each store that holds `entityName`, under the coordinator's lock (as
    /// every call into a store runs): for a module of the package that asks its own store type
    /// something the store protocols do not carry (PersistentModels' `DataStore` adapter
    /// counting with a typed descriptor).
    package func withStores<Result>(holding entityName: String, _ body: ([any PersistentStore]) throws -> Result) rethrows -> Result {
        try state.withLock { state in try body(state.slots.map(\.store).filter { $0.holds(entityName: entityName) }) }
    }

    /// Runs `body` with the store `handle` names, under the coordinator's lock, as
    /// ``withStores(holding:_:)`` does. Throws 134070 when the store is not added.
    package func withStore<Result>(_ handle: StoreHandle, _ body: (any PersistentStore) throws -> Result) throws -> Result {
        try state.withLock { state in try body(Self.require(handle, in: state).store) }
    }

    /// How often the coordinator has called into its stores so far.
    public var statistics: CoordinatorStatistics { state.withLock { $0.statistics } }

    // MARK: Metadata

    /// The metadata of an added store (including changes not yet saved).
    public func metadata(for handle: StoreHandle) throws -> StoreMetadata {
        try state.withLock { state in try Self.require(handle, in: state).store.metadata }
    }

    /// Replaces the metadata of an added store; it is written at the next save.
    /// `NSStoreType` and `NSStoreUUID` are kept as they are.
    public func setMetadata(_ metadata: StoreMetadata, for handle: StoreHandle) throws {
        try state.withLock { state in
            let store = try Self.require(handle, in: state).store
            var updated = metadata
            updated[MetadataKey.storeType] = store.metadata[MetadataKey.storeType]
            updated[MetadataKey.storeUUID] = store.metadata[MetadataKey.storeUUID]
            store.metadata = updated
            state.metadataPending.insert(handle.identifier)
        }
    }

    /// Whether some store has metadata set that the next save will write.
    public var hasUnsavedMetadata: Bool {
        state.withLock { state in
            !state.metadataPending.isEmpty || state.slots.contains { ($0.store as? AtomicStore)?.metadataChanged == true }
        }
    }

    /// Reads the metadata of a store file without adding it.
    public func metadataForPersistentStore(type: String, at url: URL, options: StoreOptions = [:]) throws -> StoreMetadata {
        try registry.requireStoreType(named: type).metadata(forStoreAt: url, options: options)
    }

    /// Writes the metadata of a store file without adding it.
    public func setMetadata(_ metadata: StoreMetadata, forPersistentStoreOfType type: String, at url: URL, options: StoreOptions = [:]) throws {
        try registry.requireStoreType(named: type).setMetadata(metadata, forStoreAt: url, options: options)
    }

    private static func require(_ handle: StoreHandle, in state: State) throws -> Slot {
        guard let slot = state.slot(for: handle.identifier) else {
            throw StoreError(.persistentStoreOperation, "\(handle) is not added to this coordinator")
        }
        return slot
    }

    // MARK: Object IDs

    /// The ID a URI names, if it names an added store (or is temporary) and an entity of the model.
    public func managedObjectID(forURIRepresentation uri: URL) -> ObjectID? {
        guard let id = ObjectID(uriRepresentation: uri), model.entity(named: id.entityName) != nil else { return nil }
        if id.isTemporaryID { return id }
        return state.withLock { state in
            guard let slot = state.slot(for: id.storeIdentifier), slot.store.holds(entityName: id.entityName) else { return nil }
            return id
        }
    }

    /// Permanent IDs for temporary ones, in the order given. `assignments` maps a temporary ID to
    /// the identifier of the store it must go to; others go to the first store whose
    /// configuration holds their entity.
    public func obtainPermanentIDs(for objectIDs: [ObjectID], assignments: [ObjectID: String] = [:]) throws -> [ObjectID] {
        try state.withLock { state in
            // One store and no assignments (the common case): every ID goes to it in one call.
            if state.slots.count == 1, assignments.isEmpty, let slot = state.slots.first,
                let incremental = slot.store as? any IncrementalStore,
                Self.allTemporary(objectIDs, heldBy: slot.store)
            {
                let permanent = try incremental.obtainPermanentIDs(for: objectIDs)
                guard permanent.count == objectIDs.count else {
                    throw StoreError(.persistentStoreOperation, "\(slot.handle) returned \(permanent.count) IDs for \(objectIDs.count) objects")
                }
                return permanent
            }
            var result = objectIDs
            // Positions of the IDs by the index of their store's slot; the store of each entity
            // is found once per entity rather than once per ID.
            var groups: [Int: [Int]] = [:]
            var targets: [Int: Int] = [:]
            for (position, id) in objectIDs.enumerated() where id.isTemporaryID {
                let target: Int
                if !assignments.isEmpty, let assigned = assignments[id] {
                    guard let index = state.slots.firstIndex(where: { $0.handle.identifier == assigned }) else {
                        throw StoreError(.persistentStoreOperation, "Object \(id) is assigned to a store that is not added")
                    }
                    target = index
                } else if let known = targets[id.entityNumber] {
                    target = known
                } else {
                    guard let index = state.slots.firstIndex(where: { $0.store.holds(entityName: id.entityName) }) else {
                        throw StoreError(
                            .persistentStoreOperation, "No store of this coordinator holds entity \(id.entityName)",
                            objectIDs: [id], entityName: id.entityName)
                    }
                    targets[id.entityNumber] = index
                    target = index
                }
                groups[target, default: []].append(position)
            }
            for (index, slot) in state.slots.enumerated() {
                guard let positions = groups[index] else { continue }
                let temporary = positions.map { objectIDs[$0] }
                let permanent: [ObjectID]
                if let incremental = slot.store as? any IncrementalStore {
                    permanent = try incremental.obtainPermanentIDs(for: temporary)
                } else if let atomic = slot.store as? AtomicStore {
                    permanent = atomic.obtainPermanentIDs(for: temporary)
                } else {
                    throw Self.unsupported(slot)
                }
                guard permanent.count == temporary.count else {
                    throw StoreError(.persistentStoreOperation, "\(slot.handle) returned \(permanent.count) IDs for \(temporary.count) objects")
                }
                for (position, id) in zip(positions, permanent) { result[position] = id }
            }
            return result
        }
    }

    /// Whether every ID is temporary and of an entity `store` holds (each entity asked once).
    private static func allTemporary(_ objectIDs: [ObjectID], heldBy store: any PersistentStore) -> Bool {
        var held: Set<Int> = []
        for id in objectIDs {
            guard id.isTemporaryID else { return false }
            if held.contains(id.entityNumber) { continue }
            guard store.holds(entityName: id.entityName) else { return false }
            held.insert(id.entityNumber)
        }
        return true
    }

    // MARK: Requests

    /// Executes a fetch across every store that holds the entity (or the request's affected
    /// stores). Object results are `.nodes`; their values enter the row cache.
    ///
    /// The request is validated against the model first (``FetchRequest/validate(in:)``), so an
    /// unknown key path fails the same way on every store. With several stores, results are
    /// merged, sorted by the sort keys, shaped (dictionaries, aggregates) and windowed here.
    ///
    /// Validation and routing run once per request shape: the coordinator keeps the last 256
    /// shapes it compiled (requests that differ only in the values of their constants share one;
    /// see `docs/fetch-requests.md`), and forgets them when a store is added or removed.
    /// ``statistics`` counts compilations and reuses.
    public func execute(_ request: FetchRequest) throws -> StoreResult {
        try execute(request, remembering: false)
    }

    /// Executes a fetch; with `remembering` (a context's fetch), object results enter the row
    /// cache, each counted as held once by the context that will fill its object (which gives
    /// the count back with ``retainRows(_:releasing:)`` when it does not need it).
    func execute(_ request: FetchRequest, remembering: Bool) throws -> StoreResult {
        var later: PendingRows?
        return try execute(request, remembering: remembering, later: &later, mayDefer: false)
    }

    /// The rows of a fetch that read outside the lock, left for the row cache because another
    /// thread held the coordinator's lock when the fetch ended: the fetching context puts them
    /// in with ``remember(_:)`` once it has made its objects, rather than waiting for the lock
    /// first. Two threads whose fetches end together took turns for the lock while one of them
    /// remembered 100,000 rows (about a tenth of a two-reader round; W13 in docs/benchmarks.md).
    struct PendingRows {
        let result: StoreResult
        /// The write generation when the fetch started (``remember(_:in:readAt:fromIncremental:)``).
        let generation: UInt64
    }

    /// ``execute(_:remembering:)`` of a context's fetch of objects that may leave its rows in
    /// `later` (see ``PendingRows``): the caller must then pass them to ``remember(_:)``, before
    /// it gives back any row count, even when it fails.
    func execute(_ request: FetchRequest, rememberingLater later: inout PendingRows?) throws -> StoreResult {
        try execute(request, remembering: true, later: &later, mayDefer: true)
    }

    /// Puts rows a fetch left (``PendingRows``) into the row cache, counted as that fetch's.
    func remember(_ pending: PendingRows) {
        let cached = state.withLock { state in
            state.statistics.fetches += 1
            state.statistics.concurrentFetches += 1
            Self.remember(pending.result, in: &state, readAt: pending.generation)
            return rowCacheGauge == nil ? 0 : state.rowCache.count
        }
        rowCacheGauge?.record(cached)
    }

    private func execute(_ request: FetchRequest, remembering: Bool, later: inout PendingRows?, mayDefer: Bool) throws -> StoreResult {
        // A request of a shape compiled before is not validated again (see FetchRequestShape);
        // requests too large to hash cheaply are validated every time.
        let shape = FetchRequestShape.isCompact(request) ? FetchRequestShape(request) : nil
        var compiled: CompiledFetch?
        var concurrent: (fetcher: any ConcurrentFetcher, generation: UInt64, instrumentation: StoreInstrumentation?)?
        // A fetch from one store that reads concurrently runs outside the lock; the lock is
        // taken again only to count it and update the row cache with what it read.
        if let shape {
            (compiled, concurrent) = state.withLock { state in
                guard let found = state.compiledFetches.value(for: shape) else { return (nil, nil) }
                state.statistics.compiledFetchReuses += 1
                return (found, Self.concurrentFetcher(for: found, in: state))
            }
        }
        if compiled == nil {
            guard model.entity(named: request.entityName) != nil else {
                throw StoreError(.coreData, "The model has no entity named \(request.entityName)", entityName: request.entityName)
            }
            try request.validate(in: model)
            let entities = request.matchingEntityNames(in: model)
            (compiled, concurrent) = state.withLock { state in
                let slots = state.slots.indices.filter { index in
                    let slot = state.slots[index]
                    return (request.affectedStoreIdentifiers?.contains(slot.handle.identifier) ?? true)
                        && entities.contains { slot.store.holds(entityName: $0) }
                }
                var made = CompiledFetch(entities: entities, slots: slots, storeGeneration: state.storeGeneration)
                // A store that compiles the request compiles it now, once per shape. A request
                // it refuses is left to its `execute`, which fails the same way as before.
                if slots.count == 1, let store = state.slots[slots[0]].store as? any FetchCompilingStore,
                    let storeCompiled = try? store.compileFetch(request)
                {
                    made.storeCompiled = (store, storeCompiled)
                }
                state.statistics.fetchCompilations += 1
                if let shape { state.compiledFetches.insert(made, for: shape.stored()) }
                return (made, Self.concurrentFetcher(for: made, in: state))
            }
        }
        if let concurrent, let result = try Self.fetchConcurrently(request, with: concurrent.fetcher, concurrent.instrumentation) {
            let update = { (state: inout State) -> Int in
                state.statistics.fetches += 1
                state.statistics.concurrentFetches += 1
                if remembering { Self.remember(result, in: &state, readAt: concurrent.generation) }
                return state.rowCache.count
            }
            if mayDefer, case .nodes = result {
                guard let cached = state.withLockIfAvailable(update) else {
                    later = PendingRows(result: result, generation: concurrent.generation)
                    return result
                }
                rowCacheGauge?.record(cached)
                return result
            }
            let cached = state.withLock(update)
            rowCacheGauge?.record(cached)
            return result
        }
        let entities = compiled?.entities ?? request.matchingEntityNames(in: model)
        let result = try state.withLock { state in
            // The compiled slot positions hold until a store is added or removed.
            if let compiled, compiled.storeGeneration == state.storeGeneration, compiled.slots.count == 1 {
                // The common case, one store, without making an array of slots. A store that
                // compiled the request is incremental, so its rows go to the row cache.
                state.statistics.fetches += 1
                let result = try Self.fetch(request, from: state.slots[compiled.slots[0]], compiled: compiled.storeCompiled)
                if remembering { Self.remember(result, in: &state, fromIncremental: compiled.storeCompiled != nil) }
                return result
            }
            let slots: [Slot]
            if let compiled, compiled.storeGeneration == state.storeGeneration {
                slots = compiled.slots.map { state.slots[$0] }
            } else {
                slots = state.slots.filter { slot in
                    (request.affectedStoreIdentifiers?.contains(slot.handle.identifier) ?? true)
                        && entities.contains { slot.store.holds(entityName: $0) }
                }
            }
            state.statistics.fetches += slots.count
            if slots.count == 1 {
                let result = try Self.fetch(request, from: slots[0])
                if remembering { Self.remember(result, in: &state) }
                return result
            }
            // Several stores: each answers without the window, then the window applies to the
            // merged results. Sorting and dictionaries need the values, so the stores answer
            // with nodes and the query engine sorts and shapes the merge.
            var unwindowed = request
            unwindowed.fetchLimit = 0
            unwindowed.fetchOffset = 0
            if !request.sortKeys.isEmpty || request.resultType == .dictionaries {
                unwindowed.resultType = .managedObjects
                var nodes: [StoreNode] = []
                for slot in slots {
                    if case .nodes(let found) = try Self.fetch(unwindowed, from: slot) { nodes += found }
                }
                let stores = state.slots
                let graph = NodeGraph(model: model) { id in try Self.lookup(id, in: stores) }
                let evaluator = PredicateEvaluator()
                let sorted = try QueryEngine.sort(nodes, by: request.sortKeys, graph: graph, evaluator: evaluator)
                let shaped = try QueryEngine.shape(request, sorted, graph: graph, evaluator: evaluator)
                // Only what is returned is counted as held (the caller fills exactly these).
                if remembering { Self.remember(shaped, in: &state) }
                return shaped
            }
            var nodes: [StoreNode] = []
            var ids: [ObjectID] = []
            var count = 0
            for slot in slots {
                switch try Self.fetch(unwindowed, from: slot) {
                case .nodes(let found): nodes += found
                case .objectIDs(let found): ids += found
                case .count(let found): count += found
                case .dictionaries, .saved, .batch: break
                }
            }
            let result: StoreResult
            switch request.resultType {
            case .managedObjects:
                result = .nodes(Array(QueryEngine.window(nodes, offset: request.fetchOffset, limit: request.fetchLimit)))
            case .objectIDs:
                result = .objectIDs(Array(QueryEngine.window(ids, offset: request.fetchOffset, limit: request.fetchLimit)))
            case .count, .dictionaries:
                let afterOffset = max(0, count - max(0, request.fetchOffset))
                result = .count(request.fetchLimit > 0 ? min(request.fetchLimit, afterOffset) : afterOffset)
            }
            if remembering { Self.remember(result, in: &state) }
            return result
        }
        if let rowCacheGauge { rowCacheGauge.record(cachedRowCount) }
        return result
    }

    /// The fetcher that answers a compiled request outside the lock, with the write generation
    /// it starts at: when the request goes to one store and that store reads concurrently.
    private static func concurrentFetcher(
        for compiled: CompiledFetch, in state: State
    ) -> (fetcher: any ConcurrentFetcher, generation: UInt64, instrumentation: StoreInstrumentation?)? {
        guard compiled.storeGeneration == state.storeGeneration, compiled.slots.count == 1,
            let fetcher = state.slots[compiled.slots[0]].fetcher
        else { return nil }
        return (fetcher, state.writeGeneration, state.slots[compiled.slots[0]].instrumentation)
    }

    /// Asks a store's fetcher, outside the lock; nil when it cannot take the request now.
    private static func fetchConcurrently(
        _ request: FetchRequest, with fetcher: any ConcurrentFetcher, _ instrumentation: StoreInstrumentation?
    ) throws -> StoreResult? {
        guard let instrumentation else { return try fetcher.fetch(request) }
        let result = try instrumentation.fetch(request, rows: { $0.map(Self.rowCount) }) { try fetcher.fetch(request) }
        if instrumentation.metrics != nil {
            instrumentation.readPool(openConnections: (fetcher as? any ReadPoolStatus)?.openedCount, busy: result == nil)
        }
        return result
    }

    /// The objects, IDs or dictionaries a result holds (1 for a count), for metrics and logs.
    static func rowCount(_ result: StoreResult) -> Int {
        switch result {
        case .nodes(let nodes): return nodes.count
        case .objectIDs(let ids): return ids.count
        case .dictionaries(let rows): return rows.count
        case .count: return 1
        case .saved(let versions): return versions.count
        case .batch: return 0
        }
    }

    /// The number of compiled fetch requests the coordinator keeps (at most 256).
    package var compiledFetchCount: Int { state.withLock { $0.compiledFetches.count } }

    /// A node from whichever added store holds it (for key paths across stores while merging).
    private static func lookup(_ objectID: ObjectID, in slots: [Slot]) throws -> StoreNode? {
        guard let slot = slots.first(where: { $0.handle.identifier == objectID.storeIdentifier }) else { return nil }
        if let atomic = slot.store as? AtomicStore { return atomic.cacheNode(for: objectID) }
        // A reference the store cannot resolve reads as a dangling one (its keys are nil).
        if let incremental = slot.store as? any IncrementalStore { return try? incremental.newValues(forObjectWith: objectID) }
        return nil
    }

    /// Asks a slot's store; `compiled` is what that store compiled of the request's shape.
    private static func fetch(
        _ request: FetchRequest, from slot: Slot, compiled: (store: any FetchCompilingStore, compiled: AnyObject)? = nil
    ) throws -> StoreResult {
        guard let instrumentation = slot.instrumentation else { return try fetchUnobserved(request, from: slot, compiled: compiled) }
        return try instrumentation.fetch(request, rows: { Self.rowCount($0) }) {
            try fetchUnobserved(request, from: slot, compiled: compiled)
        }
    }

    private static func fetchUnobserved(
        _ request: FetchRequest, from slot: Slot, compiled: (store: any FetchCompilingStore, compiled: AnyObject)?
    ) throws -> StoreResult {
        if let compiled { return try compiled.store.execute(request, compiled: compiled.compiled) }
        if let incremental = slot.store as? any IncrementalStore {
            return try incremental.execute(.fetch(request))
        } else if let atomic = slot.store as? AtomicStore {
            return try atomic.execute(request)
        }
        throw unsupported(slot)
    }

    /// Puts the rows of an object result into the row cache, each counted as held once.
    ///
    /// `readAt` is the write generation when a fetch outside the lock started. When a save or
    /// batch request ran since, the rows read may be older than the cache's: a cached row is
    /// then replaced only by a row of the same or a newer version (`Z_OPT`), and a row the cache
    /// does not have is not added (the fetching object keeps its row; a later fault reads the
    /// store), so the cache never goes back to values a write replaced or dropped.
    ///
    /// `fromIncremental` says that the result comes from one incremental store (the caller
    /// knows it), so that store is not looked up and its type not checked.
    private static func remember(
        _ result: StoreResult, in state: inout State, readAt generation: UInt64? = nil, fromIncremental: Bool = false
    ) {
        guard case .nodes(let nodes) = result else { return }
        if let generation, generation != state.writeGeneration {
            rememberAfterWrites(nodes, in: &state)
            return
        }
        state.rowCache.reserveCapacity(for: nodes)
        // The nodes of one result usually come from one store: decide once per store in a row,
        // telling stores apart by their interned identifier's number (no text, and no reference
        // to the name counted, per row).
        var lastStore = -1
        var lastIsIncremental = false
        // Lent, not copied: the cache takes what it keeps of each node (its value buffer) from
        // the node in place. Safe: the pointer is used only inside the closure, while `nodes`
        // (bound by the `guard case` above) keeps its storage alive and unchanged.
        nodes.withUnsafeBufferPointer { nodes in
            guard let first = nodes.baseAddress else { return }
            for position in nodes.indices {
                let node = first + position
                let store = node.pointee.objectID.internedScope.storeNumber
                if position == 0 || store != lastStore {
                    lastStore = store
                    lastIsIncremental = fromIncremental || state.slot(for: node.pointee.objectID.storeIdentifier)?.store is any IncrementalStore
                }
                if lastIsIncremental {
                    // One lookup per row: the row goes in, held once. A row cached already (another
                    // context holds it) gains a holder, and takes the node read only when its
                    // version differs (RowCache.remember).
                    state.rowCache.remember(node)
                }
            }
        }
    }

    /// ``remember(_:in:readAt:fromIncremental:)`` for rows read while a write may have run.
    private static func rememberAfterWrites(_ nodes: [StoreNode], in state: inout State) {
        for node in nodes { state.rowCache.rememberIfCached(node) }
    }

    private static func unsupported(_ slot: Slot) -> StoreError {
        StoreError(
            .persistentStoreUnsupportedRequestType,
            "\(slot.handle) is neither an IncrementalStore nor an AtomicStore")
    }

    /// The values of one object, from the row cache or its store (always the store when
    /// `refreshingCache`); 133000 when it does not exist.
    public func node(for objectID: ObjectID, refreshingCache: Bool = false) throws -> StoreNode {
        try state.withLock { state in
            guard let slot = state.slot(for: objectID.storeIdentifier) else { throw Self.missing(objectID) }
            if let atomic = slot.store as? AtomicStore {
                guard let node = atomic.cacheNode(for: objectID) else { throw Self.missing(objectID) }
                return node
            }
            slot.instrumentation?.faultsFired(1)
            if !refreshingCache, let cached = state.rowCache.node(for: objectID) { return cached }
            guard let incremental = slot.store as? any IncrementalStore else { throw Self.unsupported(slot) }
            state.statistics.nodeLoads += 1
            do {
                let node = try incremental.newValues(forObjectWith: objectID)
                state.rowCache.replaceNode(node, holders: nil)
                return node
            } catch {
                state.rowCache.removeRow(for: objectID)
                throw error
            }
        }
    }

    /// The values of several objects at once, for a context filling faults together
    /// (prefetching, a batch of a batched fetch): one ``IncrementalStore/newValues(forObjectsWith:)``
    /// per store, or the cache nodes of an atomic store. Objects that do not exist are left out;
    /// the order is the stores'. Rows of incremental stores enter the row cache, each counted as
    /// held once, as a fetch made with `remembering` counts them.
    func nodes(for objectIDs: [ObjectID]) throws -> [StoreNode] {
        try state.withLock { state in
            var idsByStore: [(store: String, ids: [ObjectID])] = []
            for objectID in objectIDs {
                guard let store = objectID.storeIdentifier else { continue }
                if let index = idsByStore.firstIndex(where: { $0.store == store }) {
                    idsByStore[index].ids.append(objectID)
                } else {
                    idsByStore.append((store, [objectID]))
                }
            }
            var nodes: [StoreNode] = []
            nodes.reserveCapacity(objectIDs.count)
            for (store, ids) in idsByStore {
                guard let slot = state.slot(for: store) else { continue }
                slot.instrumentation?.faultsFired(ids.count)
                if let atomic = slot.store as? AtomicStore {
                    nodes += ids.compactMap { atomic.cacheNode(for: $0) }
                    continue
                }
                guard let incremental = slot.store as? any IncrementalStore else { throw Self.unsupported(slot) }
                state.statistics.fetches += 1
                let found = try incremental.newValues(forObjectsWith: ids)
                Self.remember(.nodes(found), in: &state)
                nodes += found
            }
            return nodes
        }
    }

    /// The destinations of a relationship of one object, from the row cache or its store.
    public func relatedObjectIDs(_ relationshipName: String, of objectID: ObjectID) throws -> [ObjectID] {
        try state.withLock { state in
            guard let slot = state.slot(for: objectID.storeIdentifier) else { throw Self.missing(objectID) }
            if let atomic = slot.store as? AtomicStore {
                guard let node = atomic.cacheNode(for: objectID) else { throw Self.missing(objectID) }
                return node.destinations(forToMany: relationshipName) ?? node.destination(forToOne: relationshipName).map { [$0] } ?? []
            }
            slot.instrumentation?.faultsFired(1)
            if let cached = state.rowCache.destinations(forToMany: relationshipName, of: objectID) { return cached }
            guard let incremental = slot.store as? any IncrementalStore else { throw Self.unsupported(slot) }
            state.statistics.relationshipLoads += 1
            let ids = try incremental.newValue(forRelationship: relationshipName, forObjectWith: objectID)
            if model.relationship(relationshipName, of: objectID.entityName)?.isToMany == true {
                state.rowCache.setDestinations(ids, forToMany: relationshipName, of: objectID)
            }
            return ids
        }
    }

    // MARK: Row cache

    /// Counts the rows of `retained` as held by one more object each and those of `released` by
    /// one fewer, forgetting rows no object holds any more. IDs without a cached row are ignored.
    func retainRows(_ retained: [ObjectID], releasing released: [ObjectID] = []) {
        guard !retained.isEmpty || !released.isEmpty else { return }
        state.withLock { state in
            for id in retained { state.rowCache.addHolder(to: id) }
            for id in released { state.rowCache.removeHolder(from: id) }
        }
    }

    /// The number of rows in the row cache (rows of objects that some context holds).
    public var cachedRowCount: Int { state.withLock { $0.rowCache.count } }

    static func missing(_ objectID: ObjectID) -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "Object \(objectID) (\(objectID.entityName)) does not exist in any store",
            objectIDs: [objectID], entityName: objectID.entityName)
    }

    /// Applies a context's changes, store by store (each store all-or-nothing), and returns the
    /// new row versions. Read-only stores and the model's uniqueness constraints are checked
    /// before anything is written: a save that would leave two objects with the same values for
    /// a constraint throws 133021 listing each ``ConstraintConflict``.
    ///
    /// The versions are keyed by the objects' IDs after the save: an atomic store may give saved
    /// objects other IDs while writing (``AtomicStore/replaceObjectIDs(_:)``). Every inserted
    /// and updated object has one (an insert its store left implied is at 1).
    public func save(_ request: SaveChangesRequest) throws -> [ObjectID: Int64] {
        let outcome = try save(request, insertedRowsHeld: false)
        var versions = outcome.versions
        for node in request.insertedObjects {
            let id = outcome.replacedObjectIDs[node.objectID] ?? node.objectID
            if versions[id] == nil { versions[id] = 1 }
        }
        return versions
    }

    /// ``save(_:)``; with `insertedRowsHeld` (a context's save), the row of each inserted object
    /// enters the row cache held once, by the context's object that was saved (so the context
    /// need not count it in a second call). Returns what the stores did besides the versions.
    func save(_ request: SaveChangesRequest, insertedRowsHeld: Bool) throws -> SaveOutcome {
        try saveGate.enter()
        defer { saveGate.leave() }
        let versions = try state.withLock { state -> SaveOutcome in
            var parts: [(Slot, SaveChangesRequest)] = []
            for slot in state.slots {
                let part = request.filtered(toStore: slot.handle.identifier)
                let metadataPending =
                    (slot.store as? AtomicStore)?.metadataChanged ?? state.metadataPending.contains(slot.handle.identifier)
                guard !part.isEmpty || metadataPending else { continue }
                if slot.store.isReadOnly && !part.isEmpty {
                    throw StoreError(
                        .persistentStoreOperation, "\(slot.handle) is read-only; the save was refused", fileURL: slot.handle.url)
                }
                parts.append((slot, part))
            }
            if let stranger = request.belongsToStores(state.slots.map(\.handle.identifier)) {
                throw StoreError(
                    .persistentStoreSave, "Object \(stranger) does not belong to a store of this coordinator",
                    objectIDs: [stranger])
            }
            if !uniqueness.isEmpty {
                let slots = state.slots
                let conflicts = try uniqueness.conflicts(in: request, model: model) { fetch in
                    var nodes: [StoreNode] = []
                    for slot in slots where slot.store.holds(entityName: fetch.entityName) {
                        if case .nodes(let found) = try Self.fetch(fetch, from: slot) { nodes += found }
                    }
                    return nodes
                }
                if !conflicts.isEmpty {
                    let error = StoreError.constraintConflicts(conflicts)
                    parts.first?.0.instrumentation?.countConflicts(error)
                    throw error
                }
            }
            var outcome = SaveOutcome()
            if !parts.isEmpty { state.writeGeneration &+= 1 }
            for (slot, part) in parts {
                state.statistics.saves += 1
                if let incremental = slot.store as? any IncrementalStore {
                    // An empty save still writes metadata set since the last one.
                    state.metadataPending.remove(slot.handle.identifier)
                    let answer: StoreResult
                    if let instrumentation = slot.instrumentation {
                        answer = try instrumentation.save(part) { try incremental.execute(.save(part)) }
                    } else {
                        answer = try incremental.execute(.save(part))
                    }
                    guard case .saved(let saved) = answer else {
                        throw StoreError(.persistentStoreSave, "\(slot.handle) did not answer the save")
                    }
                    if outcome.versions.isEmpty { outcome.versions = saved } else { outcome.versions.merge(saved) { _, new in new } }
                    state.rowCache.reserveCapacity(for: part.insertedObjects)
                    state.rowCache.reserveCapacity(for: part.updatedObjects)
                    // The whole request went to this store (filtering keeps the order), so the
                    // versions can be handed back by position.
                    let whole =
                        parts.count == 1 && part.insertedObjects.count == request.insertedObjects.count
                        && part.updatedObjects.count == request.updatedObjects.count
                    var inOrder: [Int64] = []
                    if whole { inOrder.reserveCapacity(part.insertedObjects.count + part.updatedObjects.count) }
                    for (nodes, inserted) in [(part.insertedObjects, true), (part.updatedObjects, false)] {
                        for index in nodes.indices {
                            // One copy of the node, into the cache (iterating would make another).
                            var cached = nodes[index]
                            let node = (objectID: cached.objectID, version: cached.version)
                            // An insert the store left out of its versions is at 1; an empty
                            // answer (a save of inserts only) is not hashed into.
                            cached.version = (saved.isEmpty ? nil : saved[node.objectID]) ?? (inserted ? 1 : node.version)
                            if whole { inOrder.append(cached.version) }
                            // One lookup: replace the row in place, or add it. The copy is moved in
                            // (`consume`): copied again, each of its references was retained a
                            // second time and released, on buffers a large save no longer has in
                            // the processor's cache (a tenth of W1's wall time; docs/benchmarks.md).
                            // A new row's only holder is the object that inserted it; a cached row
                            // keeps its holders and the to-manys it had loaded.
                            state.rowCache.replaceNode(consume cached, holders: inserted && insertedRowsHeld ? 1 : nil, keepingLoadedToManys: true)
                        }
                    }
                    for node in part.deletedObjects { state.rowCache.removeRow(for: node.objectID) }
                    if whole { outcome.versionsInRequestOrder = inOrder }
                } else if let atomic = slot.store as? AtomicStore {
                    let applied: SaveOutcome
                    if let instrumentation = slot.instrumentation {
                        applied = try instrumentation.save(part) { try atomic.apply(part) }
                    } else {
                        applied = try atomic.apply(part)
                    }
                    outcome.merge(applied)
                } else {
                    throw Self.unsupported(slot)
                }
            }
            return outcome
        }
        if let rowCacheGauge { rowCacheGauge.record(cachedRowCount) }
        return versions
    }

    // MARK: Persistent history

    /// The transactions of persistent history after `token` (every one for nil), from every
    /// store that records history (added with ``StoreOptionKey/persistentHistoryTracking``),
    /// store by store in order (Core Data's `NSPersistentHistoryChangeRequest.fetchHistory(after:)`).
    /// Stores that record none contribute nothing.
    public func history(after token: HistoryToken?) throws -> [HistoryTransaction] {
        try state.withLock { state in
            var result: [HistoryTransaction] = []
            for slot in state.slots {
                guard let store = slot.store as? any PersistentHistoryStore, store.recordsHistory else { continue }
                result += try store.history(after: token?.transactions[slot.handle.identifier])
            }
            return result
        }
    }

    /// A token after every transaction recorded so far (Core Data's
    /// `currentPersistentHistoryToken`): history after it is what happens from now on.
    public func currentHistoryToken() throws -> HistoryToken {
        try history(after: nil).reduce(HistoryToken()) { $0.merging($1.token) }
    }

    /// Removes the transactions before `token` from every store that records history (Core
    /// Data's `deleteHistory(before:)`), so history does not grow for ever once every reader
    /// has caught up.
    public func deleteHistory(before token: HistoryToken) throws {
        try state.withLock { state in
            for slot in state.slots {
                guard let store = slot.store as? any PersistentHistoryStore, store.recordsHistory,
                    let number = token.transactions[slot.handle.identifier]
                else { continue }
                try store.deleteHistory(before: number)
            }
        }
    }

    // MARK: Batch requests

    /// Changes the matching objects inside every store that holds the entity (or the request's
    /// affected stores), without contexts: see ``BatchUpdateRequest``. Row-cache entries of the
    /// updated objects are dropped (all of the entity's when the store did not return IDs).
    ///
    /// - Throws: 134091 when a store that holds the entity does not run batch requests (nothing
    ///   is changed then); 134070 for a read-only store; what ``BatchUpdateRequest/validate(in:)``
    ///   throws.
    @discardableResult
    public func execute(_ request: BatchUpdateRequest) throws -> BatchResult {
        try request.validate(in: model)
        let entities = request.matchingEntityNames(in: model)
        let touchesRelationships = request.updatesRelationships(in: model)
        return try state.withLock { state in
            let slots = try Self.batchSlots(
                in: state, holding: entities, affected: request.affectedStoreIdentifiers, request: "batch update")
            var results: [BatchResult] = []
            for slot in slots {
                let result = try Self.runBatch(.batchUpdate(request), on: slot, state: &state)
                results.append(result)
                dropCachedNodes(after: result, in: slot, entity: request.entityName, relatedToo: touchesRelationships, state: &state)
            }
            return BatchResult.combining(results, as: request.resultType)
        }
    }

    /// Deletes the matching objects (or the listed ones) inside the stores that hold them,
    /// without contexts and without delete rules: see ``BatchDeleteRequest``. Row-cache
    /// entries of the deleted objects, and of objects whose relationships may have pointed at
    /// them, are dropped.
    ///
    /// - Throws: 134091 when a store involved does not run batch requests (nothing is deleted
    ///   then); 134070 for a read-only store; what ``BatchDeleteRequest/validate(in:)`` throws.
    @discardableResult
    public func execute(_ request: BatchDeleteRequest) throws -> BatchResult {
        try request.validate(in: model)
        if let ids = request.objectIDs, ids.isEmpty { return BatchResult.combining([], as: request.resultType) }
        let entities = request.matchingEntityNames(in: model)
        return try state.withLock { state in
            var slots = try Self.batchSlots(
                in: state, holding: entities, affected: request.affectedStoreIdentifiers, request: "batch delete",
                checking: { slot in request.objectIDs.map { ids in ids.contains { $0.storeIdentifier == slot.handle.identifier } } ?? true })
            if let ids = request.objectIDs {
                let known = Set(state.slots.map(\.handle.identifier))
                if let stranger = ids.first(where: { !known.contains($0.storeIdentifier ?? "") }) {
                    throw StoreError(
                        .persistentStoreOperation, "Object \(stranger) does not belong to a store of this coordinator",
                        objectIDs: [stranger], entityName: stranger.entityName)
                }
                slots = slots.filter { slot in ids.contains { $0.storeIdentifier == slot.handle.identifier } }
            }
            var results: [BatchResult] = []
            for slot in slots {
                var part = request
                part.objectIDs = request.objectIDs?.filter { $0.storeIdentifier == slot.handle.identifier }
                let result = try Self.runBatch(.batchDelete(part), on: slot, state: &state)
                results.append(result)
                dropCachedNodes(after: result, in: slot, entity: request.entityName, relatedToo: true, state: &state)
            }
            return BatchResult.combining(results, as: request.resultType)
        }
    }

    /// Inserts the objects into the first store that holds the entity (among the request's
    /// affected stores, when it names some), without contexts: see ``BatchInsertRequest``.
    ///
    /// - Throws: 134091 when that store does not run batch requests; 134070 when no store holds
    ///   the entity or the store is read-only; what ``BatchInsertRequest/validate(in:)`` and the
    ///   store throw (1550 for a value of the wrong type).
    @discardableResult
    public func execute(_ request: BatchInsertRequest) throws -> BatchResult {
        try request.validate(in: model)
        return try state.withLock { state in
            let target = state.slots.first { slot in
                (request.affectedStoreIdentifiers?.contains(slot.handle.identifier) ?? true) && slot.store.holds(entityName: request.entityName)
            }
            let slots = try Self.batchSlots(
                in: state, holding: [request.entityName], affected: request.affectedStoreIdentifiers, request: "batch insert",
                checking: { $0.handle.identifier == target?.handle.identifier })
            guard let slot = slots.first else {
                throw StoreError(
                    .persistentStoreOperation, "No store of this coordinator holds entity \(request.entityName)",
                    entityName: request.entityName)
            }
            if request.objects.isEmpty { return BatchResult.combining([], as: request.resultType) }
            return try Self.runBatch(.batchInsert(request), on: slot, state: &state)
        }
    }

    /// The stores a batch request goes to, after checking that each can run it (134091) and is
    /// writable (134070) — before any of them runs it.
    private static func batchSlots(
        in state: State, holding entities: [String], affected: [String]?, request: String,
        checking involved: (Slot) -> Bool = { _ in true }
    ) throws -> [Slot] {
        let slots = state.slots.filter { slot in
            (affected?.contains(slot.handle.identifier) ?? true) && entities.contains { slot.store.holds(entityName: $0) }
        }
        for slot in slots where involved(slot) {
            guard type(of: slot.store).capabilities.contains(.batchRequests), slot.store is any IncrementalStore else {
                throw StoreError(
                    .persistentStoreUnsupportedRequestType,
                    "\(slot.handle) (type \(slot.handle.type)) does not run batch requests; a \(request) needs a store type with the batchRequests capability",
                    fileURL: slot.handle.url)
            }
            if slot.store.isReadOnly {
                throw StoreError(
                    .persistentStoreOperation, "\(slot.handle) is read-only; the \(request) was refused", fileURL: slot.handle.url)
            }
        }
        return slots
    }

    private static func runBatch(_ request: StoreRequest, on slot: Slot, state: inout State) throws -> BatchResult {
        guard let incremental = slot.store as? any IncrementalStore else { throw unsupported(slot) }
        state.statistics.batchRequests += 1
        state.writeGeneration &+= 1
        guard case .batch(let result) = try incremental.execute(request) else {
            throw StoreError(.persistentStoreOperation, "\(slot.handle) did not answer the batch request with a batch result")
        }
        return result
    }

    /// Drops the row-cache entries a batch request made stale in one store: the objects it
    /// returned (or every object of the entity's hierarchy when it returned no IDs), and, when
    /// relationships changed, every object whose relationships lead into that hierarchy.
    private func dropCachedNodes(
        after result: BatchResult, in slot: Slot, entity: String, relatedToo: Bool, state: inout State
    ) {
        let store = slot.handle.identifier
        let root = model.rootEntityName(of: entity) ?? entity
        var stale: Set<String> = []
        if relatedToo {
            for candidate in model.entities
            where model.relationships(of: candidate.name).contains(where: { model.rootEntityName(of: $0.destinationEntityName) == root }) {
                stale.insert(candidate.name)
            }
        }
        if let ids = result.objectIDs {
            for id in ids { state.rowCache.removeRow(for: id) }
        } else {
            stale.formUnion(model.entityAndDescendants(root))
        }
        guard !stale.isEmpty else { return }
        state.rowCache.removeAll { $0.storeIdentifier == store && stale.contains($0.entityName) }
    }
}
