import ArgumentParser
import Foundation
import PersistentStores

/// The options every store command takes: where the configuration comes from, and overrides
/// of the configured store type and model. Precedence: these options > environment variables
/// (`PERSISTENCE_STORE_TYPE`, `PERSISTENCE_MODEL`, …) > the `--config` file (or
/// `PERSISTENCE_CONFIG_FILE`) > defaults.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "A YAML or JSON configuration file (default: $PERSISTENCE_CONFIG_FILE).")
    var config: String?

    @Option(name: .long, help: "The store type (default: configured, else sniffed from the file).")
    var type: String?

    @Option(name: .long, help: "The model: .xcdatamodeld, .xcdatamodel or .json (default: configured, else the store's metadata).")
    var model: String?

    @Flag(name: .long, help: "No progress on standard error.")
    var quiet = false

    /// The configuration sources with these options as the highest-precedence overrides.
    func sources(defaults: [String: String] = [:]) throws -> StoreConfigurationSources {
        var overrides: [String: String] = [:]
        let prefix = StoreConfigurationSources.defaultKeyPrefix
        if let type { overrides["\(prefix).store.type"] = type }
        if let model { overrides["\(prefix).model"] = absolutePath(model) }
        return try StoreConfigurationSources(
            file: config.map { URL(fileURLWithPath: $0) }, environment: ProcessInfo.processInfo.environment,
            overrides: overrides, defaults: defaults)
    }

    /// Opens the stores a command works on: the file given on the command line (type from
    /// `--type` or sniffed), else the stores the configuration describes. Read-only. Without a
    /// model (`--model`, configured, or kept by the store) it fails with 134070 saying so.
    func openStores(path: String?) throws -> OpenedStores {
        let target = try describeStores(path: path)
        guard let resolved = try resolveModel(configured: target.configuredModel, descriptions: target.descriptions) else {
            throw Self.noModelError(target.descriptions)
        }
        return try open(target.descriptions, model: resolved)
    }

    /// The stores a command names, read-only, and the configured model path (not read yet).
    func describeStores(path: String?) throws -> (descriptions: [StoreDescription], configuredModel: String?) {
        PersistentStores.registerBuiltInStoreTypes()
        let sources = try sources()
        let keys = sources.scopedReader
        let configuredModel = keys.string(forKey: "model")
        var descriptions: [StoreDescription]
        if let path {
            let url = try storeURL(path)
            let storeType = try type ?? storeType(ofURI: url) ?? StoreSniffer.storeType(at: url)
            descriptions = [StoreDescription(type: storeType, url: url)]
        } else {
            guard sources.fileURL != nil || keys.string(forKey: "store.path") != nil || keys.string(forKey: "store.url") != nil || keys.stringArray(forKey: "stores") != nil else {
                throw StoreError(
                    .persistentStoreOperation,
                    "No store given: name a store file, or describe one with --config FILE or PERSISTENCE_STORE_TYPE and PERSISTENCE_STORE_PATH")
            }
            // The model is read below; the container only supplies the descriptions.
            let container = try sources.makeContainer(name: "storectl", model: try ObjectModel { Entity("Placeholder") {} })
            descriptions = container.persistentStoreDescriptions
        }
        for index in descriptions.indices { descriptions[index].isReadOnly = true }
        return (descriptions, configuredModel)
    }

    /// Adds `descriptions` to a coordinator of the resolved model.
    func open(_ descriptions: [StoreDescription], model resolved: ResolvedModel) throws -> OpenedStores {
        let coordinator = PersistentStoreCoordinator(model: resolved.model)
        var handles: [StoreHandle] = []
        for description in descriptions {
            if let url = description.url, url.isFileURL {
                try StoreSniffer.requireReadableFile(url)
            }
            handles.append(try coordinator.addPersistentStore(description))
        }
        return OpenedStores(coordinator: coordinator, stores: handles, descriptions: descriptions, modelSource: resolved.source)
    }

    /// A model and where it came from, for `info`.
    struct ResolvedModel {
        let model: ObjectModel
        /// "--model", "the configuration", "the store's metadata", "the store's Core Data model cache (Z_MODELCACHE)".
        let source: String
    }

    /// `--model`/configured model, else the model the first store keeps: this framework's model
    /// JSON in its metadata, or Core Data's compiled model in an SQLite file's `Z_MODELCACHE`
    /// (`PersistentStoreCoordinator.storedModel`); nil when there is none.
    func resolveModel(configured: String?, descriptions: [StoreDescription]) throws -> ResolvedModel? {
        if let configured {
            return ResolvedModel(model: try ObjectModel(contentsOf: URL(fileURLWithPath: configured)), source: model != nil ? "--model" : "the configuration")
        }
        for description in descriptions {
            guard let url = description.url else { continue }
            if url.isFileURL { try StoreSniffer.requireReadableFile(url) }
            let metadata = try StoreRegistry.shared.requireStoreType(named: description.type)
                .metadata(forStoreAt: url, options: description.options)
            if let json = metadata[MetadataKey.modelJSON]?.dataValue {
                return ResolvedModel(model: try ObjectModel(jsonData: json), source: "the store's metadata")
            }
            if let kept = try PersistentStoreCoordinator.storedModel(ofStoreType: description.type, at: url, options: description.options) {
                return ResolvedModel(model: kept, source: "the store's Core Data model cache (Z_MODELCACHE)")
            }
            return nil
        }
        throw StoreError(.persistentStoreOperation, "No model: pass --model path.xcdatamodeld or set PERSISTENCE_MODEL")
    }

    /// 134070 for a store that keeps no model, naming it and what to pass.
    static func noModelError(_ descriptions: [StoreDescription]) -> StoreError {
        guard let description = descriptions.first(where: { $0.url != nil }), let url = description.url else {
            return StoreError(.persistentStoreOperation, "No model: pass --model path.xcdatamodeld or set PERSISTENCE_MODEL")
        }
        let what = description.type == "SQLite"
            ? "keeps no model in its metadata and has no Core Data model cache (Z_MODELCACHE)"
            : "keeps no model in its metadata (Core Data's \(description.type) files do not)"
        return StoreError(.persistentStoreOperation, "\(display(url)) \(what): pass --model path.xcdatamodeld", fileURL: url)
    }
}

