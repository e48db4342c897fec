/// The model of `@Model` classes and the stores that hold their objects (SwiftData's
/// `ModelContainer`), over a `PersistentStoreCoordinator`: one object graph, which
/// ``ModelContext`` and `ManagedObjectContext` both work on.
///
/// ```swift
/// let container = try ModelContainer(for: Trip.self, Accommodation.self,
///                                    configurations: ModelConfiguration(isStoredInMemoryOnly: true))
/// let context = ModelContext(container)
/// ```
///
/// The stores are added as a `PersistentContainer` adds them: with automatic migration and
/// inferred mapping, and nothing left behind by a store that fails to open.
public final class ModelContainer: Sendable {
    /// The model built from the classes (`ObjectModel(for:)`).
    public let objectModel: ObjectModel
    /// The coordinator of the container's stores.
    public let coordinator: PersistentStoreCoordinator
    /// The configurations the stores were added from, in order.
    public let configurations: [ModelConfiguration]

    /// A container for `@Model` classes with a store per configuration (one SQLite store in
    /// the default folder when none is given).
    public convenience init(for forTypes: any PersistentModel.Type..., configurations: ModelConfiguration...) throws {
        try self.init(for: forTypes, configurations: configurations)
    }

    /// A container for `@Model` classes with a store per configuration, store types looked up
    /// in `registry` (the built-in types are registered there first).
    public init(
        for forTypes: [any PersistentModel.Type], configurations: [ModelConfiguration], registry: StoreRegistry = .shared
    ) throws {
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let model = try ObjectModel(for: forTypes)
        let container = PersistentContainer(name: configurations[0].name, model: model, registry: registry)
        container.persistentStoreDescriptions = try configurations.map { try $0.storeDescription() }
        try container.loadPersistentStores()
        self.objectModel = model
        self.coordinator = container.persistentStoreCoordinator
        self.configurations = configurations
    }
}
