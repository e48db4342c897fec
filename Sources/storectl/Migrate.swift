import ArgumentParser
import Foundation
import PersistentStores

/// `storectl migrate <store> --model NEW [--from-model OLD]`: migrates a store in place to a new
/// model with an inferred (lightweight) mapping, through `MigrationManager`. The source model is
/// the one the store keeps in its metadata, else `--from-model` (a model file, or an
/// `.xcdatamodeld` whose version matching the store's version hashes is used).
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Migrate a store in place to a new model version (inferred mapping; the store is unchanged on failure).")

    @Argument(help: "The store file (its type from --type, else sniffed from the file).")
    var store: String

    @Option(name: .customLong("from-model"), help: "The model that wrote the store, when its metadata keeps none (.xcdatamodeld: the version whose hashes match).")
    var fromModel: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        PersistentStores.registerBuiltInStoreTypes()
        let console = Console.current
        let url = try storeURL(store)
        if url.isFileURL { try StoreSniffer.requireReadableFile(url) }
        let type = try options.type ?? storeType(ofURI: url) ?? StoreSniffer.storeType(at: url)
        guard let modelPath = options.model else {
            throw StoreError(.migrationMissingMappingModel, "storectl migrate needs the new model: --model FILE (.xcdatamodeld, .xcdatamodel or .json)")
        }
        let destination = try ObjectModel(contentsOf: URL(fileURLWithPath: absolutePath(modelPath)))
        let storeClass = try StoreRegistry.shared.requireStoreType(named: type)
        let metadata = try storeClass.metadata(forStoreAt: url, options: [:])
        let check = ModelCompatibility(model: destination, configuration: nil, storeMetadata: metadata)
        if check.isCompatible {
            console.print("The \(type) store at \(display(url)) already fits the model; nothing to migrate")
            return
        }
        let source = try sourceModel(metadata: metadata, url: url)
        let mapping = try MappingModel.inferred(from: source, to: destination)
        let quiet = options.quiet
        try MigrationManager(sourceModel: source, destinationModel: destination).migrateStore(at: url, type: type, mapping: mapping) { progress in
            if !quiet && progress.done == progress.total { console.printError("Migrating: \(progress.done)/\(progress.total)\n") }
        }
        console.print("Migrated the \(type) store at \(display(url)); entities that changed: \(check.differences.map(\.description).joined(separator: ", "))")
    }

    private func sourceModel(metadata: StoreMetadata, url: URL) throws -> ObjectModel {
        if let fromModel {
            let modelURL = URL(fileURLWithPath: absolutePath(fromModel))
            if modelURL.pathExtension == "xcdatamodeld" {
                let versions = try XcodeModelBundle(contentsOf: modelURL).allModels()
                let names = versions.keys.sorted()
                guard let found = MigrationManager.sourceModel(forStoreMetadata: metadata, among: names.compactMap { versions[$0] }) else {
                    throw StoreError(
                        .migrationMissingSourceModel,
                        "No version of \(modelURL.path) (\(names.joined(separator: ", "))) has the version hashes of the store at \(display(url))",
                        fileURL: url)
                }
                return found
            }
            return try ObjectModel(contentsOf: modelURL)
        }
        if let json = metadata[MetadataKey.modelJSON]?.dataValue { return try ObjectModel(jsonData: json) }
        throw StoreError(
            .migrationMissingSourceModel,
            "The store at \(display(url)) keeps no model in its metadata; name the model that wrote it with --from-model", fileURL: url)
    }
}
