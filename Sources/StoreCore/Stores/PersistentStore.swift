import Foundation

/// A persistent store: where a coordinator's data lives. Every store type conforms, usually
/// through ``AtomicStore`` (a base class: implement `load()` and `save()`) or
/// ``IncrementalStore`` (answer each request yourself).
///
/// Stores are reached only through their ``PersistentStoreCoordinator``, which serialises every
/// call, so a store need not be thread-safe and is not `Sendable`; what leaves the coordinator
/// is a ``StoreHandle``. A store is created with the coordinator's model rather than the
/// coordinator itself, so it cannot call back into the coordinator while it is locked.
///
/// Register a type under a name with ``StoreRegistry/register(_:forStoreType:)``; a coordinator
/// then adds stores of that type by name.
public protocol PersistentStore: AnyObject, SendableMetatype {
    /// The registered type name ("SQLite", "InMemory", …), written as `NSStoreType`.
    static var storeType: String { get }
    /// What the store type can do.
    static var capabilities: StoreCapabilities { get }
    /// The options the store type reads besides ``StoreOptionKey/standardOptions``; nil (the
    /// default) when it does not say, and then the configuration target accepts any option
    /// for it. A list, even an empty one, makes any other option key an error.
    static var supportedOptions: [StoreOption]? { get }
    /// Creates the store object. Reading the file happens later (``IncrementalStore/loadMetadata()``
    /// or ``AtomicStore/load()``).
    init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws
    /// The store identifier (`NSStoreUUID`), unique per store file.
    var identifier: String { get }
    /// The store's metadata; set values are written at the next save.
    var metadata: StoreMetadata { get set }
    /// Where the store lives; nil for a store without a file.
    var url: URL? { get }
    /// The options given when the store was added.
    var options: StoreOptions { get }
    /// The model configuration the store holds; nil for the default (every entity).
    var configurationName: String? { get }
    /// The coordinator's model.
    var model: ObjectModel { get }
    /// Whether saves are refused (``StoreOptionKey/readOnly``).
    var isReadOnly: Bool { get }
    /// Reads the metadata of the store at `url` without adding it to a coordinator.
    static func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata
    /// Writes the metadata of the store at `url` without adding it to a coordinator.
    static func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws
    /// Called after the coordinator added the store, while the coordinator is locked: do not
    /// call back into the coordinator.
    func didAdd(to coordinator: PersistentStoreCoordinator)
    /// Called before the coordinator removes the store, while it is locked.
    func willRemove(from coordinator: PersistentStoreCoordinator)
}

extension PersistentStore {
    /// nil: the store type does not list its options.
    public static var supportedOptions: [StoreOption]? { nil }

    /// Does nothing.
    public func didAdd(to coordinator: PersistentStoreCoordinator) {}
    /// Does nothing.
    public func willRemove(from coordinator: PersistentStoreCoordinator) {}

    /// Whether the options ask for a read-only store.
    public static func isReadOnly(options: StoreOptions) -> Bool {
        options[StoreOptionKey.readOnly]?.boolValue ?? false
    }

    /// A permanent object ID in this store.
    public func newObjectID(for entityName: String, referenceObject: ReferenceObject) -> ObjectID {
        ObjectID(storeIdentifier: identifier, entityName: entityName, reference: referenceObject)
    }

    /// The reference object of an ID of this store; nil for temporary IDs and other stores' IDs.
    public func referenceObject(for objectID: ObjectID) -> ReferenceObject? {
        guard objectID.storeIdentifier == identifier else { return nil }
        return objectID.referenceObject
    }

    /// The metadata of a new store: `NSStoreType`, `NSStoreUUID`, the model's entity version
    /// hashes (`NSStoreModelVersionHashes`, entity name → 32 bytes, for every entity of the
    /// model), `NSStoreModelVersionHashesVersion` (3), `NSStoreModelVersionIdentifiers`, and the
    /// model as JSON (`PersistentStores.ModelJSON`), so the store can be checked, inspected and
    /// migrated without the application's model.
    public static func standardMetadata(identifier: String, model: ObjectModel) -> StoreMetadata {
        var metadata: StoreMetadata = [
            MetadataKey.storeType: .string(storeType),
            MetadataKey.storeUUID: .string(identifier),
            MetadataKey.versionIdentifiers: .array(model.versionIdentifiers.map { .string($0) }),
        ]
        metadata.merge(Self.modelMetadata(for: model)) { _, new in new }
        return metadata
    }

    /// The model-dependent part of ``standardMetadata(identifier:model:)`` (hashes, hashes
    /// version, version identifiers, model JSON): what a store refreshes when it rewrites a file
    /// with a model other than the one that created it. Computed once per model and kept with
    /// it.
    public static func modelMetadata(for model: ObjectModel) -> StoreMetadata {
        model.cachedModelMetadata {
            var metadata: StoreMetadata = [
                MetadataKey.versionHashes: .dictionary(model.entityVersionHashesByName.mapValues { .data($0) }),
                MetadataKey.versionHashesVersion: .int(ObjectModel.versionHashesVersion),
                MetadataKey.versionIdentifiers: .array(model.versionIdentifiers.map { .string($0) }),
            ]
            // Encoding a validated model cannot fail (every value is a string, number or bool).
            if let json = try? model.jsonData() { metadata[MetadataKey.modelJSON] = .data(json) }
            return metadata
        }
    }

    /// Whether the store's configuration holds the entity.
    public func holds(entityName: String) -> Bool {
        model.configuration(configurationName, contains: entityName)
    }
}
