import Foundation
import Logging
import ServiceLifecycle
import StoreCore

/// A container's stores as a swift-service-lifecycle `Service`, for a server's `ServiceGroup`:
/// `run()` adds the stores, then waits; on graceful shutdown it stops taking saves (a later
/// save fails with 134070 "… is shutting down …"), waits for the saves in progress (at most
/// ``shutdownTimeout``), and removes every store, which closes its files and connections
/// (SQLite checkpoints its WAL into the database as its last connection closes).
///
/// ```swift
/// let container = PersistentContainer(name: "League", model: model)
/// let persistence = try PersistenceService(container: container)
/// let group = ServiceGroup(
///     services: [persistence, httpServer], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// It is its own product (`PersistenceService`), so applications that use StoreCore without
/// swift-service-lifecycle (and its swift-async-algorithms dependency) do not build it.
public struct PersistenceService: Service {
    /// The coordinator the stores are added to (the container's).
    public let coordinator: PersistentStoreCoordinator
    /// The stores ``run()`` adds: the container's descriptions, or its default SQLite store.
    public let descriptions: [StoreDescription]
    /// How long a graceful shutdown waits for the saves in progress before it closes the
    /// stores (which then waits for the save that holds the coordinator, if any).
    public let shutdownTimeout: Duration
    private let willDrain: (@Sendable () async -> Void)?

    /// A service for `container`'s stores.
    ///
    /// - Parameters:
    ///   - container: its descriptions (or its default SQLite store) are added by ``run()``;
    ///     when its coordinator has stores already, ``run()`` adds none.
    ///   - shutdownTimeout: how long a graceful shutdown waits for saves in progress.
    ///   - willDrain: called on graceful shutdown once saves are refused and before waiting for
    ///     the ones in progress (to mark the instance as draining in a health check, say).
    /// - Throws: what `PersistentContainer.defaultStoreDescription()` throws when the
    ///   container has no descriptions.
    public init(
        container: PersistentContainer, shutdownTimeout: Duration = .seconds(10),
        willDrain: (@Sendable () async -> Void)? = nil
    ) throws {
        if container.persistentStoreDescriptions.isEmpty {
            container.persistentStoreDescriptions = [try container.defaultStoreDescription()]
        }
        self.coordinator = container.persistentStoreCoordinator
        self.descriptions = container.persistentStoreDescriptions
        self.shutdownTimeout = shutdownTimeout
        self.willDrain = willDrain
    }

    /// Adds the stores, waits for graceful shutdown (or cancellation), then stops taking saves,
    /// waits for the ones in progress and closes every store.
    ///
    /// - Throws: the first store that cannot be added (as `PersistentContainer.loadPersistentStores()`
    ///   would: automatic migration on unless a description turns it off).
    public func run() async throws {
        try loadStores()
        // Cancellation ends the wait too; the stores are closed either way.
        try? await gracefulShutdown()
        try await shutDown()
    }

    private var logger: Logger { coordinator.observability.logger }

    private func loadStores() throws {
        guard coordinator.persistentStores.isEmpty else { return }
        for description in descriptions {
            if let folder = description.url?.deletingLastPathComponent(), description.url?.isFileURL == true {
                try PersistentContainer.createFolder(folder, for: description)
            }
            do {
                try coordinator.addPersistentStore(PersistentContainer.migratingByDefault(description))
            } catch var error as StoreError {
                if !error.message.contains(description.description) { error.message = "\(description): \(error.message)" }
                throw error
            }
        }
        logger.info("Persistence service started", metadata: ["stores": .stringConvertible(descriptions.count)])
    }

    private func shutDown() async throws {
        coordinator.stopAcceptingSaves()
        if let willDrain { await willDrain() }
        let drained = await coordinator.waitForSaves(timeout: shutdownTimeout)
        if !drained {
            logger.warning(
                "Saves still in progress when the shutdown timeout passed; closing the stores",
                metadata: ["timeout": .stringConvertible(shutdownTimeout)])
        }
        try coordinator.removeAllStores()
        logger.info("Persistence service stopped: every store closed")
    }
}
