import Foundation

extension StoreRegistry {
    /// Registers a ``DataStore`` type as a store type, so coordinators, store descriptions and
    /// configuration files add it by name like any other:
    ///
    /// ```swift
    /// StoreRegistry.shared.register(dataStore: JSONStore.self, forStoreType: "JSONStore") { url in
    ///     JSONStoreConfiguration(name: "Trips", fileURL: url ?? defaultURL)
    /// }
    /// try coordinator.addPersistentStore(type: "JSONStore", at: storeURL)
    /// ```
    ///
    /// - Parameters:
    ///   - dataStore: the data store type.
    ///   - name: the store type name (default: the type's name, `"JSONStore"`). A data store
    ///     type has one name in the process (the last registered), as every store type's
    ///     `storeType` is one name.
    ///   - capabilities: what the store does (the conformance suite runs the cases these
    ///     allow); `.noURL` and `.readOnly` are always added.
    ///   - configuration: makes the configuration of a store added at a URL (nil when it was
    ///     added without one); its `schema` is set to one of the coordinator's model when nil.
    public func register<Store: DataStore>(
        dataStore: Store.Type, forStoreType name: String? = nil, capabilities: StoreCapabilities = [.persistent],
        configuration: @escaping @Sendable (_ url: URL?) throws -> Store.Configuration
    ) {
        let name = name ?? String(describing: Store.self)
        DataStoreRegistrations.shared.register(
            Store.self, .init(name: name, capabilities: capabilities, configurationMaker: configuration))
        register(DataStoreAdapter<Store>.self, forStoreType: name)
    }
}
