

/// Type name → store type. A coordinator adds stores by the name registered here.
///
/// ```swift
/// StoreRegistry.shared.register(JSONFileStore.self, forStoreType: "JSONFile")
/// let store = try coordinator.addPersistentStore(type: "JSONFile", at: url)
/// ```
///
/// The `PersistentStores` module registers the built-in types in ``shared`` when
/// `PersistentStores.registerBuiltInStoreTypes()` runs (a `PersistentContainer` and `storectl`
/// do it for you). Thread-safe.
public final class StoreRegistry: Sendable {
    /// The registry coordinators use unless given another.
    public static let shared = StoreRegistry()

    private let types: Locked<[String: any PersistentStore.Type]>

    /// An empty registry (useful to test a store type in isolation).
    public init() { types = Locked([:]) }

    /// Registers `type` under `name`; registering a name again replaces its type.
    public func register(_ type: any PersistentStore.Type, forStoreType name: String) {
        types.withLock { $0[name] = type }
    }

    /// Registers `type` under its own ``PersistentStore/storeType``.
    public func register(_ type: any PersistentStore.Type) {
        register(type, forStoreType: type.storeType)
    }

    /// Removes the type registered under `name`; adding a store of that type then fails.
    public func unregister(storeType name: String) {
        _ = types.withLock { $0.removeValue(forKey: name) }
    }

    /// The registered type names, sorted.
    public var registeredStoreTypes: [String] { types.withLock { $0.keys.sorted() } }

    /// The type registered under `name`, if any.
    public func storeType(named name: String) -> (any PersistentStore.Type)? {
        types.withLock { $0[name] }
    }

    /// The type registered under `name`, or a 134000 error that lists the registered types and
    /// names the closest one when `name` looks like a typo of it.
    public func requireStoreType(named name: String) throws -> any PersistentStore.Type {
        if let type = storeType(named: name) { return type }
        throw unknownStoreTypeError(name)
    }

    /// The 134000 error for an unregistered type name: the registered types, and the closest
    /// one ("did you mean …?") when there is one.
    public func unknownStoreTypeError(_ name: String) -> StoreError {
        let known = registeredStoreTypes
        let suggestion = EditDistance.closestMatch(to: name, in: known).map { " (did you mean \"\($0)\"?)" } ?? ""
        return StoreError(
            .persistentStoreInvalidType,
            "Unknown store type \"\(name)\"\(suggestion); registered types: \(known.isEmpty ? "none" : known.joined(separator: ", "))")
    }
}
