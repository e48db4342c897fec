import Foundation

/// A context confined to a serial queue of its own (Core Data's private-queue context): the
/// handle is `Sendable`, so any thread or task can hand it work, and the context and its
/// objects are used only inside the closures it runs on its queue.
///
/// ```swift
/// let background = PrivateQueueContext(coordinator: coordinator)
/// let count = try await background.perform { context in
///     let team = try context.insert(entityName: "Team")
///     try team.setValue("Crew", forKey: "name")
///     try context.save()
///     return try context.count(for: FetchRequest(entityName: "Team"))
/// }
/// ```
///
/// - `perform(_:)` (async, returning a value) and `perform(_:)` without `await` (fire and forget)
///   queue the closure; `performAndWait(_:)` runs it and waits, and may be called from inside
///   another closure of the same context (it then runs at once).
/// - Closures are `@Sendable` and return `Sendable` values, so objects cannot leave them: pass
///   object IDs out and ask another context for its own objects
///   (``ManagedObjectContext/object(with:)``).
/// - In debug builds, using the context off its queue (through unchecked code) stops with a
///   message naming the call, as Core Data's concurrency debugging does.
public final class PrivateQueueContext: Sendable {
    /// The coordinator the context reads from and saves to.
    public let coordinator: PersistentStoreCoordinator
    /// The queue the context's closures run on.
    private let queue: DispatchQueue
    private let confinement: ContextQueue
    /// The context. The lock only hands it over: closures run one at a time on `queue`, which
    /// is what keeps the context to one thread at a time.
    private let storage: Locked<ManagedObjectContext>
    /// The coordinator's remote-change observer while ``automaticallyMergesRemoteChanges`` is on.
    private let remoteChangeObserver = Locked<ObserverToken?>(nil)

    /// Creates a context on `coordinator` with a serial queue of its own, labelled `label`.
    public init(coordinator: PersistentStoreCoordinator, label: String = "PersistentStores.PrivateQueueContext") {
        self.coordinator = coordinator
        let queue = DispatchQueue(label: label)
        let tag = ObjectIdentifier(queue).hashValue
        queue.setSpecific(key: ContextQueue.key, value: tag)
        self.queue = queue
        self.confinement = ContextQueue(queue: queue, tag: tag)
        self.storage = Locked(ManagedObjectContext(coordinator: coordinator, confinedTo: confinement))
    }

    /// A child of `parent` (Core Data's child context of a private-queue context): its context
    /// reads through the parent's and its saves push into it (``ManagedObjectContext/init(parent:)``).
    /// Its queue runs on the parent's, so the two never run at once and the child's closures may
    /// use the parent's objects through its context.
    public init(parent: PrivateQueueContext, label: String = "PersistentStores.PrivateQueueContext.child") {
        self.coordinator = parent.coordinator
        self.queue = DispatchQueue(label: label, target: parent.queue)
        // The parent's tag: the check finds it through the target queue.
        self.confinement = ContextQueue(queue: queue, tag: parent.confinement.tag)
        let parentContext = parent.storage.withLock { $0 }
        self.storage = Locked(ManagedObjectContext(coordinator: parent.coordinator, confinedTo: confinement, parent: parentContext))
    }

    /// Runs `body` on the context's queue and returns its result (Core Data's
    /// `perform(_:)` with a return value).
    public func perform<T: Sendable>(_ body: @escaping @Sendable (ManagedObjectContext) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { [storage] in
                let context = storage.withLock { $0 }
                defer { context.settleRows() }
                do {
                    continuation.resume(returning: try body(context))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Queues `body` on the context's queue and returns at once.
    ///
    /// For synchronous code. In asynchronous code, `await` the returning `perform(_:)`: Swift
    /// would otherwise pick this overload for `let x = try await context.perform { $0.hasChanges }`
    /// in top-level code and make `x` an empty tuple, so this one is unavailable there and the
    /// compiler says so.
    @available(*, noasync, message: "in asynchronous code, await the perform that returns the closure's value; in top-level code write its type: let x: Bool = try await context.perform { $0.hasChanges }")
    public func perform(_ body: @escaping @Sendable (ManagedObjectContext) -> Void) {
        queue.async { [storage] in
            let context = storage.withLock { $0 }
            defer { context.settleRows() }
            body(context)
        }
    }

    /// Runs `body` on the context's queue and waits for it; runs it at once when called from a
    /// closure of this context (already on its queue).
    public func performAndWait<T: Sendable>(_ body: @Sendable (ManagedObjectContext) throws -> T) rethrows -> T {
        if confinement.isCurrent { return try body(storage.withLock { $0 }) }
        return try queue.sync { [storage] in
            let context = storage.withLock { $0 }
            defer { context.settleRows() }
            return try body(context)
        }
    }

    /// Whether every ``RemoteChange`` the coordinator's stores post (saves of other processes
    /// and machines) is merged into the context on its queue, as
    /// ``ManagedObjectContext/mergeChanges(fromRemoteChange:)`` does — Core Data's
    /// `automaticallyMergesChangesFromParent` for remote changes. Off by default.
    public var automaticallyMergesRemoteChanges: Bool {
        get { remoteChangeObserver.withLock { $0 != nil } }
        set {
            coordinator.setMergingRemoteChanges(newValue, token: remoteChangeObserver) { [weak self] change in
                self?.perform { $0.mergeChanges(fromRemoteChange: change) }
            }
        }
    }

    deinit {
        if let token = remoteChangeObserver.withLock({ $0 }) { coordinator.removeRemoteChangeObserver(token) }
    }

    /// How the context resolves conflicts at save (``ManagedObjectContext/mergePolicy``).
    public var mergePolicy: MergePolicy {
        get { performAndWait { $0.mergePolicy } }
        set { performAndWait { $0.mergePolicy = newValue } }
    }
}
