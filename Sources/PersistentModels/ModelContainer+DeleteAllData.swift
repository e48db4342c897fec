import Foundation

extension ModelContainer {
    /// Deletes every object of every store of the container (SwiftData's `deleteAllData()`):
    /// each store is removed from the coordinator, destroyed
    /// (`PersistentStoreCoordinator.destroyPersistentStore(at:type:options:)`: its files, the
    /// server's tables, or a ``DataStore``'s ``DataStore/erase()``), and added again, empty, with
    /// the same type, configuration, location and options. A store without a location (an
    /// in-memory one) starts empty by being added again.
    ///
    /// ```swift
    /// try container.deleteAllData()
    /// ```
    ///
    /// Unlike SwiftData's, it throws: a store that cannot be destroyed (a ``DataStore`` without
    /// `erase()`, a file that is not a store of its type) is added again as it was, with its
    /// objects, and the error names it — the data is never reported deleted when it is not.
    /// Stores after the failing one are left as they are. The stores come back with new
    /// identifiers, so objects that contexts made before the call still hold belong to stores
    /// the container no longer has: make new contexts, or reset the old ones
    /// (`managedObjectContext.reset()`).
    ///
    /// - Throws: what removing, destroying or adding a store again throws (`StoreError`).
    public func deleteAllData() throws {
        for handle in coordinator.persistentStores {
            // A `DataStore` is erased where it is; removing and adding it again empties its cache.
            let handOff = try coordinator.withStore(handle) { store -> DataStoreHandOff? in
                try (store as? any DataStoreErasing)?.eraseData()
            }
            try coordinator.remove(handle)
            var destroyError: (any Error)?
            if handOff == nil, let url = handle.url {
                do {
                    try coordinator.destroyPersistentStore(at: url, type: handle.type, options: handle.options)
                } catch {
                    destroyError = error
                }
            }
            try DataStoreHandOff.$current.withValue(handOff) {
                try coordinator.addPersistentStore(
                    type: handle.type, configuration: handle.configurationName, at: handle.url, options: handle.options)
            }
            if let destroyError { throw destroyError }
        }
    }
}
