/// A store that answers counts and identifier lists of a typed descriptor itself: a
/// ``DataStoreAdapter``, which asks its ``DataStore``'s ``DataStore/fetchCount(_:)`` and
/// ``DataStore/fetchIdentifiers(_:)`` (as SwiftData asks a custom store).
protocol DataStoreAnswering: AnyObject {
    /// The number of objects `descriptor` matches, as the store counts them; nil when the
    /// store prefers the framework to count (it threw ``DataStoreError/preferInMemoryFilter``
    /// or ``DataStoreError/preferInMemorySort``).
    func count<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int?

    /// The identifiers of the objects `descriptor` matches, in its order, as the store lists
    /// them (each the identifier the object has in the framework); nil when the store prefers
    /// the framework to filter or sort.
    func identifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]?
}

extension ModelContext {
    /// The count of a ``DataStore``, when it is the one to answer (`dataStoreAnswers(_:)`).
    /// Nil otherwise, and when the store prefers the framework to count.
    func dataStoreCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int? {
        try dataStoreAnswers(descriptor) { try $0.count(descriptor) }
    }

    /// The identifiers a ``DataStore`` lists, when it is the one to answer
    /// (`dataStoreAnswers(_:)`). Nil otherwise, and when the store prefers the framework to
    /// filter or sort.
    func dataStoreIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier]? {
        try dataStoreAnswers(descriptor) { try $0.identifiers(descriptor) }
    }

    /// Asks the one store holding the descriptor's entity when it is a ``DataStore`` and can
    /// answer alone: the descriptor has no limit or offset (a store answers over what it
    /// holds), and the context has no parent and no unsaved change the descriptor would count.
    /// Nil otherwise.
    private func dataStoreAnswers<T: PersistentModel, R>(
        _ descriptor: FetchDescriptor<T>, _ ask: (any DataStoreAnswering) throws -> R?
    ) throws -> R? {
        guard descriptor.fetchLimit == nil, (descriptor.fetchOffset ?? 0) == 0 else { return nil }
        let context = managedObjectContext
        guard context.parent == nil, !(descriptor.includePendingChanges && context.hasChanges) else { return nil }
        return try context.coordinator.withStores(holding: T.persistentEntitySchema.entityName) { stores -> R? in
            guard stores.count == 1, let store = stores.first as? any DataStoreAnswering else { return nil }
            return try ask(store)
        }
    }
}
