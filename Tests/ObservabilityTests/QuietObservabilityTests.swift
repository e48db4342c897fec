import CoreMetrics
import Foundation
import InMemoryLogging
import Logging
@testable import StoreCore
import StoreTestSupport
import Testing
import Tracing

/// Observability off as a server usually has it: swift-metrics' no-op backend and tracing's
/// no-op tracer, and a logger of its own above `debug`. Nothing may be made or measured per
/// operation then beyond what the slow-statement threshold needs.
@Suite("Quiet observability")
struct QuietObservabilityTests {
    /// A coordinator given the no-op backends (as if bootstrapped) and a logger at `level`.
    static func coordinator(
        level: Logger.Level, slowStatementThreshold: Duration? = .milliseconds(500)
    ) throws -> (PersistentStoreCoordinator, InMemoryLogHandler) {
        let (logger, handler) = ObservabilityFixture.logger(level)
        let observability = StoreObservability(
            logger: logger, slowStatementThreshold: slowStatementThreshold, metricsFactory: NOOPMetricsHandler.instance,
            tracer: NoOpTracer())
        let coordinator = PersistentStoreCoordinator(
            model: try ObservabilityFixture.model(), registry: ObservabilityFixture.registry, observability: observability)
        return (coordinator, handler)
    }

    @Test("The no-op metrics backend and tracer make no metric object, gauge or tracer")
    func noOpBackendsAreNone() throws {
        let (coordinator, _) = try Self.coordinator(level: .info)
        #expect(coordinator.metricsFactory == nil)
        #expect(coordinator.tracer == nil)
        #expect(coordinator.rowCacheGauge == nil)
        #expect(coordinator.registeredObjectsGauge == nil)
    }

    @Test("A logger at info only times statements for the slow-statement threshold; above it, or without a threshold, a store has no instrumentation")
    func loggerAboveDebug() throws {
        let (atInfo, _) = try Self.coordinator(level: .info)
        let instrumentation = try #require(atInfo.instrumentation(storeType: "SQLite", url: nil))
        #expect(instrumentation.metrics == nil)
        #expect(instrumentation.tracer == nil)
        #expect(!instrumentation.logsStatements)
        #expect(!instrumentation.tracesValues)
        #expect(instrumentation.observesStatements)
        let (atWarning, _) = try Self.coordinator(level: .warning)
        #expect(atWarning.instrumentation(storeType: "SQLite", url: nil) == nil)
        let (withoutThreshold, _) = try Self.coordinator(level: .info, slowStatementThreshold: nil)
        #expect(withoutThreshold.instrumentation(storeType: "SQLite", url: nil) == nil)
    }

    @Test("Saves and fetches with a logger at info log nothing when every statement is fast")
    func quietWorkLogsNothing() throws {
        try withTemporaryDirectory { directory in
            // A threshold no statement of this test reaches, even on a busy machine.
            let (coordinator, handler) = try Self.coordinator(level: .info, slowStatementThreshold: .seconds(60))
            try coordinator.addPersistentStore(type: "SQLite", at: directory.appendingPathComponent("League.sqlite"))
            try ObservabilityFixture.insertTeams(["Lions", "Tigers"], into: coordinator)
            let context = ManagedObjectContext(coordinator: coordinator)
            #expect(try context.fetch(FetchRequest(entityName: "Team")).count == 2)
            #expect(handler.entries.isEmpty)
        }
    }
}
