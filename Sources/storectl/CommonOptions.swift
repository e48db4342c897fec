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
    /// `--type` or sniffed), else the stores the configuration describes. Read-only.
    func openStores(path: String?) throws -> OpenedStores {
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
        let model = try resolveModel(configured: configuredModel, descriptions: descriptions)
        let coordinator = PersistentStoreCoordinator(model: model)
        var handles: [StoreHandle] = []
        for description in descriptions {
            if let url = description.url, url.isFileURL {
                try StoreSniffer.requireReadableFile(url)
            }
            handles.append(try coordinator.addPersistentStore(description))
        }
        return OpenedStores(coordinator: coordinator, stores: handles, descriptions: descriptions)
    }

    /// `--model`/configured model, else the model kept in the first store's metadata.
    private func resolveModel(configured: String?, descriptions: [StoreDescription]) throws -> ObjectModel {
        if let configured { return try ObjectModel(contentsOf: URL(fileURLWithPath: configured)) }
        for description in descriptions {
            guard let url = description.url else { continue }
            if url.isFileURL { try StoreSniffer.requireReadableFile(url) }
            let storeClass = try StoreRegistry.shared.requireStoreType(named: description.type)
            let metadata = try storeClass.metadata(forStoreAt: url, options: description.options)
            if let json = metadata[MetadataKey.modelJSON]?.dataValue {
                return try ObjectModel(jsonData: json)
            }
            throw StoreError(
                .persistentStoreOperation,
                "\(display(url)) keeps no model in its metadata (Core Data's files do not): pass --model path.xcdatamodeld",
                fileURL: url)
        }
        throw StoreError(.persistentStoreOperation, "No model: pass --model path.xcdatamodeld or set PERSISTENCE_MODEL")
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
