import Foundation

/// A scratch pad of managed objects: insert, fetch, change and delete them, then ``save()``.
///
/// ```swift
/// let context = ManagedObjectContext(coordinator: coordinator)
/// let team = try context.insert(entityName: "Team")
/// try team.setValue("Crew", forKey: "name")
/// try context.save()
/// let teams = try context.fetch(FetchRequest(entityName: "Team"))
/// ```
///
/// A context and its objects belong to one isolation domain (a thread, a task, an actor) and are
/// not `Sendable`. Work elsewhere uses its own context on the same coordinator; object IDs cross
/// over, and a ``ContextDidSave`` from one context brings another up to date through
/// ``mergeChanges(from:)``. Within a context each object ID has exactly one object (uniquing).
///
/// Deletes propagate along the delete rules when pending changes are processed (at fetch and
/// save, or by calling ``processPendingChanges()``): nullify removes the deleted object from the
/// inverse side, cascade deletes the destinations (transitively, cycle-safe), deny refuses the
/// save (1600) while destinations remain, no action does nothing (the destinations keep a
/// dangling reference; a save that would store one fails with 133000).
///
/// A save validates every inserted and updated object and reports all failures at once (see
/// ``ManagedObject``'s validation hooks), then resolves optimistic-locking conflicts by
/// ``mergePolicy``.
public final class ManagedObjectContext {
    /// The coordinator the context reads from and saves to.
    public let coordinator: PersistentStoreCoordinator
    /// What the objects registered here hold of the context (``ManagedObject/managedObjectContext``).
    let link = ContextLink()
    /// How a save resolves conflicts with changes saved elsewhere (default: ``MergePolicy/error``).
    public var mergePolicy: MergePolicy = .error
    /// The context's name, recorded with each save in persistent history.
    public var name: String?
    /// Who is saving (an app, an extension, an import job), recorded with each save in
    /// persistent history, so readers can skip their own transactions.
    public var transactionAuthor: String?

    // The bookkeeping touched per object is `@exclusivity(unchecked)` in release builds, as
    // ManagedObject's per-object state is (see the reasoning there): a context is not Sendable,
    // and no access to these tables is held across a call that could reach them again.
    #if DEBUG
    var registered = ObjectRegistry()
    var inserted = InsertedObjects()
    var updated: [ObjectKey: ManagedObject] = [:]
    #else
    @exclusivity(unchecked) var registered = ObjectRegistry()
    @exclusivity(unchecked) var inserted = InsertedObjects()
    @exclusivity(unchecked) var updated: [ObjectKey: ManagedObject] = [:]
    #endif
    var deleted: [ObjectKey: ManagedObject] = [:]
    /// Records changes for undo and redo when set (nil, the default, records nothing). Changes
    /// made before it was set are where undo stops: undoing never goes back past them.
    public var undoManager: ContextUndoManager? {
        didSet { startUndoHistory() }
    }
    /// Whether an undo or redo is restoring objects (nothing is recorded meanwhile).
    var isRestoringUndoState = false
    /// Each object's state at the end of the last undo group that changed it.
    var undoLastStates: [ObjectKey: UndoState] = [:]
    /// Deleted objects whose delete rules have not been applied yet.
    private var unpropagatedDeletes: [ManagedObject] = []
    private var assignments: [ObjectID: String] = [:]
    /// Permanent IDs of inserted objects the application obtained (``obtainPermanentIDs(for:)``)
    /// since the last save.
    private var obtainedPermanentIDs: Set<ObjectID> = []
    #if DEBUG
    var nextRegistrationOrder = 0
    #else
    @exclusivity(unchecked) var nextRegistrationOrder = 0
    #endif
    // Touched per insert: unchecked in release builds for the reasons given above.
    #if DEBUG
    /// Changes since the last objects-did-change event (the inserted objects' IDs are kept in
    /// `unannouncedInserts` until then).
    var unannounced = ContextDidSave()
    /// The IDs of objects inserted since the last objects-did-change event, in order: an array
    /// append per insert, made into the event's set only when someone listens (a set insertion,
    /// hashing the ID and growing the table, cost about 400 instructions per insert).
    var unannouncedInserts: [ObjectID] = []
    /// The entity and layout of the last ``insert(entityName:)``.
    private var lastInserted: (name: String, layout: EntityLayout)?
    #else
    @exclusivity(unchecked) var unannounced = ContextDidSave()
    @exclusivity(unchecked) var unannouncedInserts: [ObjectID] = []
    @exclusivity(unchecked) private var lastInserted: (name: String, layout: EntityLayout)?
    #endif
    private var observers: [Int: (ContextEvent) -> Void] = [:]
    private var nextObserver = 0
    /// The continuations of ``events`` sequences, with whether their consumer stopped.
    private var eventStreams: [(continuation: AsyncStream<ContextEvent>.Continuation, ended: Locked<Bool>)] = []
    /// The class made for each layout, valid while the coordinator's class generation is
    /// `classCacheGeneration`.
    /// (The layout is kept so its identifier cannot be reused by another layout.)
    private var classCache: [ObjectIdentifier: (layout: EntityLayout, type: ManagedObject.Type)] = [:]
    /// The last entry of `classCache` used.
    private var lastClass: (layout: EntityLayout, type: ManagedObject.Type)?
    // Read for every object a fetch makes (`makeObject(objectID:)`): unchecked in release builds
    // for the reasons given above.
    #if DEBUG
    private var classCacheGeneration = -1
    /// The model's layout and the class of the entity of the last object made from an ID, by the
    /// entity's interned number (`makeObject(objectID:)`); cleared with `classCache`.
    private var lastMade: (entityNumber: Int, layout: EntityLayout, type: ManagedObject.Type)?
    #else
    @exclusivity(unchecked) private var classCacheGeneration = -1
    @exclusivity(unchecked) private var lastMade: (entityNumber: Int, layout: EntityLayout, type: ManagedObject.Type)?
    #endif
    /// Rows this context's objects started or stopped holding, told to the coordinator in one
    /// call at the end of each operation (``settleRows()``).
    #if DEBUG
    var rowsToRetain: [ObjectID] = []
    private var rowsToRelease: [ObjectID] = []
    #else
    @exclusivity(unchecked) var rowsToRetain: [ObjectID] = []
    @exclusivity(unchecked) private var rowsToRelease: [ObjectID] = []
    #endif
    /// The number of registered objects this context last added to its coordinator's
    /// `persistence.objects.registered` gauge (only kept when metrics are on).
    private var reportedRegisteredCount = 0
    /// Errors of non-throwing typed setters, thrown by the next save.
    var deferredErrors: [StoreError] = []

    /// Keeps an error of a non-throwing operation (a typed setter, a model inserted by
    /// PersistentModels) for the next ``save()`` to throw.
    package func deferError(_ error: StoreError) {
        deferredErrors.append(error)
    }

