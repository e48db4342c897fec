import ArgumentParser
import Foundation
import PersistentStores

/// `storectl copy <from> <to> --to-type T`: copies a store to a new file of any registered type
/// with `PersistentStoreCoordinator.migratePersistentStore`. The source is opened read-only and
/// never written; the destination must not exist yet (or be empty). A destination type that
/// keeps nothing (InMemory) is refused before anything is read: the copy would end with the
/// command.
struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a store to a new file of any type (every object, relationship and metadata key).")

    @Argument(help: "The store to copy (its type from --type, else sniffed from the file).")
    var source: String

    @Argument(help: "The new store file; it must not exist yet.")
    var destination: String

    @Option(name: .customLong("to-type"), help: "The type of the new store (default: the source's type).")
    var toType: String?

    @OptionGroup var options: CommonOptions

    func run() throws {
        let console = Console.current
        let opened = try options.openStores(path: source)
        guard let handle = opened.stores.first else {
            throw StoreError(.persistentStoreOperation, "No store to copy at \(source)")
        }
        let url = try storeURL(destination)
        let type = toType ?? storeType(ofURI: url) ?? handle.type
        if let storeClass = StoreRegistry.shared.storeType(named: type), !storeClass.capabilities.contains(.persistent) {
            throw StoreError(
                .persistentStoreOperation,
                "Cannot copy into a store of type \(type): it keeps nothing once storectl exits, so the copy would be lost; choose a type that writes a file or a server (storectl types lists them)",
                fileURL: url)
        }
        if !url.isFileURL, let storeClass = StoreRegistry.shared.storeType(named: type), !(storeClass is any ServerStore.Type) {
            // A file store is never written at a URI's path.
            throw StoreError(
                .persistentStoreOperation, "\(display(url)) is not a file, and a \(type) store is one: pass a path, or --to-type with a store type on a server")
        }
        let quiet = options.quiet
        let copy = try opened.coordinator.migratePersistentStore(handle, to: url, type: type) { progress in
            if !quiet && progress.done == progress.total { console.printError("Copying: \(progress.done)/\(progress.total)\n") }
        }
        let context = ManagedObjectContext(coordinator: opened.coordinator)
        var count = 0
        for name in opened.model.entityNames(inConfiguration: copy.configurationName)
        where !(opened.model.entity(named: name)?.isAbstract ?? false) {
            var request = FetchRequest(entityName: name)
            request.includesSubentities = false
            count += try context.count(for: request)
        }
        console.print("Copied \(count) objects from the \(handle.type) store at \(handle.url.map(display) ?? "(memory)") to the \(type) store at \(display(url))")
    }
}
