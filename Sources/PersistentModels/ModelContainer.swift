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
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configurations: [ModelConfiguration],
        registry: StoreRegistry = .shared
    ) throws {
        let configurations = configurations.isEmpty ? [ModelConfiguration()] : configurations
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        try self.init(
            for: schema, migrationPlan: migrationPlan, name: configurations[0].name,
            descriptions: configurations.map { try $0.storeDescription() }, configurations: configurations, registry: registry)
    }

    /// A container for a schema with a store per description (what the public initializers
    /// call once they have the descriptions).
    init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?, name: String, descriptions: [StoreDescription],
        configurations: [ModelConfiguration], registry: StoreRegistry
    ) throws {
        var versions: [ObjectModel] = []
        if let migrationPlan {
            let migration = try SchemaMigration(plan: migrationPlan, registry: registry)
            for description in descriptions {
                try migration.run(on: description, toward: schema.objectModel)
            }
            versions = migration.models
        }
        let container = PersistentContainer(name: name, model: schema.objectModel, versions: versions, registry: registry)
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

extension ModelContainer {
    /// A container for `@Model` classes whose stores come from the configuration layer
    /// (docs/configuration.md) — a YAML or JSON file, `PERSISTENCE_*` environment variables,
    /// command-line overrides — as `PersistentContainer`'s do with
    /// `StoreConfigurationSources.makeContainer`: `PERSISTENCE_STORE_TYPE=XML` switches the
    /// backend without a change to the code.
    ///
    /// ```swift
    /// let container = try ModelContainer(for: Trip.self, Accommodation.self,
    ///                                    configuration: try StoreConfigurationSources())
    /// ```
    ///
    /// The configuration's keys are the container's (`name`, `folder`, `store` or `stores`,
    /// each store's `type`, `path`, `url`, `options`, ...); `name` is the container's name
    /// when the configuration gives none ("default"). The model is the classes': a `model` key
    /// is an error, as is any key no one reads. Store types are looked up in `registry` (the
    /// built-in types are registered there first).
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configuration sources: StoreConfigurationSources, name: String? = nil, registry: StoreRegistry = .shared
    ) throws {
        try self.init(
            for: Schema(forTypes), migrationPlan: migrationPlan, configuration: sources, name: name, registry: registry)
    }

    /// A container for a schema whose stores come from the configuration layer, as the
    /// initializer taking the classes reads them.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil, configuration sources: StoreConfigurationSources,
        name: String? = nil, registry: StoreRegistry = .shared
    ) throws {
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        if let modelPath = sources.scopedReader.string(forKey: "model") {
            throw StoreError(
                .coreData,
                "Configuration key `\(sources.keyPrefix).model` (\(modelPath)): a ModelContainer's model is its @Model classes' "
                    + "(\(schema.types.map { "\($0)" }.joined(separator: ", "))); remove the key")
        }
        let configured = try sources.makeContainer(name: name ?? "default", model: schema.objectModel, registry: registry)
        let descriptions = configured.persistentStoreDescriptions
        let configurations = descriptions.map { description in
            ModelConfiguration(
                configured.name, storeType: description.type, url: description.url, allowsSave: !description.isReadOnly,
                options: description.options)
        }
        try self.init(
            for: schema, migrationPlan: migrationPlan, name: configured.name, descriptions: descriptions,
            configurations: configurations, registry: registry)
    }
}
