import Configuration
import Foundation
import StoreCore

extension PersistentContainer {
    /// Builds a container from configuration: pass a reader scoped to the container's keys
    /// (``StoreConfigurationSources`` makes one with the usual precedence: command line >
    /// environment > file > defaults).
    ///
    /// ```yaml
    /// persistence:
    ///   name: League
    ///   model: League.json
    ///   store:
    ///     type: SQLite          # or InMemory, Binary, XML, PipeCSV, a custom type
    /// ```
    ///
    /// ## Configuration keys
    /// - `name` (string): the container's name; the `name` argument is the default.
    /// - `model` (string): a model file (`.xcdatamodeld`, `.xcdatamodel`, `.json`); the
    ///   `model` argument is the default. An `.xcdatamodeld`'s versions are the ones automatic
    ///   migration accepts a store from.
    /// - `folder` (string): where store files without a `path` go; default
    ///   `PersistentContainer.defaultDirectoryURL(name:environment:)`.
    /// - `store`: the one store's keys (see `StoreDescription(config:registry:)`);
    ///   `type` defaults to `SQLite` and `path` to `<folder>/<name>.<type in lower case>`.
    /// - `stores` (list of names): several stores instead of `store`, each described under
    ///   its own name (`persistence.<name>.type`, …; `type` required, `path` defaulting to
    ///   `<folder>/<store name>.<type in lower case>`).
    ///
    /// The stores are not added until `loadPersistentStores()`.
    public convenience init(
        config: ConfigReader, name: String? = nil, model: ObjectModel? = nil, registry: StoreRegistry = .shared
    ) throws {
        try self.init(
            keys: ConfigKeyReader(config: config, prefix: [], recorder: nil), name: name, model: model,
            registry: registry)
    }

    /// The container's own keys.
    static let configurationKeyNames = ["name", "model", "folder", "stores"]

    /// The store section names that would clash with the container's own keys.
    static let reservedStoreNames: Set<String> = ["name", "model", "folder", "store", "stores"]

    convenience init(
        keys: ConfigKeyReader, name: String?, model: ObjectModel?, registry: StoreRegistry, observability: StoreObservability? = nil
    ) throws {
        guard let name = try keys.string("name") ?? name else {
            _ = try keys.requiredString("name")
            throw StoreError(.coreData, "Missing configuration key \(keys.describe("name"))")
        }
        let resolvedModel: ObjectModel
        var versions: [ObjectModel] = []
        if let path = try keys.string("model") {
            let modelURL = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
            resolvedModel = try ObjectModel(contentsOf: modelURL)
            versions = try ObjectModel.versions(ofModelAt: modelURL)
        } else if let model {
            resolvedModel = model
        } else {
            _ = try keys.requiredString("model")
            throw StoreError(.coreData, "Missing configuration key \(keys.describe("model"))")
        }
        self.init(name: name, model: resolvedModel, versions: versions, registry: registry, observability: observability)
        let folderPath = try keys.string("folder")
        let folder = {
            if let folderPath {
                return URL(fileURLWithPath: (folderPath as NSString).expandingTildeInPath, isDirectory: true)
            }
            return try PersistentContainer.defaultDirectoryURL(name: name)
        }
        if let storeNames = try keys.stringArray("stores") {
            var seen: Set<String> = []
            persistentStoreDescriptions = try storeNames.map { storeName in
                guard !Self.reservedStoreNames.contains(storeName), !storeName.isEmpty, !storeName.contains(".") else {
                    throw StoreError(
                        .coreData,
                        "Configuration key \(keys.describe("stores")): \"\(storeName)\" cannot name a store "
                            + "(not empty, no \".\", not one of \(Self.reservedStoreNames.sorted().joined(separator: ", ")))")
                }
                guard seen.insert(storeName).inserted else {
                    throw StoreError(
                        .coreData, "Configuration key \(keys.describe("stores")): the store \"\(storeName)\" is listed twice")
                }
                return try StoreDescription(
                    keys: keys.scoped(storeName), registry: registry,
                    defaultFile: { type in try folder().appendingPathComponent("\(storeName).\(type.lowercased())") })
            }
        } else {
            persistentStoreDescriptions = [
                try StoreDescription(
                    keys: keys.scoped("store"), registry: registry, defaultType: "SQLite",
                    defaultFile: { type in try folder().appendingPathComponent("\(name).\(type.lowercased())") })
            ]
        }
    }
}
