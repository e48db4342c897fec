import Foundation

extension PersistentStoreCoordinator {
    /// Stops taking saves: every later save (of any context, or ``save(_:)``) fails with
    /// 134070 saying the coordinator is shutting down, and writes nothing. Saves already in
    /// progress finish. Fetches go on. For a graceful shutdown (the `PersistenceService`
    /// product does it on a service group's graceful shutdown).
    public func stopAcceptingSaves() {
        saveGate.close()
        observability.logger.info("Stopped accepting saves", metadata: ["saves.running": .stringConvertible(saveGate.running)])
    }

    /// Whether saves are refused (after ``stopAcceptingSaves()``).
    public var isAcceptingSaves: Bool { !saveGate.isClosed }

    /// Waits until the saves in progress have finished, at most `timeout`; call
    /// ``stopAcceptingSaves()`` first. Returns whether every save finished in time.
    public func waitForSaves(timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.saveGate.drained()
                return !Task.isCancelled
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// Removes every store (each writes its pending metadata and closes its files and
    /// connections when it goes; SQLite checkpoints its WAL into the database as its last
    /// connection closes). Every store is removed even when one fails; the first error is
    /// thrown.
    public func removeAllStores() throws {
        var firstError: (any Error)?
        for handle in persistentStores {
            do { try remove(handle) } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}