    /// Creates a context on a coordinator.
    public init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        self.confinement = nil
        self.parent = nil
        link.context = self
    }

    /// A context confined to `queue` (made by ``PrivateQueueContext`` and ``MainQueueContext``).
    init(coordinator: PersistentStoreCoordinator, confinedTo queue: ContextQueue?, parent: ManagedObjectContext? = nil) {
        self.coordinator = coordinator
        self.confinement = queue
        self.parent = parent
        link.context = self
    }

    /// A child context of `parent` (Core Data's parent and child contexts): it reads through
    /// the parent — seeing the parent's unsaved changes — and its ``save()`` pushes its changes
    /// into the parent, not into the stores; the parent's own save writes them. Use it in the
    /// parent's isolation domain (for a queue context, ``PrivateQueueContext/init(parent:label:)``).
    ///
    /// ```swift
    /// let editor = ManagedObjectContext(parent: context)
    /// try editor.existingObject(with: team.objectID).setValue("Draft", forKey: "name")
    /// try editor.save()      // the parent's team is "Draft", unsaved
    /// try context.save()     // now it is in the store
    /// ```
    public convenience init(parent: ManagedObjectContext) {
        self.init(coordinator: parent.coordinator, confinedTo: parent.confinement, parent: parent)
    }

    /// The context this one reads from and saves to, when it is a child context; nil when it
    /// works with the coordinator's stores directly.
    public let parent: ManagedObjectContext?

    /// The queue this context is confined to, when it belongs to a queue context.
    let confinement: ContextQueue?

    deinit {
        // First: from here on the objects read no context, as a weak reference to it would.
        link.isAlive = false
        for stream in eventStreams { stream.continuation.finish() }
        if reportedRegisteredCount != 0 { coordinator.registeredObjectsGauge?.add(-reportedRegisteredCount) }
        // The rows of every object this context filled are no longer held by it (a child
        // context holds none: its parent does).
        if parent == nil {
            // One array, made in one pass (a filter, a map and a concatenation made three, and
            // retained every object once more: about 200 instructions per object of a context
            // made for one request; docs/benchmarks.md).
            var released = rowsToRelease
            released.reserveCapacity(rowsToRelease.count + registered.count)
            for object in registered.values where object.holdsRow { released.append(object.objectID) }
            coordinator.retainRows(rowsToRetain, releasing: released)
        }
        // Objects reference each other strongly through relationships; break the cycles.
        for object in registered.values {
            object.turnIntoFault()
            object.managedObjectContext = nil
        }
    }

    // MARK: State

    /// Objects inserted and not saved yet.
    public var insertedObjects: Set<ManagedObject> { Set(inserted.values) }
    /// Objects with unsaved changes to their values.
    public var updatedObjects: Set<ManagedObject> { Set(updated.values.filter(\.isUpdated)) }
    /// Objects deleted and not saved yet.
    public var deletedObjects: Set<ManagedObject> { Set(deleted.values) }
    /// Every object registered in the context.
    public var registeredObjects: Set<ManagedObject> { Set(registered.values) }

    /// Whether there are unsaved inserts, updates or deletes.
    public var hasChanges: Bool {
        !inserted.isEmpty || !deleted.isEmpty || updated.values.contains { $0.isUpdated }
    }

    // MARK: Observers

    /// Calls `handler` for each ``ContextEvent`` of this context, in this context's isolation.
    @discardableResult
    public func addObserver(_ handler: @escaping (ContextEvent) -> Void) -> ObserverToken {
        let id = nextObserver
        nextObserver += 1
        observers[id] = handler
        return ObserverToken(id: id)
    }

    /// Removes an observer.
    public func removeObserver(_ token: ObserverToken) { observers[token.id] = nil }

    private func post(_ event: ContextEvent) {
        for id in observers.keys.sorted() { observers[id]?(event) }
        if !eventStreams.isEmpty {
            eventStreams.removeAll { $0.ended.withLock { $0 } }
            for stream in eventStreams { stream.continuation.yield(event) }
        }
    }

    /// This context's later events (objects did change, will save, did save) as an
    /// asynchronous sequence, in order, for a task that reacts to changes without polling. The
    /// events carry object IDs (they are `Sendable`); the sequence ends when the context goes
    /// away, and a consumer that stops iterating is forgotten at the next event.
    ///
    /// ```swift
    /// let events = context.events
    /// Task {
    ///     for await case .didSave(let save) in events { print(save.insertedObjectIDs.count) }
    /// }
    /// ```
    public var events: AsyncStream<ContextEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ContextEvent.self)
        let ended = Locked(false)
        continuation.onTermination = { _ in ended.withLock { $0 = true } }
        eventStreams.append((continuation, ended))
        return stream
    }

    // MARK: Objects by ID

    /// The registered object for an ID, if any.
    public func registeredObject(for objectID: ObjectID) -> ManagedObject? { registered[objectID] }

    /// The object for an ID: the registered one, or a new fault (which is not checked against the
    /// store until its values are needed; ``ManagedObject/fireFault()`` then throws 133000 if it
    /// does not exist).
    public func object(with objectID: ObjectID) -> ManagedObject {
        checkQueue()
        if let object = registered[objectID] { return object }
        let object = makeObject(objectID: objectID)
        // In a child, an object the parent inserted (a temporary ID) is filled from the parent.
        if parent != nil && objectID.isTemporaryID { object.turnIntoFault(forChild: true) }
        register(object)
        return object
    }

    /// The object for an ID, with its values loaded; throws 133000 when it does not exist (or is
    /// deleted in this context).
    public func existingObject(with objectID: ObjectID) throws -> ManagedObject {
        checkQueue()
        defer { settleRows() }
        if let object = registered[objectID] {
            if object.isDeleted { throw PersistentStoreCoordinator.missing(objectID) }
            if !object.isFault { return object }
        }
        if objectID.isTemporaryID && parent == nil { throw PersistentStoreCoordinator.missing(objectID) }
        let node = try sourceNode(for: objectID)
        return materialize(node)
    }

    // MARK: Insert and delete

    /// Inserts a new object of an entity, with the model's default values set.
    /// Throws 134060 for an unknown entity, 1550 for an abstract one.
    @discardableResult
    public func insert(entityName: String) throws -> ManagedObject {
        checkQueue()
        // Inserts come in runs of one entity: the last entity's layout serves again without a
        // lookup by name (the model never changes; only insertable entities are kept).
        if let lastInserted, lastInserted.name == entityName {
            let layout = lastInserted.layout
            let object = objectClass(for: layout).init(layout: layout, objectID: .temporary(scope: layout.temporaryScope))
            enterInserted(object)
            object.awakeFromInsert()
            return object
        }
        guard let layout = coordinator.model.layout(ofEntity: entityName) else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        guard !layout.entity.isAbstract else {
            throw StoreError(
                .managedObjectValidation, "\(entityName) is abstract; insert one of its sub-entities",
                entityName: entityName)
        }
        lastInserted = (entityName, layout)
        let object = objectClass(for: layout).init(layout: layout, objectID: .temporary(scope: layout.temporaryScope))
        enterInserted(object)
        object.awakeFromInsert()
        return object
    }

    /// Registers a new object as inserted, with its entity's default values.
    private func enterInserted(_ object: ManagedObject) {
        object.values = Self.ownCopy(of: object.layout.defaultValues)
        object.isFault = false
        object.isInserted = true
        register(object)
        // The count of live undo managers first (an atomic load): reading `undoManager` is an
        // exclusivity check per insert (about 80 instructions), as `didChange` avoids too.
        if ContextUndoManager.live.load(ordering: .relaxed) > 0, undoManager != nil { noteUndoableChange(object) }
        inserted.append(object)
        unannouncedInserts.append(object.objectID)
    }

    /// A buffer of its own with `values`, copied value by value: an inserted object shared the
    /// layout's default buffer until its first set copied it, through the runtime's generic
    /// array copy (`swift_arrayInitWithCopy`, about 350 instructions for six values in W1;
    /// docs/benchmarks.md). Inserts are set: the copy is made here, specialised, instead.
    private static func ownCopy(of values: [StoreValue]) -> [StoreValue] {
        var copy: [StoreValue] = []
        copy.reserveCapacity(values.count)
        for value in values { copy.append(value) }
        return copy
    }

    /// Inserts a new object of a registered subclass (its ``ManagedObject/entityName``).
    public func insert<T: ManagedObject>(_ type: T.Type) throws -> T {
        coordinator.register(type)
        let object = try insert(entityName: type.entityName)
        guard let typed = object as? T else {
            throw StoreError(.coreData, "\(type) is not the class registered for \(type.entityName)", entityName: type.entityName)
        }
        return typed
    }

    /// Marks an object deleted. Its delete rules apply when pending changes are processed; the
    /// store forgets it at the next save. Deleting an unsaved insert simply drops it at save.
    public func delete(_ object: ManagedObject) {
        checkQueue()
        guard object.isIn(self), !object.isDeleted else { return }
        if undoManager != nil { noteUndoableChange(object) }
        object.isDeleted = true
        deleted[ObjectKey(object)] = object
        unpropagatedDeletes.append(object)
        unannounced.deletedObjectIDs.insert(object.objectID)
    }

    /// Sends an inserted object to a particular store at save (instead of the first store whose
    /// configuration holds its entity).
    public func assign(_ object: ManagedObject, to store: StoreHandle) {
        guard object.objectID.isTemporaryID else { return }
        assignments[object.objectID] = store.identifier
    }

    /// Applies the delete rules of pending deletes (nullify, cascade), transitively and
    /// cycle-safe, then posts ``ContextEvent/objectsDidChange(_:)`` when anything changed.
    public func processPendingChanges() throws {
        while !unpropagatedDeletes.isEmpty {
            let object = unpropagatedDeletes.removeFirst()
            for relationship in coordinator.model.relationships(of: object.entity.name) {
                switch relationship.deleteRule {
                case .cascade:
                    for destination in try object.destinations(of: relationship) where !destination.isDeleted {
                        delete(destination)
                    }
                    try nullifyInverse(of: relationship, from: object)
                case .nullify:
                    try nullifyInverse(of: relationship, from: object)
                case .deny, .noAction:
                    break
                }
            }
        }
        if let undoManager, undoManager.groupsByEvent { closeUndoGroup() }
        announceChanges()
    }

    private func announceChanges() {
        var changes = unannounced
        let inserts = unannouncedInserts
        unannounced = ContextDidSave()
        unannouncedInserts = []
        guard !inserts.isEmpty || !changes.updatedObjectIDs.isEmpty || !changes.deletedObjectIDs.isEmpty else { return }
        // Nobody to tell: the set of inserted IDs is not built.
        guard !observers.isEmpty || !eventStreams.isEmpty else { return }
        changes.insertedObjectIDs.formUnion(inserts)
        post(.objectsDidChange(changes))
    }

    private func nullifyInverse(of relationship: RelationshipDescription, from object: ManagedObject) throws {
        guard let inverse = coordinator.model.inverse(of: relationship) else { return }
        for destination in try object.destinations(of: relationship) where !destination.isDeleted {
            try destination.primitiveRemove(object, from: inverse)
        }
    }

    // MARK: Fetch

    /// The objects a request matches, filtered by its predicate, sorted by its sort keys and
    /// windowed by offset and limit.
    ///
    /// With ``FetchRequest/includesPendingChanges`` (the default) the context's unsaved changes
    /// count: unsaved inserts that match the predicate are included, unsaved deletes left out,
    /// and changed objects are matched and sorted by their current (unsaved) values. Without
    /// sort keys, stored objects come first in the store's order, then matching unsaved objects
    /// in the order they were registered.
    public func fetch(_ request: FetchRequest) throws -> [ManagedObject] {
        checkQueue()
        defer { settleRows() }
        let objects: [ManagedObject]
        if let merged = try fetchMergingPendingChanges(request) {
            objects = merged
        } else if request.fetchBatchSize > 0 {
            return try fetchInBatches(request)
        } else {
            // A request for objects (the usual case) goes as it is: a copy would retain and
            // release each of its references.
            let answer: StoreResult
            // Rows a concurrent fetch left for the row cache (the coordinator's lock was busy)
            // go in once the objects are made, and before `settleRows` gives any count back
            // (defers run last first).
            var later: PersistentStoreCoordinator.PendingRows?
            defer { if let later { coordinator.remember(later) } }
            if request.resultType == .managedObjects, parent == nil {
                answer = try coordinator.execute(request, rememberingLater: &later)
            } else if request.resultType == .managedObjects {
                answer = try sourceExecute(request, remembering: true)
            } else {
                var storeRequest = request
                storeRequest.resultType = .managedObjects
                answer = try sourceExecute(storeRequest, remembering: true)
            }
            guard case .nodes(let nodes) = answer else { return [] }
            objects = materializeFetched(nodes, asFaults: request.returnsObjectsAsFaults)
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: objects)
        }
        return objects
    }

    /// A batched fetch (Core Data's): the matching IDs are fetched at once and returned as
    /// faults; the first fault of a batch that fires fills its whole batch with one fetch, and
    /// turns the unchanged objects of the batch filled before back into faults, so iterating the
    /// result holds about one batch of filled objects at a time.
    private func fetchInBatches(_ request: FetchRequest) throws -> [ManagedObject] {
        var idRequest = request
        idRequest.resultType = .objectIDs
        idRequest.relationshipKeyPathsForPrefetching = []
        guard case .objectIDs(let ids) = try sourceExecute(idRequest, remembering: false) else { return [] }
        var batchRequest = FetchRequest(entityName: request.entityName)
        batchRequest.includesSubentities = request.includesSubentities
        batchRequest.includesPendingChanges = false
        batchRequest.relationshipKeyPathsForPrefetching = request.relationshipKeyPathsForPrefetching
        let group = FaultBatchGroup(request: batchRequest)
        registered.reserveCapacity(forKeysOf: ids) { $0 }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(ids.count)
        for start in stride(from: 0, to: ids.count, by: request.fetchBatchSize) {
            let batch = FaultBatch(ids: Array(ids[start..<min(start + request.fetchBatchSize, ids.count)]), group: group)
            for id in batch.ids {
                let object = object(with: id)
                if object.isFault && !object.fillsFromCommitted { object.faultBatch = batch }
                objects.append(object)
            }
        }
        return objects
    }

    /// Fills the faults of a batch with one fetch, and turns the unchanged objects of the batch
    /// filled before it back into faults.
    private func fill(_ batch: FaultBatch) throws {
        let request = batch.group.request
        let previous = batch.group.loaded
        let filled = materializeFetched(try sourceNodes(for: batch.ids))
        // The objects keep their batch (which keeps it alive for the group's weak reference and
        // lets them fill together again once they are faults again).
        batch.group.loaded = batch
        if let previous, previous !== batch {
            for id in previous.ids {
                guard let object = registered[id], object.faultBatch === previous, !object.isFault, !object.hasChanges else {
                    continue
                }
                fault(object)
            }
        }
        if !request.relationshipKeyPathsForPrefetching.isEmpty {
            try prefetch(request.relationshipKeyPathsForPrefetching, for: filled)
        }
    }

    /// Every object of an entity (and its sub-entities).
    public func fetch(entityName: String) throws -> [ManagedObject] {
        try fetch(FetchRequest(entityName: entityName))
    }

    /// The objects of a registered subclass's entity that `request` matches (default: all).
    public func fetch<T: ManagedObject>(_ type: T.Type, _ request: FetchRequest? = nil) throws -> [T] {
        coordinator.register(type)
        return try fetch(request ?? FetchRequest(entityName: type.entityName)).compactMap { $0 as? T }
    }

    /// The IDs of the objects a request matches (pending changes as in ``fetch(_:)``).
    public func fetchObjectIDs(_ request: FetchRequest) throws -> [ObjectID] {
        checkQueue()
        defer { settleRows() }
        if let merged = try fetchMergingPendingChanges(request) { return merged.map(\.objectID) }
        var storeRequest = request
        storeRequest.resultType = .objectIDs
        guard case .objectIDs(let ids) = try sourceExecute(storeRequest, remembering: true) else { return [] }
        return ids
    }

    /// The number of objects ``fetch(_:)`` would return.
    public func count(for request: FetchRequest) throws -> Int {
        checkQueue()
        defer { settleRows() }
        if let merged = try fetchMergingPendingChanges(request) { return merged.count }
        var storeRequest = request
        storeRequest.resultType = .count
        guard case .count(let count) = try sourceExecute(storeRequest, remembering: true) else { return 0 }
        return count
    }

    /// Dictionaries of the saved values (``FetchResultType/dictionaries``: properties to fetch,
    /// distinct results, grouping and aggregates). As in Core Data, unsaved changes are not
    /// included in dictionary results.
    public func fetchDictionaries(_ request: FetchRequest) throws -> [[String: StoreValue]] {
        checkQueue()
        var storeRequest = request
        storeRequest.resultType = .dictionaries
        guard case .dictionaries(let rows) = try sourceExecute(storeRequest, remembering: true) else { return [] }
        return rows
    }

    /// The objects of a fetch with the pending changes merged in, or nil when no pending change
    /// can affect it (then the store answers the request as it is).
    private func fetchMergingPendingChanges(_ request: FetchRequest) throws -> [ManagedObject]? {
        guard request.includesPendingChanges else { return nil }
        try processPendingChanges()
        let valuesMatter = request.predicate != nil || !request.sortKeys.isEmpty
        guard !inserted.isEmpty || !deleted.isEmpty || (valuesMatter && !updated.isEmpty) else { return nil }
        let entities = Set(request.matchingEntityNames(in: coordinator.model))
        let pending = Array(inserted.values) + Array(deleted.values) + (valuesMatter ? updated.values.filter(\.isUpdated) : [])
        guard pending.contains(where: { entities.contains($0.entity.name) }) else { return nil }

        var storeRequest = request
        storeRequest.resultType = .managedObjects
        storeRequest.fetchOffset = 0
        storeRequest.fetchLimit = 0
        storeRequest.relationshipKeyPathsForPrefetching = []
        guard case .nodes(let nodes) = try sourceExecute(storeRequest, remembering: true) else { return [] }
        let evaluator = PredicateEvaluator()
        func matches(_ object: ManagedObject) throws -> Bool {
            guard let predicate = request.predicate else { return true }
            return try evaluator.evaluate(predicate, with: object)
        }
        var result: [ManagedObject] = []
        var seen: Set<ObjectIdentifier> = []
        for object in materializeFetched(nodes) where !object.isDeleted {
            // The store matched the saved values; a changed object is matched again by its own.
            if object.isUpdated, try !matches(object) { continue }
            result.append(object)
            seen.insert(ObjectIdentifier(object))
        }
        let candidates = (Array(inserted.values) + (valuesMatter ? updated.values.filter(\.isUpdated) : []))
            .filter { entities.contains($0.entity.name) && !$0.isDeleted && !seen.contains(ObjectIdentifier($0)) }
            .sorted { $0.registrationOrder < $1.registrationOrder }
        for object in candidates where try matches(object) { result.append(object) }
        if !request.sortKeys.isEmpty {
            result = try SortKey.sort(result, by: request.sortKeys, evaluator: evaluator) { $0 }
        }
        return Array(QueryEngine.window(result, offset: request.fetchOffset, limit: request.fetchLimit))
    }

    // MARK: Save

    /// Saves inserts, updates and deletes to the stores: posts will-save, applies delete rules,
    /// checks deny rules (1600) and validation (every failure at once: one error, or 1560
    /// listing each), assigns permanent IDs, resolves conflicts by ``mergePolicy``, and has each
    /// store apply its part all-or-nothing; then posts did-save here and on the coordinator.
    /// A save without changes does nothing (unless store metadata was set, which it writes).
    /// A failed save leaves every change pending.
    public func save() throws {
        checkQueue()
        defer { settleRows() }
        try processPendingChanges()
        guard hasChanges || !deferredErrors.isEmpty || (parent == nil && coordinator.hasUnsavedMetadata) else { return }
        post(.willSave)
        try processPendingChanges()
        try deriveAttributes()
        // In insertion order, so stores that number rows hand out keys in that order.
        var insertedObjects = insertedInRegistrationOrder()
        try validateForSave(inserting: insertedObjects)
        if let parent {
            try push(into: parent, inserted: insertedObjects)
            return
        }
        try assignPermanentIDs(for: insertedObjects)

        var attempts = 0
        var outcome = SaveOutcome()
        var request: SaveChangesRequest
        while true {
            request = try saveRequest(inserting: insertedObjects)
            if !obtainedPermanentIDs.isEmpty { request.keptObjectIDs = obtainedPermanentIDs }
            do {
                outcome = try coordinator.save(request, insertedRowsHeld: true)
                break
            } catch let error as StoreError where error.code == .managedObjectMerge {
                attempts += 1
                guard mergePolicy != .error, attempts < Self.maximumSaveAttempts else { throw describeConflicts(error) }
                try resolveConflicts(error.objectIDs)
            } catch let error as StoreError where error.code == .managedObjectConstraintMerge {
                attempts += 1
                guard mergePolicy != .error, attempts < Self.maximumSaveAttempts else { throw error }
                try resolveConstraintConflicts(error)
                insertedObjects = insertedInRegistrationOrder()
                try validateForSave(inserting: insertedObjects)
            }
        }

        let versions = outcome.versions
        obtainedPermanentIDs = []
        if !outcome.replacedObjectIDs.isEmpty { replaceObjectIDs(outcome.replacedObjectIDs, in: &request) }
        let updatedObjects = updated.values.filter(\.isUpdated)
        // The sets of IDs are made only when someone is told of the save (this context's
        // observers and event streams, the coordinator's; each set hashed every saved ID, about
        // 300 instructions per inserted object in W1). Observers added on another thread while
        // this save ends are told of the next one, as when they come a moment later.
        let coordinatorObservers = coordinator.saveObservers()
        let saved: ContextDidSave
        if coordinatorObservers.isEmpty && observers.isEmpty && eventStreams.isEmpty {
            saved = ContextDidSave()
        } else {
            // IDs read by closures, not key paths: a key path's getter checks exclusivity on each
            // object (the `@exclusivity(unchecked)` of `objectID` does not reach it; about 80
            // instructions per object).
            saved = ContextDidSave(
                insertedObjectIDs: Set(insertedObjects.map { $0.objectID }), updatedObjectIDs: Set(updatedObjects.map { $0.objectID }),
                deletedObjectIDs: Set(deleted.values.filter { !$0.objectID.isTemporaryID }.map { $0.objectID }))
        }
        // The request's nodes are the objects' values as saved: they become the committed
        // snapshots (one snapshot per saved object, not a second one after the save).
        // The versions by position when the coordinator could give them so (one store saved the
        // whole request), else by ID.
        let versionsInOrder = outcome.versionsInRequestOrder.flatMap {
            $0.count == request.insertedObjects.count + request.updatedObjects.count ? $0 : nil
        }
        // The request is done with: each object's node gives its slots up to the object's
        // committed snapshot (moved, not copied: a copy retained the node's buffers, cold by now
        // in a large save, and dropping the request released them again).
        func finish(_ objects: [ManagedObject], _ nodes: inout [StoreNode], isInsert: Bool, firstPosition: Int) {
            // By index (iterating would copy each node first).
            for (index, object) in objects.enumerated() where index < nodes.count {
                // Built from these arrays in this order (saveRequest); `updated` has not changed since.
                let requested = (objectID: nodes[index].objectID, version: nodes[index].version)
                // Values the store chose while writing (a SwiftData DataStore's re-registered snapshots).
                let changedByStore = outcome.changedObjectIDs.contains(object.objectID)
                if requested.objectID == object.objectID && !changedByStore {
                    // The object's own node, as saved: its slots become the committed snapshot
                    // at the saved version, with no copy of the node made to change its version
                    // and handed to `committed` (about 190 instructions per object fewer).
                    // An insert its store left out of the versions is at 1 (`StoreResult.saved`).
                    let version =
                        versionsInOrder?[firstPosition + index] ?? versions[object.objectID] ?? (isInsert ? 1 : requested.version)
                    object.version = version
                    if let slots = nodes[index].takeSlots(in: object.layout) {
                        object.takeCommitted(values: slots.values, toManys: slots.toManys, version: version)
                    } else {
                        object.keepCommitted(slotsOf: nodes[index], version: version)
                    }
                } else {
                    var committed = requested.objectID == object.objectID ? nodes[index] : object.snapshot()
                    if changedByStore, let stored = try? coordinator.node(for: object.objectID) { committed = stored }
                    committed.version = versions[object.objectID] ?? (isInsert ? 1 : requested.version)
                    object.version = committed.version
                    object.committed = committed
                }
                object.adoptCommittedValues()
                if changedByStore { object.adoptCommittedPersistentValues() }
                if isInsert {
                    // The coordinator entered the new row held once: by this object.
                    object.holdsRow = true
                } else if !object.holdsRow {
                    // The save put the row in the cache; this object now holds it.
                    object.holdsRow = true
                    rowsToRetain.append(object.objectID)
                }
                object.changedKeys = []
                object.isInserted = false
            }
        }
        let insertedCount = request.insertedObjects.count
        finish(insertedObjects, &request.insertedObjects, isInsert: true, firstPosition: 0)
        finish(updatedObjects, &request.updatedObjects, isInsert: false, firstPosition: insertedCount)
        endSave(saved)
        for handler in coordinatorObservers { handler(saved) }
    }

    /// The inserted objects that are not deleted, in registration order.
    private func insertedInRegistrationOrder() -> [ManagedObject] {
        // In insertion order, when known: no visit of a dictionary. Objects are registered as
        // they are inserted, so their orders ascend; they are checked to (which also proves no
        // object is there twice), and the orders are sorted out below if not.
        if let log = inserted.inInsertionOrder {
            var previous = Int.min
            var inOrder = true
            var anyDeleted = false
            for index in log.indices {
                let object = log[index]
                let order = object.registrationOrder
                if order <= previous {
                    inOrder = false
                    break
                }
                previous = order
                if object.isDeleted { anyDeleted = true }
            }
            if inOrder { return anyDeleted ? log.filter { !$0.isDeleted } : log }
        }
        // Appended to an array of the table's size (`filter` grows its result as it goes).
        var objects: [ManagedObject] = []
        objects.reserveCapacity(inserted.count)
        for object in inserted.values where !object.isDeleted { objects.append(object) }
        return Self.inRegistrationOrder(objects)
    }

    /// `objects` in ascending ``ManagedObject/registrationOrder`` (the orders of a context's
    /// objects are distinct). When their orders are dense — at most twice as many as the
    /// objects, as the inserts of a save usually are — each object is placed at its order's
    /// index of a table spanning them, with no comparisons (sorting cost about 400
    /// instructions per inserted object in W1; docs/benchmarks.md); otherwise, or should two
    /// share an order, they are sorted.
    static func inRegistrationOrder(_ objects: [ManagedObject]) -> [ManagedObject] {
        func sorted() -> [ManagedObject] { objects.sorted { $0.registrationOrder < $1.registrationOrder } }
        guard objects.count > 1 else { return objects }
        var lowest = Int.max
        var highest = Int.min
        for object in objects {
            let order = object.registrationOrder
            if order < lowest { lowest = order }
            if order > highest { highest = order }
        }
        guard highest - lowest < objects.count * 2 else { return sorted() }
        var table = [ManagedObject?](repeating: nil, count: highest - lowest + 1)
        for object in objects {
            let index = object.registrationOrder - lowest
            guard table[index] == nil else { return sorted() }
            table[index] = object
        }
        var ordered: [ManagedObject] = []
        ordered.reserveCapacity(objects.count)
        for case let object? in table { ordered.append(object) }
        return ordered
    }

    /// What ends every successful save (to the stores or into a parent): deleted objects leave,
    /// pending changes and the undo history are forgotten, did-save is posted here.
    private func endSave(_ saved: ContextDidSave) {
        for object in deleted.values { detach(object) }
        clearPendingChanges()
        forgetUndoHistory()
        post(.didSave(saved))
    }

    /// A child's save (see `ManagedObjectContext+Parent.swift`): makes the parent's objects what
    /// this context's are — inserts inserted with the same IDs, every property of an insert and
    /// the changed ones of an update set through the ordinary setters, deletes deleted — then
    /// takes this context's objects as saved and posts did-save here.
    private func push(into parent: ManagedObjectContext, inserted insertedObjects: [ManagedObject]) throws {
        let updatedObjects = updated.values.filter(\.isUpdated).sorted { $0.registrationOrder < $1.registrationOrder }
        let deletedObjects = deleted.values.filter { !$0.isInserted }
        var counterparts: [ObjectIdentifier: ManagedObject] = [:]
        for object in insertedObjects { counterparts[ObjectIdentifier(object)] = parent.insertFromChild(object) }
        func counterpart(_ object: ManagedObject) throws -> ManagedObject {
            if let known = counterparts[ObjectIdentifier(object)] { return known }
            let found = try parent.parentObject(for: object.objectID)
            counterparts[ObjectIdentifier(object)] = found
            return found
        }
        let changes: [(ManagedObject, Set<String>?)] = insertedObjects.map { ($0, nil) } + updatedObjects.map { ($0, $0.changedKeys) }
        for (object, keys) in changes {
            let target = try counterpart(object)
            let layout = object.layout
            func pushes(_ name: String) -> Bool { keys?.contains(name) ?? true }
            for attribute in layout.attributes where !attribute.isTransient && pushes(attribute.name) {
                try target.setValue(object.value(forKey: attribute.name), forKey: attribute.name)
            }
            for relationship in layout.toOnes where !relationship.isTransient && pushes(relationship.name) {
                try target.setObject(try object.object(forKey: relationship.name).map(counterpart), forKey: relationship.name)
            }
            for relationship in layout.toManys where !relationship.isTransient && pushes(relationship.name) {
                // An unloaded to-many did not change.
                guard object.toManyValues[relationship.name] != nil else { continue }
                try target.setObjects(try object.objects(forKey: relationship.name).map(counterpart), forKey: relationship.name)
            }
        }
        for object in deletedObjects {
            guard let target = try? counterpart(object) else { continue }
            parent.delete(target)
        }
        try parent.processPendingChanges()

        let saved = ContextDidSave(
            insertedObjectIDs: Set(insertedObjects.map { $0.objectID }), updatedObjectIDs: Set(updatedObjects.map { $0.objectID }),
            deletedObjectIDs: Set(deletedObjects.map { $0.objectID }))
        for object in insertedObjects + updatedObjects {
            object.committed = object.snapshot()
            object.adoptCommittedValues()
            object.changedKeys = []
            object.isInserted = false
        }
        endSave(saved)
    }

    /// The object a child's save inserts: the child's object's entity and ID, inserted here.
    func insertFromChild(_ object: ManagedObject) -> ManagedObject {
        if let existing = registered[object.objectID] { return existing }
        let copy = objectClass(for: object.layout).init(layout: object.layout, objectID: object.objectID)
        enterInserted(copy)
        return copy
    }

    /// Computes the derived attributes (``AttributeDerivation``) of every object this save
    /// writes: inserted objects and objects with changes. A value that did not change is not
    /// set again, so deriving alone never makes an object changed (`now()` changes with every
    /// save of the object).
    private func deriveAttributes() throws {
        guard coordinator.hasDerivedAttributes else { return }
        var evaluator: PredicateEvaluator?
        let now = Date()
        for object in Array(inserted.values) + Array(updated.values) where !object.isDeleted && (object.isInserted || object.isUpdated) {
            let layout = object.layout
            guard !layout.derivations.isEmpty else { continue }
            if evaluator == nil { evaluator = PredicateEvaluator() }
            guard let evaluator else { continue }
            for (slot, derivation) in layout.derivations {
                let attribute = layout.attributes[slot]
                let value = try derivation.value(for: object, type: attribute.type, evaluator: evaluator, now: now)
                if object.value(forKey: attribute.name) != value { try object.setValue(value, forKey: attribute.name) }
            }
        }
    }

    /// Validates the objects to save; `insertedObjects` are the inserted objects that are not
    /// deleted, in registration order.
    private func validateForSave(inserting insertedObjects: [ManagedObject]) throws {
        var errors = deferredErrors
        errors += try denyErrors()
        for object in insertedObjects {
            // Appended only when there are any (appending an empty array still makes the
            // array unique, a copy for the first object).
            let found = object.validationErrors(for: .insert)
            if !found.isEmpty { errors += found }
        }
        for object in updated.values where object.isUpdated {
            errors += object.validationErrors(for: .update)
        }
        for object in deleted.values where !object.isInserted {
            errors += object.validationErrors(for: .delete)
        }
        deferredErrors = []
        if errors.count == 1, let only = errors.first { throw only }
        if !errors.isEmpty {
            throw StoreError(
                .validationMultipleErrors,
                "Multiple validation errors occurred (\(errors.count)): " + errors.map(\.message).joined(separator: "; "),
                objectIDs: errors.flatMap(\.objectIDs), underlyingErrors: errors)
        }
    }

    private func saveRequest(inserting insertedObjects: [ManagedObject]) throws -> SaveChangesRequest {
        let updatedObjects = updated.values.filter(\.isUpdated)
        let deletedObjects = deleted.values.filter { !$0.objectID.isTemporaryID && !$0.isInserted }
        var request = SaveChangesRequest()
        // The first node, inserts then updates, that points at a temporary ID, checked as each
        // node is made (reading the nodes again from the request copied each one) and thrown
        // once all are made.
        var dangling: (node: StoreNode, destination: ObjectID)?
        request.insertedObjects = insertedObjects.map { object in
            var node = object.snapshot()
            node.version = 0
            if dangling == nil, let first = node.firstTemporaryDestination() { dangling = (node, first) }
            return node
        }
        request.updatedObjects = updatedObjects.map { object in
            let node = object.snapshot()
            if dangling == nil, let first = node.firstTemporaryDestination() { dangling = (node, first) }
            return node
        }
        request.deletedObjects = deletedObjects.map { StoreNode(objectID: $0.objectID, version: $0.version) }
        request.transactionAuthor = transactionAuthor
        request.contextName = name
        for object in updatedObjects { request.changedKeys[object.objectID] = object.changedKeys }
        if let (node, first) = dangling {
            throw StoreError(
                .managedObjectReferentialIntegrity,
                "\(node.entityName) \(node.objectID) points at \(first.entityName) \(first), which was deleted before it was ever saved",
                objectIDs: [node.objectID, first], entityName: node.entityName)
        }
        return request
    }

    /// Moves objects to the IDs a store gave them while saving (``AtomicStore/replaceObjectIDs(_:)``),
    /// with every reference to them in this context's objects and in the saved request's nodes
    /// (which become the objects' committed snapshots).
    private func replaceObjectIDs(_ replacements: [ObjectID: ObjectID], in request: inout SaveChangesRequest) {
        func replaced(_ id: ObjectID) -> ObjectID { replacements[id] ?? id }
        func replacing(_ node: StoreNode) -> StoreNode {
            var copy = node
            copy.objectID = replaced(node.objectID)
            copy.toOne = node.toOne.mapValues(replaced)
            copy.toMany = node.toMany.mapValues { $0.map(replaced) }
            return copy
        }
        request.insertedObjects = request.insertedObjects.map(replacing)
        request.updatedObjects = request.updatedObjects.map(replacing)
        for object in registered.values { object.replaceReferences(replacements) }
        for (old, new) in replacements {
            guard let object = registered.removeValue(forKey: old) else { continue }
            object.objectID = new
            registered[new] = object
        }
    }

    /// Gives inserted objects permanent IDs now (keeping the order given); objects that already
    /// have one are left as they are.
    public func obtainPermanentIDs(for objects: [ManagedObject]) throws {
        try assignPermanentIDs(for: objects)
        // Kept by the application: a store that picks its keys at save leaves them (SaveChangesRequest.keptObjectIDs).
        for object in objects where !object.objectID.isTemporaryID && object.isInserted { obtainedPermanentIDs.insert(object.objectID) }
    }

    /// ``obtainPermanentIDs(for:)`` as a save does it (the IDs are not kept by the application).
    private func assignPermanentIDs(for objects: [ManagedObject]) throws {
        let temporary = objects.filter { $0.objectID.isTemporaryID && !$0.isDeleted }
        guard !temporary.isEmpty else { return }
        // IDs read by a closure, not a key path (see `save()`).
        let permanent = try coordinator.obtainPermanentIDs(
            for: temporary.map { $0.objectID }, assignments: assignments)
        // Read once, not per object (each read of the context's property is checked).
        let hasAssignments = !assignments.isEmpty
        // Each object is moved from its temporary key to its permanent one (a slot of a dense
        // segment each, no hashing; the permanent keys' segment placed first): nothing retained
        // or released. Rebuilding the table when most objects changed key retained every
        // registered object and released it again with the old table, at a save's end when
        // their headers are out of the processor's cache (docs/benchmarks.md, W1). A temporary
        // segment left empty is dropped. The object registered at a temporary ID is the object
        // with that ID (temporary IDs are unique); one not registered is registered at its new
        // ID. A new permanent ID equal to a registered one: the object that got it wins.
        registered.reserveCapacity(forKeysOf: permanent) { $0 }
        for (object, id) in zip(temporary, permanent) {
            if hasAssignments { assignments[object.objectID] = nil }
            if !registered.rekey(object.objectID, { $0.objectID = id }) {
                object.objectID = id
                registered[id] = object
            }
        }
    }

    private func denyErrors() throws -> [StoreError] {
        var errors: [StoreError] = []
        for object in deleted.values {
            for relationship in coordinator.model.relationships(of: object.entity.name) where relationship.deleteRule == .deny {
                let remaining = try object.destinations(of: relationship).filter { !$0.isDeleted }
                guard let first = remaining.first else { continue }
                errors.append(
                    StoreError(
                        .validationRelationshipDeniedDelete,
                        "Deleting \(object.entity.name) \(object.objectID) is denied by \(object.entity.name).\(relationship.name), which still holds \(first.entity.name) \(first.objectID)",
                        objectIDs: [object.objectID], entityName: object.entity.name, propertyName: relationship.name))
            }
        }
        return errors
    }

    // MARK: Conflicts

    /// How many times a save is tried when its merge policy resolves conflicts. Within one
    /// process a resolved save never conflicts again (the coordinator serialises saves), but
    /// another process sharing the store (a SQLite file, a PostgreSQL database) can change the
    /// same rows between a resolution and the retried save; each attempt reads the rows' current
    /// versions again, so a save fails with 133020 under a merge policy only when other processes
    /// won this many times in a row.
    static let maximumSaveAttempts = 64

    /// A 133020 error whose message lists each conflicting object with the version this context
    /// read and what the store holds now.
    private func describeConflicts(_ error: StoreError) -> StoreError {
        let details = error.objectIDs.map { id -> String in
            let read = registered[id]?.version ?? 0
            if let current = try? sourceNode(for: id, refreshingCache: true) {
                return "\(id.entityName) \(id) (read at version \(read), the store has version \(current.version))"
            }
            return "\(id.entityName) \(id) (read at version \(read), deleted from the store)"
        }
        return StoreError(
            .managedObjectMerge, "Optimistic locking failure for \(details.count) object(s): " + details.joined(separator: "; "),
            objectIDs: error.objectIDs)
    }

    private func resolveConflicts(_ objectIDs: [ObjectID]) throws {
        for id in objectIDs {
            guard let object = registered[id] else { continue }
            guard let current = try? sourceNode(for: id, refreshingCache: true) else {
                // Deleted from the store: the delete wins under every policy.
                forget(object)
                continue
            }
            if object.isDeleted {
                switch mergePolicy {
                case .overwrite, .mergeByPropertyObjectTrump, .error:
                    object.setVersion(keepingCommitted: current.version)
                case .rollback, .mergeByPropertyStoreTrump:
                    deleted[ObjectKey(object)] = nil
                    object.isDeleted = false
                    object.fill(from: current, in: self)
                    object.changedKeys = []
                }
                continue
            }
            switch mergePolicy {
            case .overwrite, .error:
                object.setVersion(keepingCommitted: current.version)
            case .rollback:
                object.fill(from: current, in: self)
                object.changedKeys = []
                updated[ObjectKey(object)] = nil
            case .mergeByPropertyObjectTrump:
                object.merge(current, keeping: object.changedKeys, in: self)
            case .mergeByPropertyStoreTrump:
                let storeChanged = object.keysChanged(in: current)
                object.merge(current, keeping: object.changedKeys.subtracting(storeChanged), in: self)
            }
        }
    }

    /// Resolves uniqueness-constraint conflicts by ``mergePolicy`` (Core Data's upsert): the
    /// object already in the store — or, between objects of this save, the one inserted first —
    /// survives and takes the values of the other inserted objects with the same constrained
    /// values, which then leave the context (their relationships move to the survivor as
    /// they are taken). Per property, the inserted object's value is taken:
    /// - ``MergePolicy/mergeByPropertyObjectTrump``: when it has one (a value, a destination);
    /// - ``MergePolicy/overwrite``: always, nil included;
    /// - ``MergePolicy/mergeByPropertyStoreTrump``: when it has one and the survivor has none;
    /// - ``MergePolicy/rollback``: never (the stored object stays as it is).
    ///
    /// A conflict that involves an object that was already saved (an update that gives it the
    /// values of another object) is not resolved: the 133021 error is thrown under every
    /// policy, since resolving it would delete a saved object.
    private func resolveConstraintConflicts(_ error: StoreError) throws {
        for conflict in error.constraintConflicts {
            let saving = conflict.objectIDs.compactMap { registered[$0] }.sorted { $0.registrationOrder < $1.registrationOrder }
            guard saving.count == conflict.objectIDs.count, saving.allSatisfy(\.isInserted) else { throw error }
        }
        for conflict in error.constraintConflicts {
            // Objects an earlier conflict already merged away are gone from the context.
            var saving = conflict.objectIDs.compactMap { registered[$0] }.filter { $0.isIn(self) && $0.isInserted }
            saving.sort { $0.registrationOrder < $1.registrationOrder }
            let survivor: ManagedObject
            if let stored = conflict.storedObjectID {
                survivor = try existingObject(with: stored)
            } else if let first = saving.first {
                survivor = first
                saving.removeFirst()
            } else {
                continue
            }
            for object in saving where object !== survivor { try absorb(object, into: survivor) }
        }
    }

    /// Gives `survivor` the values of the inserted `object` that ``mergePolicy`` takes (see
    /// ``resolveConstraintConflicts(_:)``), through the public setters so inverses follow, then
    /// removes `object` from the context.
    private func absorb(_ object: ManagedObject, into survivor: ManagedObject) throws {
        func isEmpty(_ target: ManagedObject, _ key: String, toMany: Bool) -> Bool {
            toMany ? target.objects(forKey: key).isEmpty : target.value(forKey: key).isNull
        }
        func takes(_ key: String, toMany: Bool) -> Bool {
            switch mergePolicy {
            case .overwrite: return true
            case .mergeByPropertyObjectTrump: return !isEmpty(object, key, toMany: toMany)
            case .mergeByPropertyStoreTrump: return !isEmpty(object, key, toMany: toMany) && isEmpty(survivor, key, toMany: toMany)
            case .rollback, .error: return false
            }
        }
        let layout = survivor.layout
        for attribute in layout.attributes where !attribute.isTransient && object.layout.attributeSlot(of: attribute.name) != nil {
            if takes(attribute.name, toMany: false) { try survivor.setValue(object.value(forKey: attribute.name), forKey: attribute.name) }
        }
        for relationship in layout.toOnes where !relationship.isTransient && object.layout.toOneSlot(of: relationship.name) != nil {
            if takes(relationship.name, toMany: false) { try survivor.setObject(object.object(forKey: relationship.name), forKey: relationship.name) }
        }
        for relationship in layout.toManys where !relationship.isTransient && object.layout.toManySlot(of: relationship.name) != nil {
            if takes(relationship.name, toMany: true) { try survivor.setObjects(object.objects(forKey: relationship.name), forKey: relationship.name) }
        }
        forget(object)
    }

    /// Removes an object from the context as if it never was (deleted elsewhere).
    private func forget(_ object: ManagedObject) {
        let key = ObjectKey(object)
        inserted[key] = nil
        updated[key] = nil
        deleted[key] = nil
        detach(object)
        for other in registered.values { other.primitiveForget(object) }
    }

    // MARK: Refresh, merge, rollback, reset

    /// Brings an object up to date with the store. Without `mergeChanges` its unsaved changes
    /// are discarded and it becomes a fault; with it, the latest store values are loaded and
    /// the object's unsaved changes re-applied over them. An object whose row is gone becomes a
    /// fault (firing it then throws 133000).
    public func refresh(_ object: ManagedObject, mergeChanges: Bool) {
        defer { settleRows() }
        guard object.isIn(self), !object.isInserted else { return }
        object.fetchedValues = [:]
        guard mergeChanges else {
            updated[ObjectKey(object)] = nil
            fault(object)
            return
        }
        guard let current = try? sourceNode(for: object.objectID, refreshingCache: true) else {
            fault(object)
            return
        }
        object.merge(current, keeping: object.changedKeys, in: self)
    }

    /// Brings registered objects up to date with another context's save: deleted objects leave
    /// this context (and the relationships that held them), updated objects are refreshed with
    /// their unsaved changes kept. Posts objects-did-change listing every object the save
    /// inserted, deleted or updated, as Core Data does: the inserted ones are not registered here
    /// (they appear in this context's fetches, and `object(with:)` gives them), but an observer
    /// such as a ``FetchedResultsController`` must hear of them to fetch them.
    public func mergeChanges(from save: ContextDidSave) {
        checkQueue()
        defer { settleRows() }
        for id in save.deletedObjectIDs {
            if let object = registered[id] { forget(object) }
        }
        for id in save.updatedObjectIDs {
            guard let object = registered[id] else { continue }
            // A fault keeping a fetched node must not fill from it now: it is older than this save.
            object.fillsFromCommitted = false
            guard !object.isFault else { continue }
            refresh(object, mergeChanges: true)
        }
        post(.objectsDidChange(save))
    }

    /// Brings registered objects up to date with a transaction of persistent history (a save
    /// made by any context, in this process or another sharing the store), as
    /// ``mergeChanges(from:)`` does with a did-save.
    public func mergeChanges(fromHistory transaction: HistoryTransaction) {
        mergeChanges(from: transaction.objectIDs)
    }

    /// Brings registered objects up to date with the saves of a ``RemoteChange`` (made by
    /// another process or machine), transaction by transaction, as
    /// ``mergeChanges(fromHistory:)`` does.
    public func mergeChanges(fromRemoteChange change: RemoteChange) {
        for transaction in change.transactions { mergeChanges(fromHistory: transaction) }
    }

    /// Undoes every unsaved insert, update and delete: inserted objects leave the context,
    /// changed and deleted ones take their last saved values again.
    public func rollback() {
        checkQueue()
        defer { settleRows() }
        for object in inserted.values { detach(object) }
        for object in Array(updated.values) + Array(deleted.values) where object.isIn(self) {
            object.isDeleted = false
            if let committed = object.committed {
                object.fill(from: committed, in: self)
            } else {
                fault(object)
            }
            object.changedKeys = []
        }
        clearPendingChanges()
        forgetUndoHistory()
    }

    /// Forgets every registered object and every unsaved change; objects already handed out
    /// become detached faults.
    public func reset() {
        checkQueue()
        defer { settleRows() }
        for object in registered.values { detach(object) }
        clearPendingChanges()
        forgetUndoHistory()
    }

    /// Unregisters an object and turns it into a detached fault.
    private func detach(_ object: ManagedObject) {
        if registered[object.objectID] === object { registered[object.objectID] = nil }
        object.isInserted = false
        fault(object)
        object.managedObjectContext = nil
    }

    /// Forgets every unsaved insert, update and delete (the objects themselves are handled by
    /// the caller).
    private func clearPendingChanges() {
        inserted = InsertedObjects()
        updated = [:]
        deleted = [:]
        unpropagatedDeletes = []
        assignments = [:]
        deferredErrors = []
        unannounced = ContextDidSave()
        unannouncedInserts = []
    }

    // MARK: Row cache holds

    /// Tells the coordinator which rows this context's objects now hold or let go, and, when
    /// metrics are on, how the number of objects registered here changed.
    func settleRows() {
        if let gauge = coordinator.registeredObjectsGauge, registered.count != reportedRegisteredCount {
            gauge.add(registered.count - reportedRegisteredCount)
            reportedRegisteredCount = registered.count
        }
        guard !rowsToRetain.isEmpty || !rowsToRelease.isEmpty else { return }
        guard parent == nil else {
            // A child's objects are filled from its parent's objects, not from counted rows.
            rowsToRetain = []
            rowsToRelease = []
            return
        }
        coordinator.retainRows(rowsToRetain, releasing: rowsToRelease)
        rowsToRetain = []
        rowsToRelease = []
    }

    /// Turns an object into a fault, letting go of its row.
    private func fault(_ object: ManagedObject) {
        if object.holdsRow {
            object.holdsRow = false
            rowsToRelease.append(object.objectID)
        }
        object.turnIntoFault()
    }

    // MARK: Internals used by ManagedObject

    func objectDidChange(_ object: ManagedObject) {
        guard !object.isInserted else { return }
        updated[ObjectKey(object)] = object
        unannounced.updatedObjectIDs.insert(object.objectID)
    }

    func fulfillFault(_ object: ManagedObject) throws {
        if let batch = object.faultBatch {
            defer { settleRows() }
            try fill(batch)
            if !object.isFault { return }
        }
        if object.fillsFromCommitted, object.fillFromCommitted(in: self) {
            // A fetch returned this fault with its row (already counted as held).
            return
        }
        defer { settleRows() }
        let node = try sourceNode(for: object.objectID)
        object.fill(from: node, in: self)
    }

    /// The registered object for a node (filled if it was a fault), or a new one.
    /// The objects for the nodes of a fetch made with `remembering: true`, which counted one
    /// holder per node in the row cache: objects filled now hold their row with that count;
    /// objects that already held theirs give the extra count back.
    ///
    /// With `asFaults` (``FetchRequest/returnsObjectsAsFaults``, Core Data's default), objects
    /// that are not filled yet stay faults that keep their node and fill from it on first access:
    /// an object never read costs no filling, and firing asks neither the store nor the lock.
    func materializeFetched(_ nodes: [StoreNode], asFaults: Bool = false) -> [ManagedObject] {
        registered.reserveCapacity(forKeysOf: nodes) { $0.objectID }
        var objects: [ManagedObject] = []
        objects.reserveCapacity(nodes.count)
        // The nodes are read through a buffer pointer, whose subscript lends a node where the
        // array's may return a copy of it (retaining its ID, layout and buffers). Safe: the
        // pointer is used only inside the closure, while `nodes`
        // (a constant parameter) keeps its storage alive and unchanged, and every index comes
        // from the buffer's own `indices`.
        nodes.withUnsafeBufferPointer { nodes in
            for index in nodes.indices {
                let id = nodes[index].objectID
                // One hash lookup: the registration's slot is modified in place, and a new object
                // is made into it. (`registered[id, default:]` also looks up once, but its default
                // is a closure the modify accessor allocates on the heap: two allocations and
                // their release per object, about 770 instructions.)
                let (object, isNew) = registeredObject(in: &registered[id], for: id)
                if isNew {
                    settleNewlyRegistered(object)
                } else if !object.isFault {
                    if object.holdsRow {
                        rowsToRelease.append(id)
                    } else {
                        object.holdsRow = true
                    }
                    objects.append(object)
                    continue
                }
                if asFaults {
                    // The fault keeps its row for its first access (the fetch counted the row
                    // as held), the node borrowed: its value buffer and version are kept without
                    // copying the node (a node in another form, or with to-manys, is copied, out
                    // of line).
                    if object.holdsRow { rowsToRelease.append(id) }
                    if let buffer = nodes[index].valueBuffer(in: object.layout) {
                        object.keepCommitted(values: buffer, version: nodes[index].version)
                    } else {
                        object.keepCommitted(nodes[index])
                    }
                    object.fillsFromCommitted = true
                    object.holdsRow = true
                } else {
                    object.fill(from: nodes[index], in: self, rowCounted: true)
                }
                objects.append(object)
            }
        }
        return objects
    }

    /// The object registered in `slot` (a slot of ``registered``, modified in place), or a new
    /// object for `id` put there; whether it is new. Touches no other registration (the slot is
    /// an access to ``registered`` while this runs).
    @inline(__always)
    private func registeredObject(in slot: inout ManagedObject?, for id: ObjectID) -> (ManagedObject, Bool) {
        if let existing = slot { return (existing, false) }
        let object = makeObject(objectID: id)
        slot = object
        return (object, true)
    }

    func materialize(_ node: StoreNode) -> ManagedObject {
        if let object = registered[node.objectID] {
            if object.isFault { object.fill(from: node, in: self) }
            return object
        }
        let object = newRegisteredObject(for: node.objectID)
        object.fill(from: node, in: self)
        return object
    }

    /// A new object (a fault) for an ID, registered in this context.
    private func newRegisteredObject(for objectID: ObjectID) -> ManagedObject {
        let object = makeObject(objectID: objectID)
        registered[objectID] = object
        settleNewlyRegistered(object)
        return object
    }

    /// Makes an object of a store's row just put in ``registered`` this context's: in a child
    /// context an object with a temporary ID (unsaved in the parent) becomes a fault of the
    /// parent's, and it takes the next registration order.
    private func settleNewlyRegistered(_ object: ManagedObject) {
        if parent != nil && object.objectID.isTemporaryID { object.turnIntoFault(forChild: true) }
        adopt(object)
    }

    private func makeObject(objectID: ObjectID) -> ManagedObject {
        // A fetch makes objects of one entity in a row: the layout and class of the last one
        // serve again without looking the model up (which copies the model's value, retaining
        // and releasing each of its parts). The coordinator's model never changes, so an entity
        // number keeps its layout; the class is the same while the class generation is.
        if let lastMade, lastMade.entityNumber == objectID.entityNumber,
            coordinator.classGeneration.load(ordering: .acquiring) == classCacheGeneration
        {
            return lastMade.type.init(layout: lastMade.layout, objectID: objectID)
        }
        // Object IDs of this context come from the coordinator's model, so the entity exists; a
        // foreign ID with an unknown entity gets an empty layout and stays an unfillable fault.
        guard let layout = coordinator.model.layout(for: objectID) else {
            let layout = EntityLayout(entity: EntityDescription(objectID.entityName), attributes: [], relationships: [])
            return objectClass(for: layout).init(layout: layout, objectID: objectID)
        }
        let type = objectClass(for: layout)
        lastMade = (objectID.entityNumber, layout, type)
        return type.init(layout: layout, objectID: objectID)
    }

    private func objectClass(for layout: EntityLayout) -> ManagedObject.Type {
        let generation = coordinator.classGeneration.load(ordering: .acquiring)
        if generation != classCacheGeneration {
            classCache = [:]
            lastClass = nil
            lastMade = nil
            classCacheGeneration = generation
        }
        // A fetch makes objects of one layout in a row: the last answer needs no lookup.
        if let lastClass, lastClass.layout === layout { return lastClass.type }
        let type: ManagedObject.Type
        if let known = classCache[ObjectIdentifier(layout)] {
            type = known.type
        } else {
            type = coordinator.objectClass(forEntityName: layout.entityName)
            classCache[ObjectIdentifier(layout)] = (layout, type)
        }
        lastClass = (layout, type)
        return type
    }

    /// What ``insert(entityName:)`` needs of an entity.
    private func register(_ object: ManagedObject) {
        adopt(object)
        registered[object.objectID] = object
    }

    /// Points `object` at this context and gives it the next registration order.
    private func adopt(_ object: ManagedObject) {
        object.managedObjectContext = self
        if nextRegistrationOrder >= ManagedObject.registrationOrderLimit { renumberRegistrations() }
        object.registrationOrder = nextRegistrationOrder
        nextRegistrationOrder += 1
    }

    /// Numbers the registered objects again from 0, in the order they had, once the orders
    /// given reach ``ManagedObject``'s `registrationOrderLimit` (2^36 registrations: a context
    /// registering a million objects a second for 19 hours). Only the order of the objects
    /// registered matters (inserts keep it in fetches and saves), and it is kept.
    func renumberRegistrations() {
        let objects = registered.values.sorted { $0.registrationOrder < $1.registrationOrder }
        for (order, object) in objects.enumerated() { object.registrationOrder = order }
        nextRegistrationOrder = objects.count
    }
}
