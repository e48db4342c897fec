import ArgumentParser
import Foundation
import PersistentStores

/// `storectl`: the command-line face of PersistentStores.
///
/// Errors are one line on standard error, `error <code>: <message>` with the `StoreError`
/// code, and a non-zero exit; never a stack trace.
@main
struct StoreCtl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storectl",
        abstract: "Work with PersistentStores stores.",
        discussion: """
            Every store command takes --config FILE (YAML or JSON) and the PERSISTENCE_* environment \
            variables; see docs/configuration.md. `copy` moves a store to another type; `migrate` \
            brings a store to a new model version (docs/migration.md).
            """,
        subcommands: [Demo.self, Info.self, Dump.self, Query.self, Validate.self, Copy.self, Migrate.self, ExportModel.self, Types.self, ConformanceCommand.self],
        defaultSubcommand: Demo.self)

    static func main() {
        let status = run(Array(CommandLine.arguments.dropFirst()))
        Foundation.exit(status)
    }

    /// Parses and runs one command line on ``Console/current`` and returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let console = Console.current
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            return 0
        } catch let error as StoreError {
            console.printError(ConnectionURI.redactingUserInfo(in: Self.line(for: error)) + "\n")
            return 1
        } catch {
            let code = exitCode(for: error)
            if code == .success {
                // --help, --version: print what ArgumentParser would, on standard output.
                console.print(fullMessage(for: error))
                return 0
            }
            let message = fullMessage(for: error)
            if !message.isEmpty { console.printError(ConnectionURI.redactingUserInfo(in: message) + "\n") }
            return code.rawValue
        }
    }

    /// `error 134080: <message>`, on one line (a multi-line message keeps its first line).
    static func line(for error: StoreError) -> String {
        let first = error.message.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return "error \(error.code.rawValue): \(first)"
    }
}
