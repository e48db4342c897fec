extension ModelContainer {
    /// A container whose stores are custom ``DataStore``s, one per configuration (SwiftData's
    /// `ModelContainer(for:migrationPlan:configurations:)` with a `DataStoreConfiguration`):
    ///
    /// ```swift
    /// let configuration = JSONStoreConfiguration(name: "Trips", schema: Schema([Trip.self]), fileURL: url)
    /// let container = try ModelContainer(for: Trip.self, configurations: configuration)
    /// ```
    ///
    /// Each configuration without a schema gets the container's. The migration plan is handed
    /// to each data store's initializer, for the store to migrate its own data (as in
    /// SwiftData); the framework's migration does not run on a data store.
    public convenience init(
        for forTypes: any PersistentModel.Type..., migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations configuration: any DataStoreConfiguration, _ moreConfigurations: any DataStoreConfiguration...
    ) throws {
        try self.init(
            for: Schema(forTypes), migrationPlan: migrationPlan, dataStoreConfigurations: [configuration] + moreConfigurations)
    }

    /// A container for a schema whose stores are custom ``DataStore``s, one per configuration.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        configurations configuration: any DataStoreConfiguration, _ moreConfigurations: any DataStoreConfiguration...
    ) throws {
        try self.init(
            for: schema, migrationPlan: migrationPlan, dataStoreConfigurations: [configuration] + moreConfigurations)
    }

    /// A container for a schema whose stores are custom ``DataStore``s, one per configuration,
    /// their types registered in `registry` (under their names, unless registered there
    /// already). What a store throws while it is made or read is thrown, and no container is
    /// made.
    public convenience init(
        for schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)? = nil,
        dataStoreConfigurations: [any DataStoreConfiguration], registry: StoreRegistry = .shared
    ) throws {
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: schema.objectModel, registry: registry)
        for configuration in dataStoreConfigurations {
            try configuration.addStore(to: coordinator, schema: schema, migrationPlan: migrationPlan, registry: registry)
        }
        self.init(schema: schema, coordinator: coordinator)
    }
}
