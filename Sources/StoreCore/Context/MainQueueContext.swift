import Foundation

/// A context confined to the main actor (Core Data's main-queue context): code on the main
/// actor uses ``context`` directly (or `performAndWait(_:)`); code elsewhere awaits
/// `perform(_:)`.
///
/// ```swift
/// let view = MainQueueContext(coordinator: coordinator)
/// let names = try await view.perform { context in
///     try context.fetch(FetchRequest(entityName: "Team")).compactMap { $0.value(forKey: "name", as: String.self) }
/// }
/// ```
///
/// The context is a main-actor property, so the compiler keeps it (and its objects) on the main
/// actor.
@MainActor
public final class MainQueueContext {
    /// The coordinator the context reads from and saves to.
    public nonisolated let coordinator: PersistentStoreCoordinator
    /// The context, for code on the main actor.
    public let context: ManagedObjectContext

    /// The coordinator's remote-change observer while ``automaticallyMergesRemoteChanges`` is on.
    private nonisolated let remoteChangeObserver = Locked<ObserverToken?>(nil)

    /// Whether every ``RemoteChange`` the coordinator's stores post (saves of other processes
    /// and machines) is merged into the context on the main actor, as
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

    /// Creates a context on `coordinator` confined to the main actor.
    public init(coordinator: PersistentStoreCoordinator) {
        self.coordinator = coordinator
        // The compiler confines `context` to the main actor; no run-time check is needed.
        self.context = ManagedObjectContext(coordinator: coordinator)
    }

    /// Runs `body` on the main actor and returns its result.
    public func perform<T: Sendable>(_ body: @MainActor (ManagedObjectContext) throws -> T) async rethrows -> T {
        defer { context.settleRows() }
        return try body(context)
    }

    /// Queues `body` on the main actor and returns at once.
    ///
    /// For synchronous code. In asynchronous code, `await` the returning `perform(_:)`: Swift
    /// would otherwise pick this overload for `let x = try await context.perform { $0.hasChanges }`
    /// in top-level code and make `x` an empty tuple, so this one is unavailable there and the
    /// compiler says so.
    @available(*, noasync, message: "in asynchronous code, await the perform that returns the closure's value; in top-level code write its type: let x: Bool = try await context.perform { $0.hasChanges }")
    public nonisolated func perform(_ body: @escaping @Sendable @MainActor (ManagedObjectContext) -> Void) {
        Task { @MainActor in
            defer { self.context.settleRows() }
            body(self.context)
        }
    }

    /// Runs `body` at once (the caller is on the main actor). Code elsewhere awaits
    /// `perform(_:)` instead: blocking a thread until the main actor is free is how
    /// deadlocks start.
    public func performAndWait<T: Sendable>(_ body: @MainActor (ManagedObjectContext) throws -> T) rethrows -> T {
        try run(body)
    }

    private func run<T: Sendable>(_ body: @MainActor (ManagedObjectContext) throws -> T) rethrows -> T {
        defer { context.settleRows() }
        return try body(context)
    }
}
