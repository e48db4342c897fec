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
/// inferred mapping, and nothing left behind by a store that fails to open. With a
/// ``SchemaMigrationPlan``, a store written with an earlier version of the classes is moved
/// through the plan's stages first, and a store written with a version the plan does not list
/// is refused (134130).
public final class ModelContainer: Sendable {
    /// The model built from the classes (`ObjectModel(for:)`).
    public let objectModel: ObjectModel
    /// The classes and version the container was made for.
    public let schema: Schema
    /// The plan stores were migrated with; nil when none was given.
    public let migrationPlan: (any SchemaMigrationPlan.Type)?
    /// The coordinator of the container's stores.
    public let coordinator: PersistentStoreCoordinator
    /// The configurations the stores were added from, in order.
    public let configurations: [ModelConfiguration]
    /// The main context, once ``mainContext`` made it.
    let mainContextBox = MainContextBox()

    /// A container for `@Model` classes with a store per configuration (one SQLite store in
    /// the default folder when none is given).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: ModelConfiguration...
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for `@Model` classes with a store per configuration, store types looked up
    /// in `registry` (the built-in types are registered there first).
    public convenience init(
        for forTypes: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations: [ModelConfiguration], registry: StoreRegistry = .shared
    ) throws {
        try self.init(for: Schema(forTypes), migrationPlan: migrationPlan, configurations: configurations, registry: registry)
    }

    /// A container for a schema with a store per configuration.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: ModelConfiguration...
    ) throws {
        try self.init(for: schema, migrationPlan: migrationPlan, configurations: configurations)
    }

    /// A container for a schema with a store per configuration, store types looked up in
    /// `registry` (the built-in types are registered there first). With a plan, each store is
    /// first brought to the plan's latest version (``SchemaMigrationPlan``), then added with
    /// the schema's model; every version of the plan counts as a supplied version for the
    /// automatic migration that follows.
    public init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration],
        registry: StoreRegistry = .shared
    ) throws {
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let descriptions = try configurations.map { try $0.storeDescription() }
        var versions: [ObjectModel] = []
        if let migrationPlan {
            let migration = try SchemaMigration(plan: migrationPlan, registry: registry)
            for description in descriptions {
                try migration.run(on: description, toward: schema.objectModel)
            }
            versions = migration.models
        }
        let container = PersistentContainer(
            name: configurations[0].name, model: schema.objectModel, versions: versions, registry: registry)
        container.persistentStoreDescriptions = descriptions
        try container.loadPersistentStores()
        self.objectModel = schema.objectModel
        self.schema = schema
        self.migrationPlan = migrationPlan
        self.coordinator = container.persistentStoreCoordinator
        self.configurations = configurations
    }

    /// A container over a coordinator that already has its stores (a migration stage's).
    init(schema: Schema, coordinator: PersistentStoreCoordinator) {
        self.objectModel = schema.objectModel
        self.schema = schema
        self.migrationPlan = nil
        self.coordinator = coordinator
        self.configurations = []
    }
}
