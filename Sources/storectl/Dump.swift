import ArgumentParser
import Foundation
import PersistentStores

extension OutputFormat: ExpressibleByArgument {}

/// `storectl dump <store> [--entity E] [--format table|json]`: every object of every entity
/// (or of one), with attributes and relationships.
struct Dump: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print every object of a store, or of one entity.")

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @Option(name: .long, help: "Only this entity (and not its sub-entities).")
    var entity: String?

    @Option(name: .long, help: "table or json.")
    var format: OutputFormat = .table

    @OptionGroup var options: CommonOptions

    func run() throws {
        let opened = try options.openStores(path: store)
        let entities = try entity.map { [try opened.requireEntity($0)] }
            ?? opened.entityNames.compactMap { opened.model.entity(named: $0) }
        let context = ManagedObjectContext(coordinator: opened.coordinator)
        let printer = ObjectPrinter(stores: opened, format: format)
        var groups: [(EntityDescription, [ObjectPrinter.Row])] = []
        for entity in entities {
            var request = FetchRequest(entityName: entity.name)
            request.includesSubentities = false
            let ids = try context.fetchObjectIDs(request).sorted { $0.uriRepresentation.absoluteString < $1.uriRepresentation.absoluteString }
            var progress = Progress("Reading \(entity.name)", total: ids.count, quiet: options.quiet)
            groups.append((entity, try printer.rows(ids, entity: entity, progress: &progress)))
        }
        try printer.print(groups)
    }
}
