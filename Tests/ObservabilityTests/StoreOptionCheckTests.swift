import Foundation
import InMemoryLogging
import Logging
import StoreCore
import StoreTestSupport
import Testing

/// Options given in code are checked when a store is added: a key no store type reads is a
/// warning in the coordinator's log with the closest known key (not an error: applications pass
/// Core Data's keys these stores do not read). The stores check the values of their options.
@Suite struct StoreOptionCheckTests {
    @Test func anUnknownKeyIsAWarningWithTheClosestKnownKey() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.info)
            let coordinator = PersistentStoreCoordinator(
                model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry,
                observability: StoreObservability(logger: logger))
            let typo = String(StoreOptionKey.readOnly.dropLast()) + "y"
            try coordinator.addPersistentStore(
                type: "SQLite", at: directory.appendingPathComponent("League.sqlite"), options: [typo: .bool(true)])
            let warning = try #require(handler.entries.first { $0.level == .warning })
            #expect(warning.message.description.contains("does not read the option \(typo) (did you mean \(StoreOptionKey.readOnly)?)"))
            #expect(coordinator.persistentStores.count == 1)
        }
    }

    @Test func knownOptionsOfTheRightKindPassQuietly() throws {
        try withTemporaryDirectory { directory in
            let (logger, handler) = ObservabilityFixture.logger(.trace)
            let coordinator = PersistentStoreCoordinator(
                model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry,
                observability: StoreObservability(logger: logger))
            try coordinator.addPersistentStore(
                type: "SQLite", at: directory.appendingPathComponent("League.sqlite"),
                options: [StoreOptionKey.migrateAutomatically: .bool(true), StoreOptionKey.inferMappingModel: .string("true")])
            #expect(!handler.entries.contains { $0.level >= .warning })
        }
    }
}
