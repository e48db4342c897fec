import DirectoryStore
import Foundation
import JSONFileStore
import PersistentModels
import StoreTestSupport
@testable import SwiftDataSamples
import Testing

/// A kind of store the samples run on: every built-in store type, the two example store
/// types, and the samples' own `JSONStore` (a SwiftData `DataStore`).
enum SampleStore: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite = "SQLite"
    case inMemory = "InMemory"
    case binary = "Binary"
    case xml = "XML"
    case pipeCSV = "PipeCSV"
    case postgreSQL = "PostgreSQL"
    case jsonFile = "JSONFile"
    case directory = "Directory"
    case jsonDataStore = "JSONStore"

    /// Every kind whose objects outlive the container.
    static let persistentCases = allCases.filter(\.isPersistent)
    /// The kinds the framework migrates with a `SchemaMigrationPlan` (a `DataStore` is handed
    /// the plan and migrates its own data; an InMemory store has nothing to migrate).
    static let migratingCases = persistentCases.filter { $0 != .jsonDataStore }

    /// Whether the objects outlive the container.
    var isPersistent: Bool { self != .inMemory }

    var testDescription: String { rawValue }

    /// A fresh store of this kind: a file or folder in `folder`, or a schema of the test server.
    func location(in folder: URL) throws -> SampleStoreLocation {
        switch self {
        case .inMemory: SampleStoreLocation(kind: self, url: nil)
        case .postgreSQL: SampleStoreLocation(kind: self, url: try TestPostgreSQLServer.freshStoreURL("samples"))
        default: SampleStoreLocation(kind: self, url: folder.appendingPathComponent("SampleTrips.\(rawValue)"))
        }
    }
}

/// One store of a kind; each ``container(for:migrationPlan:)`` opens it in a new container.
struct SampleStoreLocation {
    let kind: SampleStore
    let url: URL?

    /// A registry with the built-in types (registered by the container) and the examples'.
    static func registry() -> StoreRegistry {
        let registry = StoreRegistry()
        registry.register(JSONFileStore.self)
        registry.register(DirectoryStore.self)
        return registry
    }

    /// A new container on the store, for `types`.
    func container(
        for types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)? = nil
    ) throws -> ModelContainer {
        let registry = Self.registry()
        switch kind {
        case .inMemory:
            return try ModelContainer(
                for: types, migrationPlan: migrationPlan, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)],
                registry: registry)
        case .jsonDataStore:
            let url = try #require(url)
            let schema = try Schema(types)
            let configuration = JSONStoreConfiguration(name: "SampleTrips", schema: schema, fileURL: url)
            return try ModelContainer(
                for: schema, migrationPlan: migrationPlan, dataStoreConfigurations: [configuration], registry: registry)
        default:
            return try ModelContainer(
                for: types, migrationPlan: migrationPlan,
                configurations: [ModelConfiguration(storeType: kind.rawValue, url: url)], registry: registry)
        }
    }
}
