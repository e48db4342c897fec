import ArgumentParser
import Foundation
import PersistentStores

/// `storectl info <store>`: the store's type (sniffed), UUID, model version identifiers and
/// hashes, object count per entity and file size.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a store's type, UUID, model version, entity counts and size.")

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        let console = Console.current
        let opened = try options.openStores(path: store)
        for (index, handle) in opened.stores.enumerated() {
            if index > 0 { console.print() }
            let metadata = try opened.coordinator.metadata(for: handle)
            console.print("Store:        \(handle.url.map(display) ?? "(no file)")")
            console.print("Type:         \(handle.type)" + (metadata[MetadataKey.persistenceFrameworkVersion] != nil ? " (written by Core Data)" : ""))
            console.print("UUID:         \(handle.identifier)")
            if let url = handle.url, url.isFileURL {
                let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
                console.print("File size:    \(size.map { "\($0) bytes" } ?? "unknown")")
            }
            if let configuration = handle.configurationName { console.print("Configuration: \(configuration)") }
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

    private static func list(_ value: MetadataValue) -> String {
        if case .array(let items) = value {
            return items.isEmpty ? "none" : items.map { $0.stringValue.map { "\"\($0)\"" } ?? "\($0)" }.joined(separator: ", ")
        }
        return "\(value)"
    }
}
