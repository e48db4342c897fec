import Foundation
import Logging
import PersistenceService
import PersistentStores
import ServiceLifecycle
import Testing

@Test func inAServer() async throws {
    PersistentStores.registerBuiltInStoreTypes()
    let model = try ObjectModel {
        Entity("Team") { Attribute("name", .string) }
    }
    var logger = Logger(label: "league")
    logger.logLevel = .info                                   // .debug: every SQL statement, timed
    let container = PersistentContainer(
        name: "League", model: model,
        observability: StoreObservability(logger: logger, slowStatementThreshold: .milliseconds(200)))
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("League-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    container.persistentStoreDescriptions = [StoreDescription(type: "SQLite", url: folder.appendingPathComponent("League.sqlite"))]
    try container.loadPersistentStores()                     // before serving: fail fast

    let persistence = try PersistenceService(container: container, shutdownTimeout: .seconds(10))
    // A server lists its HTTP server too, and passes gracefulShutdownSignals: [.sigterm, .sigint].
    let group = ServiceGroup(services: [persistence], gracefulShutdownSignals: [], logger: logger)
    async let running: Void = group.run()

    try await container.performBackgroundTask { context in   // what a request handler does
        let team = try context.insert(entityName: "Team")
        try team.setValue("Lions", forKey: "name")
        try context.save()
    }
    await group.triggerGracefulShutdown()                    // what SIGTERM does
    try await running                                        // saves drained, WAL checkpointed, stores closed
    #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
}
