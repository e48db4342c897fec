import ArgumentParser
import PersistentStores

/// `storectl types`: lists the registered store types and their capabilities.
struct Types: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the registered store types.")

    func run() throws {
        PersistentStores.registerBuiltInStoreTypes()
        for name in StoreRegistry.shared.registeredStoreTypes {
            let capabilities = StoreRegistry.shared.storeType(named: name)?.capabilities.names ?? []
            Console.current.print("\(name)\t\(capabilities.joined(separator: ", "))")
        }
    }
}
