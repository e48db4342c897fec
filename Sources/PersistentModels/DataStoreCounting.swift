/// A store that counts a typed descriptor itself: a ``DataStoreAdapter``, which asks its
/// ``DataStore``'s ``DataStore/fetchCount(_:)`` (as SwiftData counts on a custom store).
protocol DataStoreCounting: AnyObject {
    /// The number of objects `descriptor` matches, as the store counts them; nil when the
    /// store prefers the framework to count (it threw ``DataStoreError/preferInMemoryFilter``
    /// or ``DataStoreError/preferInMemorySort``).
    func count<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int?
}

extension ModelContext {
    /// The count of a ``DataStore``, when it is the one to answer: the descriptor has no limit
    /// or offset (the store counts what it holds), the context has no parent and no unsaved
    /// change the descriptor would count, and the one store holding the entity counts itself.
    /// Nil otherwise, and when the store prefers the framework to count.
    func dataStoreCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int? {
        guard descriptor.fetchLimit == nil, (descriptor.fetchOffset ?? 0) == 0 else { return nil }
        let context = managedObjectContext
        guard context.parent == nil, !(descriptor.includePendingChanges && context.hasChanges) else { return nil }
        return try context.coordinator.withStores(holding: T.persistentEntitySchema.entityName) { stores -> Int? in
            guard stores.count == 1, let store = stores.first as? any DataStoreCounting else { return nil }
            return try store.count(descriptor)
        }
    }
}
