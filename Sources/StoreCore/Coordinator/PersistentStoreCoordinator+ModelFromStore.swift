import Foundation

extension StoreOptionKey {
    /// `true`: take the model from the store file itself — the model this framework keeps in
    /// its metadata (`PersistentStores.ModelJSON`), else the model a store type keeps in its
    /// own way (``ModelKeepingStore``: the compiled model in a Core Data SQLite file's
    /// `Z_MODELCACHE`). Read by
    /// ``PersistentStoreCoordinator/init(modelFromStoreOfType:at:options:registry:)``, which
    /// refuses to guess without it.
    ///
    /// For tools that open any file they are pointed at (`storectl`) and for reading a Core
    /// Data application's data without its model; never on by default: an application opens
    /// its stores with its own model, so a file of another program or release is refused
    /// instead of being taken at its word.
    public static let modelFromStore = "PersistentStores.ModelFromStore"
}

extension PersistentStoreCoordinator {
    /// The model the store file at `url` keeps: this framework's model JSON in its metadata,
    /// else what the store type reads from the file (``ModelKeepingStore``, e.g. Core Data's
    /// `Z_MODELCACHE` in SQLite files); nil when it keeps neither. Nothing is written.
    ///
    /// ```swift
    /// if let model = try PersistentStoreCoordinator.storedModel(ofStoreType: "SQLite", at: url) {
    ///     print(model.entityNames)
    /// }
    /// ```
    ///
    /// - Throws: 134000 for an unregistered type; the store type's errors for a file it cannot
    ///   read; 134080 for a kept model that is malformed.
    public static func storedModel(
        ofStoreType type: String, at url: URL, options: StoreOptions = [:], registry: StoreRegistry = .shared
    ) throws -> ObjectModel? {
        let storeClass = try registry.requireStoreType(named: type)
        let metadata = try storeClass.metadata(forStoreAt: url, options: options)
        if let json = metadata[MetadataKey.modelJSON]?.dataValue {
            do {
                return try ObjectModel(jsonData: json)
            } catch let error as StoreError {
                throw StoreError(
                    .persistentStoreOpen, "The model kept in the metadata of the \(type) store at \(url.path) is not readable: \(error.message)",
                    fileURL: url)
            }
        }
        guard let keeping = storeClass as? any ModelKeepingStore.Type else { return nil }
        return try keeping.storedModel(forStoreAt: url, options: options)
    }

    /// A coordinator whose model is the one the store file at `url` keeps, with that store
    /// added: how a Core Data application's SQLite file is opened without the application's
    /// model (its compiled model, `Z_MODELCACHE`, becomes the coordinator's model).
    ///
    /// ```swift
    /// let coordinator = try PersistentStoreCoordinator(
    ///     modelFromStoreOfType: "SQLite", at: url,
    ///     options: [StoreOptionKey.modelFromStore: true, StoreOptionKey.readOnly: true])
    /// let context = ManagedObjectContext(coordinator: coordinator)
    /// ```
    ///
    /// - Parameters:
    ///   - type: the registered store type.
    ///   - url: the store file; it must exist.
    ///   - options: the store's options; must set ``StoreOptionKey/modelFromStore`` to `true`
    ///     (taking the model from the file is always asked for explicitly).
    ///   - registry: where `type` is looked up.
    /// - Throws: 134070 without the option, or when the file keeps no model (a Core Data SQLite
    ///   file without `Z_MODELCACHE`, an XML store, a file of another type); 134080 for a kept
    ///   model that is malformed; whatever adding the store throws.
    public convenience init(
        modelFromStoreOfType type: String, at url: URL, options: StoreOptions, registry: StoreRegistry = .shared
    ) throws {
        guard options[StoreOptionKey.modelFromStore]?.boolValue == true else {
            throw StoreError(
                .persistentStoreOperation,
                "Opening the \(type) store at \(url.path) with the model it keeps must be asked for: set \(StoreOptionKey.modelFromStore) to true in its options (an application passes its own model instead)",
                fileURL: url)
        }
        guard let model = try Self.storedModel(ofStoreType: type, at: url, options: options, registry: registry) else {
            throw StoreError(
                .persistentStoreOperation,
                "The \(type) store at \(url.path) keeps no model (no model in its metadata"
                    + (type == "SQLite" ? " and no Core Data model cache, Z_MODELCACHE" : "")
                    + "), so \(StoreOptionKey.modelFromStore) cannot open it: supply the model it was written with",
                fileURL: url)
        }
        self.init(model: model, registry: registry)
        try addPersistentStore(type: type, at: url, options: options)
    }
}
