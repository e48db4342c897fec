import Foundation
import StoreCore

/// What a case body gets: the store type under test, a fresh folder, ways to open and reopen a
/// stack (coordinator + store + context), and expectation helpers.
public struct ConformanceEnvironment: Sendable {
    /// Where the data is read back from in relationship and fetch cases.
    public enum Variant: String, Sendable, CaseIterable {
        /// From a fresh context on the same coordinator (row cache / atomic cache).
        case fromCache
        /// From the store, after the coordinator is torn down and a new one reopens the URL.
        case afterReopen
    }

    /// The store type name under test.
    public let storeType: String
    /// Where the store type is registered.
    public let registry: StoreRegistry
    /// A fresh folder for this run of the case.
    public let directory: URL
    /// The variant.
    public let variant: Variant
    /// The store type's capabilities.
    public let capabilities: StoreCapabilities
    /// Where the stores of this run live when they are not files in ``directory`` (a server's
    /// URLs): the URL for each store name; nil for files.
    public let storeURLs: (@Sendable (_ name: String) -> URL?)?

    /// Creates an environment; `storeURLs` gives the stores' URLs of a store type whose stores
    /// are not files (nil for files in `directory`).
    public init(
        storeType: String, registry: StoreRegistry, directory: URL, variant: Variant, capabilities: StoreCapabilities,
        storeURLs: (@Sendable (_ name: String) -> URL?)? = nil
    ) {
        self.storeType = storeType
        self.registry = registry
        self.directory = directory
        self.variant = variant
        self.capabilities = capabilities
        self.storeURLs = storeURLs
    }

    /// A URL in the case's folder for a store file (or the run's own URL for a store type whose
    /// stores are not files, see ``storeURLs``), or nil for store types that need none and are
    /// not persistent.
    public func storeURL(_ name: String = "store") -> URL? {
        if let storeURLs { return storeURLs(name) }
        if capabilities.contains(.noURL) && !capabilities.contains(.persistent) { return nil }
        return directory.appendingPathComponent("\(name).\(storeType.lowercased())")
    }

    /// A new coordinator for `model` with one store of the type under test added; `versions`
    /// are the earlier model versions automatic migration may start from.
    public func openStack(
        _ model: ObjectModel, url: URL?? = nil, configuration: String? = nil, options: StoreOptions = [:],
        versions: [ObjectModel] = []
    ) throws -> ConformanceStack {
        let coordinator = PersistentStoreCoordinator(model: model, versions: versions, registry: registry)
        let storeURL = url ?? storeURL()
        let store = try coordinator.addPersistentStore(type: storeType, configuration: configuration, at: storeURL, options: options)
        return ConformanceStack(coordinator: coordinator, store: store, context: ManagedObjectContext(coordinator: coordinator))
    }

    /// The stack to read back from, per ``variant``: a new context on the same coordinator, or
    /// (after reopen) a new coordinator on the same URL with a new context.
    public func reload(_ stack: ConformanceStack) throws -> ConformanceStack {
        switch variant {
        case .fromCache:
            return ConformanceStack(
                coordinator: stack.coordinator, store: stack.store, context: ManagedObjectContext(coordinator: stack.coordinator))
        case .afterReopen:
            try stack.coordinator.remove(stack.store)
            return try openStack(
                stack.coordinator.model, url: .some(stack.store.url), configuration: stack.store.configurationName,
                options: stack.store.options)
        }
    }

    /// Tears the coordinator down and opens the same store again, whatever the variant
    /// (for cases that need persistence).
    public func reopen(_ stack: ConformanceStack) throws -> ConformanceStack {
        try stack.coordinator.remove(stack.store)
        return try openStack(
            stack.coordinator.model, url: .some(stack.store.url), configuration: stack.store.configurationName,
            options: stack.store.options)
    }

    // MARK: Expectations

    /// Fails with `message` unless `condition` holds.
    public func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws {
        if !condition { throw ConformanceFailure(message()) }
    }

    /// Fails unless the two values are equal, naming both.
    public func expectEqual<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) throws {
        if actual != expected { throw ConformanceFailure("\(what()): expected \(expected), got \(actual)") }
    }

    /// Fails unless `body` throws a `StoreError` with `code`; returns that error.
    @discardableResult
    public func expectError(
        _ code: StoreError.Code, _ what: @autoclosure () -> String, _ body: () throws -> Void
    ) throws -> StoreError {
        do {
            try body()
        } catch let error as StoreError {
            if error.code == code { return error }
            throw ConformanceFailure("\(what()): expected error \(code.rawValue), got \(error)")
        } catch {
            throw ConformanceFailure("\(what()): expected error \(code.rawValue), got \(error)")
        }
        throw ConformanceFailure("\(what()): expected error \(code.rawValue), but nothing was thrown")
    }
}

/// A coordinator with one store and a context on it.
public struct ConformanceStack {
    /// The coordinator.
    public let coordinator: PersistentStoreCoordinator
    /// The store under test.
    public let store: StoreHandle
    /// A context on the coordinator.
    public let context: ManagedObjectContext

    /// Creates a stack.
    public init(coordinator: PersistentStoreCoordinator, store: StoreHandle, context: ManagedObjectContext) {
        self.coordinator = coordinator
        self.store = store
        self.context = context
    }

    /// The number of objects of an entity the context sees.
    public func count(_ entityName: String) throws -> Int {
        try context.count(for: FetchRequest(entityName: entityName))
    }

    /// Every object of an entity.
    public func fetch(_ entityName: String) throws -> [ManagedObject] {
        try context.fetch(FetchRequest(entityName: entityName))
    }
}
