import Foundation
import InMemoryLogging
import Logging
import MetricsTestKit
import StoreCore
import StoreTestSupport
import Testing

/// The statements a store runs while it is added — opening it, creating its schema, reading and
/// writing its metadata, migrating it — are logged as any later statement.
@Suite("Store add logging")
struct StoreAddLoggingTests {
    /// The SQL of the statements logged at debug, in order.
    static func statements(in handler: InMemoryLogHandler) -> [String] {
        handler.entries.filter { $0.message.description == "SQL statement" && $0.level == .debug }
            .compactMap { $0.metadata["db.query.text"]?.description }
    }

    @Test("Adding a new SQLite store logs its CREATE TABLE statements at debug")
    func newStoreLogsItsSchema() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.debug)
            let coordinator = PersistentStoreCoordinator(
                model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry,
                observability: StoreObservability(logger: logger, slowStatementThreshold: nil))
            try coordinator.addPersistentStore(type: "SQLite", at: directory.appendingPathComponent("League.sqlite"))

            let statements = Self.statements(in: handler)
            #expect(statements.contains { $0.hasPrefix("CREATE TABLE") && $0.contains("ZTEAM") }, "\(statements)")
            #expect(statements.contains { $0.hasPrefix("CREATE TABLE") && $0.contains("ZACCOUNT") })
            #expect(statements.contains { $0.hasPrefix("CREATE TABLE") && $0.contains("Z_METADATA") })
            let create = try #require(handler.entries.first { ($0.metadata["db.query.text"]?.description ?? "").hasPrefix("CREATE TABLE") })
            #expect(create.metadata["store.type"]?.description == "SQLite")
            #expect(create.metadata["store.name"]?.description == "League")
            #expect(create.metadata["duration_ms"] != nil)
        }
    }

    @Test("Adding an existing SQLite store logs the statements that read its metadata")
    func existingStoreLogsItsMetadataRead() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            let first = PersistentStoreCoordinator(model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry)
            try first.remove(try first.addPersistentStore(type: "SQLite", at: url))

            let (logger, handler) = ObservabilityFixture.logger(.debug)
            let coordinator = PersistentStoreCoordinator(
                model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry,
                observability: StoreObservability(logger: logger, slowStatementThreshold: nil))
            try coordinator.addPersistentStore(type: "SQLite", at: url)
            let statements = Self.statements(in: handler)
            #expect(statements.contains { $0.contains("Z_METADATA") && $0.hasPrefix("SELECT") }, "\(statements)")
            #expect(!statements.contains { $0.hasPrefix("CREATE TABLE") && $0.contains("ZTEAM") }, "an existing store's tables are not created again")
        }
    }

    @Test("A lightweight migration while adding a store logs its statements and the migration")
    func lightweightMigrationLogsItsStatements() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            let v1 = try ObservabilityFixture.model()
            let first = PersistentStoreCoordinator(model: v1, registry: ObservabilityFixture.registry)
            try first.remove(try first.addPersistentStore(type: "SQLite", at: url))
            var entities = v1.entities
            for index in entities.indices where entities[index].name == "Team" {
                entities[index].attributes.append(Attribute("city", .string))
            }
            let v2 = try ObjectModel(entities: entities)

            let (logger, handler) = ObservabilityFixture.logger(.debug)
            let coordinator = PersistentStoreCoordinator(
                model: v2, versions: [v1], registry: ObservabilityFixture.registry,
                observability: StoreObservability(logger: logger, slowStatementThreshold: nil))
            try coordinator.addPersistentStore(
                type: "SQLite", at: url,
                options: [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true])

            let statements = Self.statements(in: handler)
            #expect(statements.contains { $0.hasPrefix("ALTER TABLE") && $0.contains("ZTEAM") && $0.contains("ZCITY") }, "\(statements)")
            let migrated = try #require(handler.entries.firstIndex { $0.message.description == "Migrated store" })
            let alter = try #require(handler.entries.firstIndex { ($0.metadata["db.query.text"]?.description ?? "").hasPrefix("ALTER TABLE") })
            #expect(alter < migrated, "the migration's statements are logged within it")
            #expect(handler.entries[alter].metadata["store.name"]?.description == "League")
        }
    }

    @Test("Only metrics on: connections opened while adding a store observe no statement")
    func noStatementObserverWithoutLogging() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.info)
            let coordinator = PersistentStoreCoordinator(
                model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry,
                observability: StoreObservability(logger: logger, slowStatementThreshold: nil, metricsFactory: TestMetrics()))
            try coordinator.addPersistentStore(type: "SQLite", at: directory.appendingPathComponent("League.sqlite"))
            #expect(Self.statements(in: handler).isEmpty)
            #expect(StoreInstrumentation.statementObserverWhileAdding == nil, "no store is being added")
        }
    }
}
