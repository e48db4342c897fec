import ArgumentParser
import Foundation
import PersistentStores

extension OutputFormat: ExpressibleByArgument {}

/// `storectl dump <store> [--entity E] [--format table|json|csv]`: every object of every entity
/// (or of one), with attributes and relationships, written as it is read (memory stays that of
/// one batch of objects, whatever the store's size).
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print every object of a store, or of one entity.")

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @Option(name: .long, help: "Only this entity (and not its sub-entities).")
    var entity: String?

    @Option(name: .long, help: "table, json or csv (csv: one entity, so with --entity when the store has several).")
    var format: OutputFormat = .table

    @OptionGroup var options: CommonOptions

    func run() throws {
        let opened = try options.openStores(path: store)
        let entities = try entity.map { [try opened.requireEntity($0)] }
            ?? opened.entityNames.compactMap { opened.model.entity(named: $0) }
        let context = ManagedObjectContext(coordinator: opened.coordinator)
        let printer = ObjectPrinter(stores: opened, format: format, quiet: options.quiet)
        var groups: [(entity: EntityDescription, ids: [ObjectID])] = []
        for entity in entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            let ids = try context.fetchObjectIDs(request).map { ($0.uriRepresentation.absoluteString, $0) }
                .sorted { $0.0 < $1.0 }.map(\.1)
            groups.append((entity, ids))
        }
        try printer.print(groups)
    }
}
