/// The standard metadata keys every store writes (Core Data's names where Core Data has one).
public enum MetadataKey {
    /// The registered store type name (`NSStoreType`).
    public static let storeType = "NSStoreType"
    /// The store identifier, a UUID string (`NSStoreUUID`).
    public static let storeUUID = "NSStoreUUID"
    /// Entity name → 32-byte version hash (`NSStoreModelVersionHashes`).
    public static let versionHashes = "NSStoreModelVersionHashes"
    /// The version of the hashing scheme (`NSStoreModelVersionHashesVersion`).
    public static let versionHashesVersion = "NSStoreModelVersionHashesVersion"
    /// The model's version identifiers (`NSStoreModelVersionIdentifiers`).
    public static let versionIdentifiers = "NSStoreModelVersionIdentifiers"
    /// The Core Data version that wrote the store (`NSPersistenceFrameworkVersion`). Only Core
    /// Data writes it; its presence marks a store whose version hashes this framework does not
    /// reproduce (see ``ModelCompatibility``).
    public static let persistenceFrameworkVersion = "NSPersistenceFrameworkVersion"
    /// The model that wrote the store, as JSON data (this framework's own key).
    public static let modelJSON = "PersistentStores.ModelJSON"
    /// The format version of the store file (this framework's own key).
    public static let formatVersion = "PersistentStores.FormatVersion"
}

/// The standard option keys understood by the built-in stores.
public enum StoreOptionKey {
    /// `true`: open the store read-only; saves fail with 134070 and nothing is written
    /// (`NSReadOnlyPersistentStoreOption`).
    public static let readOnly = "NSReadOnlyPersistentStoreOption"
    /// `true`: migrate automatically when the model changed
    /// (`NSMigratePersistentStoresAutomaticallyOption`).
    public static let migrateAutomatically = "NSMigratePersistentStoresAutomaticallyOption"
    /// `true`: infer the mapping model for automatic migration (`NSInferMappingModelAutomaticallyOption`).
    public static let inferMappingModel = "NSInferMappingModelAutomaticallyOption"
    /// `true`: automatic migration may take its source model from the store's own metadata
    /// (`PersistentStores.ModelJSON`) when it is not one of the coordinator's
    /// ``PersistentStoreCoordinator/modelVersions``. For tools that migrate any store they are
    /// pointed at (`storectl`); never on by default: an application's older release would
    /// migrate a newer release's store down, and a store of another program would lose what
    /// the model lacks.
    public static let migrateFromStoredModel = "PersistentStores.MigrateFromStoredModel"
    /// `true`: compare Core Data's version hashes strictly even for stores Core Data wrote.
    public static let strictVersionChecking = "PersistentStores.StrictVersionChecking"
    /// `true`: record persistent history (``HistoryTransaction``s) in stores that can
    /// (``StoreCapabilities/persistentHistory``), Core Data's `NSPersistentHistoryTrackingKey`.
    public static let persistentHistoryTracking = "NSPersistentHistoryTrackingKey"
    /// `true`: `PersistentContainer/loadPersistentStores()` creates the store file's missing
    /// parent folders. Without it a store whose folder does not exist is an error naming the
    /// folder (a mistyped path creates nothing), except in the container's default location and
    /// the folder its configuration names for stores without a path, which are created.
    public static let createsParentDirectories = "PersistentStores.CreatesParentDirectories"
}