/// A store argument: a connection URI (`scheme://…`, any scheme but `file`, in any case) read
/// by `ConnectionURI`, even in forms Foundation's `URL` refuses (several hosts, a `#` in the
/// password); anything else a file path.
///
/// - Throws: 134080 for a URI with a broken `%` escape or `%00`, never showing its password.
func storeURL(_ argument: String) throws -> URL {
    // A URI pasted with spaces around it is still a URI (never a file path shown whole).
    let trimmed = argument.trimmingCharacters(in: .whitespacesAndNewlines)
    if ConnectionURI.looksLikeURI(trimmed), !ConnectionURI.hasScheme(trimmed, in: ["file"]) {
        return try ConnectionURI(trimmed).url
    }
    if ConnectionURI.hasScheme(argument, in: ["file"]), let url = URL(string: argument), url.isFileURL { return url }
    return URL(fileURLWithPath: absolutePath(argument))
}

/// The store type a connection URI names by its scheme ("PostgreSQL" for `postgresql://` and
/// `postgres://`, in any case); nil for files and other schemes.
func storeType(ofURI url: URL) -> String? {
    guard !url.isFileURL else { return nil }
    return ConnectionURI.hasScheme(url.absoluteString, in: ["postgresql", "postgres"]) ? PostgreSQLStore.storeType : nil
}

/// A store's URL as messages show it: a file's path; a URI without its password.
func display(_ url: URL) -> String {
    url.isFileURL ? url.path : ConnectionURI.redacted(url.absoluteString)
}

/// A path made absolute against the current folder (with `~` expanded).
func absolutePath(_ path: String) -> String {
    let expanded = (path as NSString).expandingTildeInPath
    return URL(fileURLWithPath: expanded).standardizedFileURL.path
}

/// The stores a command opened, read-only, on one coordinator.
struct OpenedStores {
    let coordinator: PersistentStoreCoordinator
    let stores: [StoreHandle]
    let descriptions: [StoreDescription]
    /// Where the model came from (see `CommonOptions.ResolvedModel`).
    var modelSource = "--model"

    var model: ObjectModel { coordinator.model }

    /// The entity named `name`, or a 134060 error listing the model's entities and the closest.
    func requireEntity(_ name: String) throws -> EntityDescription {
        if let entity = model.entity(named: name) { return entity }
        let names = model.entityNames
        let suggestion = EditDistance.closestMatch(to: name, in: names).map { " (did you mean \"\($0)\"?)" } ?? ""
        throw StoreError(
            .coreData, "The model has no entity named \"\(name)\"\(suggestion); entities: \(names.sorted().joined(separator: ", "))",
            entityName: name)
    }

    /// The concrete entities, by name.
    var entityNames: [String] { model.entities.filter { !$0.isAbstract }.map(\.name).sorted() }
}
