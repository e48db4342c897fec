/// How far a migration or a store copy has come: objects done out of the total. A handler
/// given to ``PersistentStoreCoordinator/migratePersistentStore(_:to:type:options:progress:)``
/// receives one value when the objects are counted and a last one with `done == total` once the
/// destination holds them all.
///
/// ```swift
/// try coordinator.migratePersistentStore(store, to: url, type: "Binary") { progress in
///     print("\(progress.done)/\(progress.total)")
/// }
/// ```
public struct MigrationProgress: Sendable, Hashable, CustomStringConvertible {
    /// Objects read, mapped and handed to the destination so far.
    public var done: Int
    /// Objects in the source store.
    public var total: Int

    /// Creates a progress value.
    public init(done: Int, total: Int) {
        self.done = done
        self.total = total
    }

    /// The fraction done, 0…1 (1 for an empty store).
    public var fraction: Double { total == 0 ? 1 : Double(done) / Double(total) }

    /// `"done/total"`.
    public var description: String { "\(done)/\(total)" }
}

/// What receives ``MigrationProgress`` values.
public typealias MigrationProgressHandler = @Sendable (MigrationProgress) -> Void
