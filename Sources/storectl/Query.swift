import ArgumentParser
import Foundation
import PersistentStores

/// `storectl query <store> --entity E --where 'predicate' [--sort key[:desc]] [--limit n]
/// [--format table|json|csv]`; objects are written as they are read.
struct Query: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch the objects of an entity that match a predicate.")

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @Option(name: .long, help: "The entity to fetch (sub-entities included).")
    var entity: String

    @Option(name: .customLong("where"), help: "A predicate in Core Data's format, e.g. 'name BEGINSWITH \"A\" AND age > 30'.")
    var predicate: String?

    @Option(name: .long, help: "Sort by this key path; append :desc for descending. Repeatable.")
    var sort: [String] = []

    @Option(name: .long, help: "At most this many objects.")
    var limit: Int?

    @Option(name: .long, help: "table, json or csv.")
    var format: OutputFormat = .table

    @OptionGroup var options: CommonOptions

    func run() throws {
        let opened = try options.openStores(path: store)
        let entity = try opened.requireEntity(entity)
        var request = FetchRequest(entityName: entity.name)
        if let predicate { request.predicate = try FetchPredicate(format: predicate) }
        request.sortKeys = sort.map { key in
            if key.hasSuffix(":desc") { return SortKey(String(key.dropLast(5)), ascending: false) }
            if key.hasSuffix(":asc") { return SortKey(String(key.dropLast(4))) }
            return SortKey(key)
        }
        for key in request.sortKeys { try key.validate(forEntityNamed: entity.name, in: opened.model) }
        if let limit {
            guard limit >= 0 else { throw ValidationError("--limit must not be negative") }
            request.fetchLimit = limit
        }
        let context = ManagedObjectContext(coordinator: opened.coordinator)
        let ids = try context.fetchObjectIDs(request)
        try ObjectPrinter(stores: opened, format: format, quiet: options.quiet).print([(entity, ids)])
    }
}
