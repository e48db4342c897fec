import Foundation
import Synchronization

/// The store type name, capabilities and configuration maker of each ``DataStore`` type
/// registered with `StoreRegistry.register(dataStore:forStoreType:capabilities:configuration:)`.
/// Process-wide, as a store type's name and capabilities are (they are class properties of
/// ``DataStoreAdapter``).
final class DataStoreRegistrations: Sendable {
    /// One data store type's registration.
    struct Registration: Sendable {
        /// The store type name.
        let name: String
        /// The capabilities declared.
        let capabilities: StoreCapabilities
        /// Makes a configuration for a store URL: a `@Sendable (URL?) throws -> Store.Configuration`.
        let configurationMaker: any Sendable

        /// The configuration maker, typed.
        func makeConfiguration<Store: DataStore>(_ type: Store.Type) -> (@Sendable (URL?) throws -> Store.Configuration)? {
            configurationMaker as? @Sendable (URL?) throws -> Store.Configuration
        }
    }

    /// The registrations of the process.
    static let shared = DataStoreRegistrations()

    private let registrations = Mutex<[ObjectIdentifier: Registration]>([:])

    /// The registration of a data store type, if it has one.
    func registration<Store: DataStore>(for type: Store.Type) -> Registration? {
        registrations.withLock { $0[ObjectIdentifier(type)] }
    }

    /// Records (or replaces) the registration of a data store type.
    func register<Store: DataStore>(_ type: Store.Type, _ registration: Registration) {
        registrations.withLock { $0[ObjectIdentifier(type)] = registration }
    }
}
