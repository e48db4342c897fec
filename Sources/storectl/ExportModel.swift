import ArgumentParser
import Foundation
import PersistentStores

/// `storectl export-model [<store>] [--model M] [--output PATH] [--format xcdatamodel|swift|models]`:
/// writes the model of a store — from `--model`, the configured model, the model the store keeps
/// in its metadata, or Core Data's compiled model in an SQLite file's `Z_MODELCACHE` — as the
/// `contents` XML of an Xcode `.xcdatamodel`, as Swift source building the same model with the
/// model DSL (`--format swift`, or `--swift`), or as Swift source of `@Model` classes
/// (`--format models`). How a Core Data application's data moves to a Linux service: export its
/// model from its store, then open the store with it.
struct ExportModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-model",
        abstract: "Write a store's model as an .xcdatamodel contents file, as Swift source, or as @Model classes.",
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

    /// What `export-model` writes.
    enum Format: String, ExpressibleByArgument, CaseIterable {
        /// The `contents` XML of an `.xcdatamodel`.
        case xcdatamodel
        /// Swift source building the model with the model DSL.
        case swift
        /// Swift source of `@Model` classes.
        case models
    }

    @Option(name: .long, help: "xcdatamodel (the contents XML, the default), swift (the model DSL) or models (@Model classes).")
    var format: Format?

    @Flag(name: .long, help: "Swift source (the model DSL): the same as --format swift.")
    var swift = false

    @OptionGroup var options: CommonOptions

    func validate() throws {
        if swift, let format, format != .swift {
            throw ValidationError("--swift and --format \(format.rawValue) ask for different formats; pass one")
        }
    }

    func run() throws {
        let format: Format = swift ? .swift : (self.format ?? .xcdatamodel)
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
        let data: Data
        switch format {
        case .xcdatamodel: data = try model.xcodeModelContents()
        case .swift: data = Data(ModelSwiftSource.source(of: model, describing: source).utf8)
        case .models: data = Data(ModelClassSource.source(of: model, describing: source).utf8)
        }
        guard let output else {
            Console.current.write(String(decoding: data, as: UTF8.self))
            return
        }
        var url = URL(fileURLWithPath: absolutePath(output))
        do {
            if format == .xcdatamodel, url.pathExtension == "xcdatamodel" {
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
