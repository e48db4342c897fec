import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// A store whose `Z_METADATA` holds a small binary property list of shared references standing
/// for 2^41 objects: reading the metadata and adding the store used to expand them all. Now a
/// 134080 that says why, at once.
@Suite struct PostgreSQLHostileMetadataTests {
    static func coordinator() throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        return PersistentStoreCoordinator(model: try ObjectModel { Entity("Item") { Attribute("name", .string) } }, registry: registry)
    }

    @Test func metadataOfSharedReferencesIsRefusedInSeconds() throws {
        let url = try TestPostgreSQLServer.freshStoreURL("bomb")
        try Self.coordinator().addPersistentStore(type: PostgreSQLStore.storeType, at: url)
        let connection = try PostgreSQLConnection(endpoint: try PostgreSQLEndpoint(url: url))
        _ = try connection.execute(
            "UPDATE \(PostgreSQLConnection.quote(connection.endpoint.schema)).Z_METADATA SET Z_PLIST = $1",
            [.binary(HostilePropertyList.sharedArrays(depth: 40))])

        let metadata = storeError(within: 10) { _ = try PostgreSQLStore.metadata(forStoreAt: url, options: [:]) }
        #expect(metadata?.code == .persistentStoreOpen)
        #expect(metadata?.message.contains("expands to more than 100000 objects") == true, "\(String(describing: metadata))")
        let added = storeError(within: 10) { try Self.coordinator().addPersistentStore(type: PostgreSQLStore.storeType, at: url) }
        #expect(added?.code == .persistentStoreOpen)
        #expect(added?.message.contains("expands to more than 100000 objects") == true, "\(String(describing: added))")
    }
}
