/// The configuration `ModelContainer` gives the ``DataStoreAdapter`` it is adding, while the
/// coordinator makes it (the adapter is made by the coordinator from its type, like every
/// store, so the configuration travels beside the call).
//
// `@unchecked Sendable`, and why that is safe: a configuration is the application's value
// and need not be `Sendable` (SwiftData's are classes with `var`s). The hand-off is made by
// `DataStoreConfiguration.addStore(to:schema:migrationPlan:)`, bound to the task-local
// `current` for exactly one synchronous `addPersistentStore` call, and read by the adapter's
// initializer inside that call, on the same thread (the coordinator makes stores
// synchronously, within the call). No other thread or task can see the binding, the caller
// does not touch the configuration while the call runs, and nothing keeps the hand-off after
// it returns.
final class DataStoreHandOff: @unchecked Sendable {
    /// The hand-off of the `addPersistentStore` call running on this thread, if any.
    @TaskLocal static var current: DataStoreHandOff?

    /// The data store type the configuration is for.
    let storeType: ObjectIdentifier
    /// The configuration.
    let configuration: any DataStoreConfiguration
    /// The container's schema.
    let schema: Schema
    /// The container's migration plan.
    let migrationPlan: (any SchemaMigrationPlan.Type)?

    init<Configuration: DataStoreConfiguration>(
        _ configuration: Configuration, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?
    ) {
        self.storeType = ObjectIdentifier(Configuration.Store.self)
        self.configuration = configuration
        self.schema = schema
        self.migrationPlan = migrationPlan
    }
}

extension DataStoreConfiguration {
    /// Adds a store of the configuration's data store type to a coordinator, registering the
    /// type in `registry` under its name (``DataStoreAdapter/storeType``) when another type
    /// or none is registered there.
    @discardableResult
    func addStore(
        to coordinator: PersistentStoreCoordinator, schema: Schema, migrationPlan: (any SchemaMigrationPlan.Type)?,
        registry: StoreRegistry
    ) throws -> StoreHandle {
        let adapter = DataStoreAdapter<Store>.self
        let name = adapter.storeType
        if registry.storeType(named: name).map({ ObjectIdentifier($0) != ObjectIdentifier(adapter) }) ?? true {
            registry.register(adapter, forStoreType: name)
        }
        let handOff = DataStoreHandOff(self, schema: schema, migrationPlan: migrationPlan)
        return try DataStoreHandOff.$current.withValue(handOff) {
            try coordinator.addPersistentStore(type: name)
        }
    }
}
