import Foundation

/// Whether a model (one of its configurations) can open a store, judged from the store's
/// metadata: the result of comparing the model's entity version hashes with the store's
/// `NSStoreModelVersionHashes`.
///
/// ```swift
/// let metadata = try coordinator.metadataForPersistentStore(type: "SQLite", at: url)
/// let check = ModelCompatibility(model: model, configuration: nil, storeMetadata: metadata)
/// if !check.isCompatible { print(check.differences) }
/// ```
///
/// Rules (`docs/models.md` has the reasoning):
/// - Metadata without version hashes (a new or empty store) is compatible: there is nothing to
///   compare.
/// - Otherwise every entity of the configuration must have the same hash in the store, and every
///   entity the store lists must still exist in the model. Entities of the model outside the
///   configuration are not compared.
/// - A store written by Core Data (its metadata has `NSPersistenceFrameworkVersion`) carries
///   Core Data's own hashes, which this framework does not reproduce. Unless strict checking is
///   asked for, such a store is compared structurally: the same entity names, and — when the
///   store can report its schema (``SchemaReportingStore/storedSchema()``) — the same persistent properties per entity.
public struct ModelCompatibility: Sendable, Hashable {
    /// How the comparison was made.
    public enum Method: String, Sendable, Hashable {
        /// The store's metadata has no version hashes (a new or empty store).
        case noVersionHashes
        /// The version hashes were compared.
        case versionHashes
        /// Entity names (and, when known, property names) were compared: a store written by
        /// Core Data, without strict checking.
        case structural
    }

    /// One entity that differs between the model and the store.
    public struct Difference: Sendable, Hashable, CustomStringConvertible {
        /// How the entity differs.
        public enum Kind: Sendable, Hashable {
            /// The entity is in the model's configuration but not in the store.
            case onlyInModel
            /// The store lists the entity but the model has no such entity.
            case onlyInStore
            /// The entity's version hash differs. `properties` names the properties that differ
            /// when the store carries the model that wrote it (`+name` only in the model, `-name`
            /// only in the store, `~name` changed); empty when unknown or when only the entity's
            /// own definition (parent, abstract flag, version hash modifier) changed.
            case versionHashDiffers(properties: [String])
            /// Structural comparison: the persistent properties differ (`+name` only in the
            /// model, `-name` only in the store).
            case propertiesDiffer([String])
        }

        /// The entity's name.
        public var entityName: String
        /// How it differs.
        public var kind: Kind

        /// Creates a difference.
        public init(entityName: String, kind: Kind) {
            self.entityName = entityName
            self.kind = kind
        }

        /// `"Book (version hash differs: +isbn)"`.
        public var description: String {
            switch kind {
            case .onlyInModel: return "\(entityName) (in the model, not in the store)"
            case .onlyInStore: return "\(entityName) (in the store, not in the model)"
            case .versionHashDiffers(let properties):
                return properties.isEmpty
                    ? "\(entityName) (version hash differs)"
                    : "\(entityName) (version hash differs: \(properties.joined(separator: ", ")))"
            case .propertiesDiffer(let properties):
                return "\(entityName) (properties differ: \(properties.joined(separator: ", ")))"
            }
        }
    }

    /// How the comparison was made.
    public let method: Method
    /// The entities that differ, sorted by name; empty when compatible.
    public let differences: [Difference]

    /// Whether the model can open the store as it is.
    public var isCompatible: Bool { differences.isEmpty }

    /// The names of the entities that differ, sorted.
    public var differingEntityNames: [String] { differences.map(\.entityName) }

