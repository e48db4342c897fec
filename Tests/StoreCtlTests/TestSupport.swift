import Foundation
import PersistentStores
@testable import storectl

/// What one in-process `storectl` run printed and returned.
struct Run {
    let status: Int32
    let output: String
    let errors: String
}

/// Runs `storectl` with `arguments` in this process, capturing both streams.
func storectl(_ arguments: String...) -> Run {
    storectl(arguments)
}

/// Runs `storectl` with `arguments` in this process, capturing both streams.
func storectl(_ arguments: [String]) -> Run {
    let (console, captured) = Console.capturing()
    let status = Console.$current.withValue(console) { StoreCtl.run(arguments) }
    return Run(status: status, output: captured.standardOutput, errors: captured.standardError)
}
