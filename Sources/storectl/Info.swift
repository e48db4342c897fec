import ArgumentParser
import Foundation
import PersistentStores

/// `storectl info <store>`: the store's type (sniffed), UUID, model version identifiers and
/// hashes, object count per entity and file size. The model is `--model`, the configured one,
/// or the one the store keeps (its metadata, or Core Data's `Z_MODELCACHE`); with none,
/// whatever the file says without a model (`printWithoutModel`).
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's type, UUID, model version, entity counts and size.")

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        let target = try options.describeStores(path: store)
        guard let model = try options.resolveModel(configured: target.configuredModel, descriptions: target.descriptions) else {
            try Self.printWithoutModel(target.descriptions)
            return
        }
        let opened = try options.open(target.descriptions, model: model)
        let console = Console.current
        for (index, handle) in opened.stores.enumerated() {
            if index > 0 { console.print() }
            let metadata = try opened.coordinator.metadata(for: handle)
            let writtenByCoreData = metadata[MetadataKey.persistenceFrameworkVersion] != nil
            Self.printHeader(url: handle.url, type: handle.type, identifier: handle.identifier, metadata: metadata)
            if let configuration = handle.configurationName { console.print("Configuration: \(configuration)") }
            console.print("Model:        from \(opened.modelSource)")
            Self.printVersion(metadata)
            if writtenByCoreData, let stored = metadata[MetadataKey.versionHashes]?.dictionaryValue, !stored.isEmpty {
                let computed = opened.model.coreDataVersionHashes
                let differing = stored.keys.sorted().filter { stored[$0]?.dataValue != computed[$0] }
                console.print(
                    differing.isEmpty
                        ? "Core Data version hashes of the model: equal to the store's"
                        : "Core Data version hashes of the model: differ for \(differing.joined(separator: ", "))")
            }
            console.print("Entities:")
            let entities = opened.model.entityNames(inConfiguration: handle.configurationName).sorted()
            var rows: [[String]] = []
            let context = ManagedObjectContext(coordinator: opened.coordinator)
            for name in entities where !(opened.model.entity(named: name)?.isAbstract ?? false) {
                var request = FetchRequest(entityName: name)
                request.includesSubentities = false
                request.affectedStoreIdentifiers = [handle.identifier]
                rows.append([name, String(try context.count(for: request))])
            }
            for line in ObjectPrinter.table(header: ["entity", "objects"], rows: rows) { console.print("  " + line) }
        }
    }

    /// What a store file says without a model: type, UUID, size, version identifiers and
    /// hashes from its metadata, and the entities and their object counts when the store type
    /// can list them without a model (``InventoryReportingStore``: SQLite, XML), else the
    /// entity names of the version hashes. Ends by saying what needs `--model`.
    static func printWithoutModel(_ descriptions: [StoreDescription]) throws {
        let console = Console.current
        for (index, description) in descriptions.enumerated() {
            guard let url = description.url else { continue }
            if index > 0 { console.print() }
            let storeClass = try StoreRegistry.shared.requireStoreType(named: description.type)
            let metadata = try storeClass.metadata(forStoreAt: url, options: description.options)
            printHeader(url: url, type: description.type, identifier: metadata[MetadataKey.storeUUID]?.stringValue, metadata: metadata)
            console.print("Model:        none (the store keeps none; pass --model path.xcdatamodeld)")
            printVersion(metadata)
            if let reporting = storeClass as? any InventoryReportingStore.Type {
                let inventory = try reporting.inventory(forStoreAt: url, options: description.options)
                if inventory.namesAreExact {
                    console.print("Entities (read from the file):")
                    let rows = inventory.entities.map { [$0.name, $0.objectCount.map(String.init) ?? "?"] }
                    for line in ObjectPrinter.table(header: ["entity", "objects"], rows: rows) { console.print("  " + line) }
                } else {
                    // The file changes the names' case: the model's probable spelling first, the
                    // file's beside it, so neither is taken for the other.
                    console.print("Entities (read from the file, which changes their case; the model's spelling is guessed):")
                    let rows = inventory.entities.map {
                        [$0.probableModelName ?? $0.name, $0.objectCount.map(String.init) ?? "?", $0.name]
                    }
                    for line in ObjectPrinter.table(header: ["entity (guessed)", "objects", "in the file"], rows: rows) {
                        console.print("  " + line)
                    }
                }
            } else if let hashes = metadata[MetadataKey.versionHashes]?.dictionaryValue, !hashes.isEmpty {
                console.print("Entities (from the version hashes; counting their objects needs --model): \(hashes.keys.sorted().joined(separator: ", "))")
            } else {
                console.print("Entities: unknown without a model (pass --model)")
            }
            console.print("Without a model, dump, query, copy and validate need --model path.xcdatamodeld (or .json).")
        }
    }

    private static func printHeader(url: URL?, type: String, identifier: String?, metadata: StoreMetadata) {
        let console = Console.current
        console.print("Store:        \(url.map(display) ?? "(no file)")")
        console.print("Type:         \(type)" + (metadata[MetadataKey.persistenceFrameworkVersion] != nil ? " (written by Core Data)" : ""))
        console.print("UUID:         \(identifier ?? "none recorded")")
        if let url, url.isFileURL {
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
            console.print("File size:    \(size.map { "\($0) bytes" } ?? "unknown")")
        }
    }

    private static func printVersion(_ metadata: StoreMetadata) {
        let console = Console.current
        let identifiers = metadata[MetadataKey.versionIdentifiers].map(Self.list) ?? "none recorded"
        console.print("Model version identifiers: \(identifiers)")
        if let hashes = metadata[MetadataKey.versionHashes]?.dictionaryValue, !hashes.isEmpty {
            console.print("Version hashes:")
            let rows = hashes.keys.sorted().map { name in
                [name, hashes[name]?.dataValue?.base64EncodedString() ?? "\(hashes[name].map { "\($0)" } ?? "")"]
            }
            for line in ObjectPrinter.table(header: ["entity", "hash (base64)"], rows: rows) { console.print("  " + line) }
        } else {
            console.print("Version hashes: none recorded")
        }
    }

    private static func list(_ value: MetadataValue) -> String {
        if case .array(let items) = value {
            return items.isEmpty ? "none" : items.map { $0.stringValue.map { "\"\($0)\"" } ?? "\($0)" }.joined(separator: ", ")
        }
        return "\(value)"
    }
}
