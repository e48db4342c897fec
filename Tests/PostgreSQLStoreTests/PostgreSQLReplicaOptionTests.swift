import Foundation
@testable import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// How a store reads its replicas from its URL and options (no server needed: nothing
/// connects before `loadMetadata()`).
@Suite struct PostgreSQLReplicaOptionTests {
    static func store(_ uri: String, _ options: StoreOptions = [:], readOnly: Bool = false) throws -> PostgreSQLStore {
        var options = options
        if readOnly { options[StoreOptionKey.readOnly] = .bool(true) }
        return try PostgreSQLStore(
            model: try PostgreSQLRemoteChangeTests.model(), configurationName: nil, url: try ConnectionURI(uri).url, options: options)
    }

    @Test func aURIPreferringAStandbyReadsItAndWritesThroughTheSameHostsAskingForReadWrite() throws {
        let store = try Self.store("postgresql://app@db1:5432,db2:5433/inv?target_session_attrs=prefer-standby&schema=app")
        #expect(store.endpoint.connectionString.contains("target_session_attrs='read-write'"))
        #expect(!store.endpoint.connectionString.contains("prefer-standby"))
        let replicas = try #require(store.replication).endpoints
        #expect(replicas.count == 1)
        #expect(replicas.first?.connectionString.contains("target_session_attrs='prefer-standby'") == true)
        #expect(replicas.first?.schema == "app")
        #expect(store.replicaStatus == PostgreSQLReplicaStatus())
    }

    @Test func replicasComeFromTheOptionAsSpaceSeparatedURIsOrAnArrayWithTheStoresSchemaAndCredentials() throws {
        let spaced = try Self.store(
            "postgresql://app@db1/inv?schema=app",
            [
                PostgreSQLOptionKey.replicas: .string("postgresql://app@db2/inv  postgresql://app@db3:6432/inv"),
                PostgreSQLOptionKey.password: .string("pw-Replica-9"), PostgreSQLOptionKey.host: .string("db1"),
            ])
        let endpoints = try #require(spaced.replication).endpoints
        #expect(endpoints.count == 2)
        #expect(endpoints.allSatisfy { $0.schema == "app" && $0.connectionString.contains("password='pw-Replica-9'") })
        // The host option is the primary's: each replica keeps its own.
        #expect(endpoints[0].connectionString.contains("host='db2'"))
        #expect(endpoints[1].connectionString.contains("host='db3'") && endpoints[1].connectionString.contains("port='6432'"))
        #expect(!endpoints[1].redactedDescription.contains("pw-Replica-9"))
        let listed = try Self.store(
            "postgresql://app@db1/inv", [PostgreSQLOptionKey.replicas: .array([.string("postgresql://app@db2/inv")])])
        #expect(try #require(listed.replication).endpoints.count == 1)
        #expect(try Self.store("postgresql://app@db1/inv").replication == nil)
        // A store added read-only connects as its URL says and reads no replica besides.
        let readOnly = try Self.store("postgresql://app@db1,db2/inv?target_session_attrs=prefer-standby", readOnly: true)
        #expect(readOnly.replication == nil)
        #expect(readOnly.endpoint.connectionString.contains("prefer-standby"))
    }

    @Test func aReplicaThatIsNotAConnectionURIOrAWrongWaitIsRefusedNamingTheOption() throws {
        let notURI = storeError { _ = try Self.store("postgresql://app@db1/inv", [PostgreSQLOptionKey.replicas: .string("http://db2/inv")]) }
        #expect(notURI?.code == .persistentStoreOpen)
        let notString = storeError { _ = try Self.store("postgresql://app@db1/inv", [PostgreSQLOptionKey.replicas: .array([.int(3)])]) }
        #expect(notString?.message.contains(PostgreSQLOptionKey.replicas) == true)
        let wait = storeError {
            _ = try Self.store(
                "postgresql://app@db1/inv",
                [PostgreSQLOptionKey.replicas: .string("postgresql://app@db2/inv"), PostgreSQLOptionKey.replicaWaitTimeout: .string("soon")])
        }
        #expect(wait?.message.contains(PostgreSQLOptionKey.replicaWaitTimeout) == true)
    }

    @Test func logPositionsReadAsPostgreSQLWritesThem() {
        #expect(PostgreSQLReplication.position("0/3000148") == 0x300_0148)
        #expect(PostgreSQLReplication.position("16/B374D848") == 0x16_B374_D848)
        #expect(PostgreSQLReplication.position("FFFFFFFF/FFFFFFFF") == UInt64.max)
        #expect(PostgreSQLReplication.position("1/2/3") == nil)
        #expect(PostgreSQLReplication.position("100000000/0") == nil)
        #expect(PostgreSQLReplication.position("") == nil)
    }
}
