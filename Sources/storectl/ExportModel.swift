import ArgumentParser
import Foundation
import PersistentStores

/// `storectl export-model [<store>] [--model M] [--output PATH] [--swift]`: writes the model of
/// a store — from `--model`, the configured model, the model the store keeps in its metadata, or
/// Core Data's compiled model in an SQLite file's `Z_MODELCACHE` — as the `contents` XML of an
/// Xcode `.xcdatamodel`, or with `--swift` as Swift source building the same model with the
/// model DSL. How a Core Data application's data moves to a Linux service: export its model
/// from its store, then open the store with it.
struct ExportModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-model",
        abstract: "Write a store's model as an .xcdatamodel contents file or as Swift source.",
        discussion: """
            The model is --model, the configured model, or the one the store keeps (its metadata, \
            or Core Data's model cache in an SQLite file). --output NAME.xcdatamodel writes a model \
            folder with its contents file; any other path is written as is; without --output the \
            model goes to standard output.
            """)

    @Argument(help: "The store file (default: the configured stores).")
    var store: String?

    @Option(name: .long, help: "Where to write: NAME.xcdatamodel (a folder), or a file (default: standard output).")
    var output: String?

    @Flag(name: .long, help: "Swift source (the model DSL) instead of the .xcdatamodel contents XML.")
    var swift = false

    @OptionGroup var options: CommonOptions

    func run() throws {
        let model: ObjectModel
        if store == nil, let path = options.model {
            model = try ObjectModel(contentsOf: URL(fileURLWithPath: absolutePath(path)))
        } else {
            let target = try options.describeStores(path: store)
            guard let resolved = try options.resolveModel(configured: target.configuredModel, descriptions: target.descriptions)
            else { throw CommonOptions.noModelError(target.descriptions) }
            model = resolved.model
        }
        let source = store.map { "the store \(absolutePath($0))" } ?? options.model.map { "the model \(absolutePath($0))" } ?? "the configured store"
        let data = try swift ? Data(ModelSwiftSource.source(of: model, describing: source).utf8) : model.xcodeModelContents()
        guard let output else {
            Console.current.write(String(decoding: data, as: UTF8.self))
            return
        }
        var url = URL(fileURLWithPath: absolutePath(output))
        do {
            if !swift, url.pathExtension == "xcdatamodel" {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
                url.appendPathComponent("contents")
            }
            try data.write(to: url, options: .withoutOverwriting)
        } catch {
            throw StoreError(
                .persistentStoreOperation,
                "Cannot write the model to \(url.path): \(error.localizedDescription) (an existing file or folder is never overwritten)",
                fileURL: url)
        }
        if !options.quiet { Console.current.printError("Wrote the model (\(model.entities.count) entities) to \(url.path)\n") }
    }
}
