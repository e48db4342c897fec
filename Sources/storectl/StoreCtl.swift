import ArgumentParser
import Foundation
import PersistentStores

/// `storectl`: the command-line face of PersistentStores.
@main
struct StoreCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storectl",
        abstract: "Work with PersistentStores stores.",
        subcommands: [Demo.self, Types.self, ConformanceCommand.self],
        defaultSubcommand: Demo.self)
}