    /// Compares a configuration of `model` (nil: the default configuration) with store
    /// metadata.
    ///
    /// - Parameters:
    ///   - model: the model the store is opened with.
    ///   - configuration: the configuration of `model` the store holds; nil for every entity.
    ///   - metadata: the store's metadata (its `NSStoreModelVersionHashes`).
    ///   - storedSchema: entity name → persistent property names the store holds, used only by
    ///     the structural comparison (``SchemaReportingStore`` provides it); nil when unknown.
    ///   - strict: compare version hashes even for stores Core Data wrote
    ///     (``StoreOptionKey/strictVersionChecking``).
    public init(
        model: ObjectModel, configuration: String?, storeMetadata metadata: StoreMetadata,
        storedSchema: [String: Set<String>]? = nil, strict: Bool = false
    ) {
        let storeHashes = Self.versionHashes(in: metadata)
        guard let storeHashes, !storeHashes.isEmpty else {
            self.method = .noVersionHashes
            self.differences = []
            return
        }
        let modelEntities = model.entityNames(inConfiguration: configuration)
        var differences: [Difference] = []
        for name in storeHashes.keys where model.entity(named: name) == nil {
            differences.append(Difference(entityName: name, kind: .onlyInStore))
        }
        for name in modelEntities where storeHashes[name] == nil {
            differences.append(Difference(entityName: name, kind: .onlyInModel))
        }

        let hashesMatch = modelEntities.allSatisfy { name in
            storeHashes[name].map { $0 == model.versionHash(ofEntity: name) } ?? true
        }
        let writtenByCoreData = metadata[MetadataKey.persistenceFrameworkVersion] != nil
        if writtenByCoreData && !strict && !(hashesMatch && differences.isEmpty) {
            self.method = .structural
            if let storedSchema {
                for name in modelEntities where storeHashes[name] != nil {
                    let modelProperties = Set(
                        (model.attributes(of: name).filter { !$0.isTransient }.map(\.name))
                            + model.relationships(of: name).filter { !$0.isTransient }.map(\.name))
                    let storeProperties = storedSchema[name] ?? []
                    guard modelProperties != storeProperties else { continue }
                    let changes =
                        modelProperties.subtracting(storeProperties).sorted().map { "+" + $0 }
                        + storeProperties.subtracting(modelProperties).sorted().map { "-" + $0 }
                    differences.append(Difference(entityName: name, kind: .propertiesDiffer(changes)))
                }
            }
        } else {
            self.method = .versionHashes
            let storedModel = Self.storedModel(in: metadata)
            for name in modelEntities {
                guard let stored = storeHashes[name], let current = model.versionHash(ofEntity: name), stored != current
                else { continue }
                let properties: [String]
                if let storedModel, let old = storedModel.entity(named: name), let new = model.entity(named: name) {
                    properties = Self.propertyChanges(from: old, to: new)
                } else {
                    properties = []
                }
                differences.append(Difference(entityName: name, kind: .versionHashDiffers(properties: properties)))
            }
        }
        self.differences = differences.sorted { $0.entityName < $1.entityName }
    }

    /// The 134100 error for an incompatible store: "The model used to open the store is
    /// incompatible with the one used to create the store", then the entities that differ;
    /// nil when compatible.
    public func error(storeURL: URL? = nil) -> StoreError? {
        guard !isCompatible else { return nil }
        var message =
            "The model used to open the store is incompatible with the one used to create the store; entities that differ: "
            + differences.map(\.description).joined(separator: ", ")
        if let storeURL { message += "; store: \(storeURL.path)" }
        return StoreError(
            .persistentStoreIncompatibleVersionHash, message, fileURL: storeURL,
            entityName: differences.count == 1 ? differences[0].entityName : nil)
    }

    // MARK: Adding a store

    /// The check a coordinator runs right after a store is loaded, before it is added: throws
    /// the 134100 ``error(storeURL:)`` when the store's metadata does not fit the model.
    ///
    /// Options: ``StoreOptionKey/strictVersionChecking`` compares Core Data's hashes too. The
    /// coordinator completes the error with ``completing(_:storeURL:options:)``; with
    /// ``StoreOptionKey/migrateAutomatically`` and ``StoreOptionKey/inferMappingModel`` it
    /// migrates the store before this check (see `docs/migration.md`).
    @discardableResult
    public static func verify(_ store: any PersistentStore) throws -> ModelCompatibility {
        let options = store.options
        let check = ModelCompatibility(
            model: store.model, configuration: store.configurationName, storeMetadata: store.metadata,
            storedSchema: try (store as? any SchemaReportingStore)?.storedSchema(),
            strict: options[StoreOptionKey.strictVersionChecking]?.boolValue ?? false)
        if let error = check.error(storeURL: store.url) { throw error }
        return check
    }

    /// A 134100 error as every store type reports it: the message names the store file (when
    /// the store has one) and says whether automatic migration was requested, so the same
    /// mismatch reads the same on every store type, whichever layer found it.
    public static func completing(_ error: StoreError, storeURL: URL?, options: StoreOptions) -> StoreError {
        var completed = error
        if let storeURL {
            if !completed.message.contains(storeURL.path) { completed.message += "; store: \(storeURL.path)" }
            if completed.fileURL == nil { completed.fileURL = storeURL }
        }
        let migrate = options[StoreOptionKey.migrateAutomatically]?.boolValue ?? false
        let infer = options[StoreOptionKey.inferMappingModel]?.boolValue ?? false
        guard !completed.message.contains("automatic migration") else { return completed }
        if migrate && infer {
            completed.message += "; automatic migration was requested and could not run"
        } else if migrate {
            completed.message +=
                "; automatic migration was requested without an inferred mapping (\(StoreOptionKey.inferMappingModel)) and no mapping model was given"
        } else {
            completed.message +=
                "; automatic migration was not requested (\(StoreOptionKey.migrateAutomatically) and \(StoreOptionKey.inferMappingModel))"
        }
        return completed
    }

    // MARK: Helpers

    /// `NSStoreModelVersionHashes` as entity name → hash; a value that is not data counts as an
    /// empty hash (so it differs). Nil when the key is missing or is not a dictionary.
    static func versionHashes(in metadata: StoreMetadata) -> [String: Data]? {
        guard let dictionary = metadata[MetadataKey.versionHashes]?.dictionaryValue else { return nil }
        return dictionary.mapValues { $0.dataValue ?? Data() }
    }

    /// The model the store was written with, when its metadata carries it as JSON.
    static func storedModel(in metadata: StoreMetadata) -> ObjectModel? {
        guard let json = metadata[MetadataKey.modelJSON]?.dataValue else { return nil }
        return try? ObjectModel(jsonData: json)
    }

    /// Property names whose hash-relevant parts differ between two versions of an entity.
    static func propertyChanges(from old: EntityDescription, to new: EntityDescription) -> [String] {
        let before = VersionHashEncoder.propertyEncodings(of: old)
        let after = VersionHashEncoder.propertyEncodings(of: new)
        var changes: [String] = []
        for name in Set(before.keys).union(after.keys).sorted() {
            switch (before[name], after[name]) {
            case (nil, _?): changes.append("+" + name)
            case (_?, nil): changes.append("-" + name)
            case (let a?, let b?) where a != b: changes.append("~" + name)
            default: continue
            }
        }
        return changes
    }
}

extension ObjectModel {
    /// Whether the configuration (nil: the default, every entity) can open a store with this
    /// metadata, by the rules of ``ModelCompatibility`` without strict checking (Core Data's
    /// `isConfiguration(withName:compatibleWithStoreMetadata:)`).
    ///
    /// ```swift
    /// let metadata = try coordinator.metadataForPersistentStore(type: "XML", at: url)
    /// if !model.isConfiguration(nil, compatibleWithStoreMetadata: metadata) { … }
    /// ```
    public func isConfiguration(_ configuration: String?, compatibleWithStoreMetadata metadata: StoreMetadata) -> Bool {
        ModelCompatibility(model: self, configuration: configuration, storeMetadata: metadata).isCompatible
    }

    /// Throws the 134100 error naming the entities that differ when the configuration cannot
    /// open a store with this metadata (see ``ModelCompatibility``).
    public func checkConfiguration(
        _ configuration: String?, compatibleWithStoreMetadata metadata: StoreMetadata, strict: Bool = false
    ) throws {
        let check = ModelCompatibility(
            model: self, configuration: configuration, storeMetadata: metadata, strict: strict)
        if let error = check.error() { throw error }
    }
}
