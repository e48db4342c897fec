import Foundation

extension ModelContext {
    /// The identifiers of the objects a descriptor matches, in its order, without making model
    /// instances (temporary for objects not saved yet). On a ``DataStore`` the store's own
    /// ``DataStore/fetchIdentifiers(_:)`` answers when the context has nothing unsaved the
    /// descriptor would see and the descriptor has no limit or offset (see `DataStoreAnswering`).
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        if let listed = try dataStoreIdentifiers(descriptor) { return listed }
        return try managedObjectContext.fetchObjectIDs(descriptor.fetchRequest()).map(PersistentIdentifier.init)
    }

    /// Calls `block` with each object a descriptor matches, in its order, reading them in
    /// batches of `batchSize` (SwiftData's `enumerate`): the matching IDs are fetched first,
    /// then each batch is read with one fetch as the enumeration reaches it, and the unchanged
    /// objects of the batch before are turned back into faults, so about one batch of objects
    /// is held in memory at a time.
    ///
    /// - Parameters:
    ///   - descriptor: which objects, in which order.
    ///   - batchSize: how many objects to read per fetch (at least 1).
    ///   - allowEscapingMutations: when false (the default), a block that changes objects
    ///     makes the enumeration throw after that batch: the changes would keep every changed
    ///     object in memory until a save. The changes stay in the context either way.
    ///   - block: called with each object in turn.
    /// - Throws: what the fetch throws, a `StoreError` for a `batchSize` below 1 or a
    ///   mutation that was not allowed, and what `block` throws (which ends the enumeration).
    public func enumerate<T: PersistentModel>(
        _ descriptor: FetchDescriptor<T>, batchSize: Int = 5000, allowEscapingMutations: Bool = false,
        block: (T) throws -> Void
    ) throws {
        let schema = T.persistentEntitySchema
        guard batchSize >= 1 else {
            throw StoreError(.coreData, "enumerate(FetchDescriptor<\(schema.className)>) needs a batchSize of at least 1, not \(batchSize)", entityName: schema.entityName)
        }
        var request = try descriptor.fetchRequest()
        request.fetchBatchSize = batchSize
        let hadChanges = hasChanges
        let objects = try managedObjectContext.fetch(request)
        for (index, object) in objects.enumerated() {
            guard let model = ModelBackingData.model(for: object, as: T.self) else { continue }
            try block(model)
            let endsBatch = (index + 1) % batchSize == 0 || index + 1 == objects.count
            if endsBatch, !allowEscapingMutations, !hadChanges, hasChanges {
                throw StoreError(
                    .coreData,
                    "enumerate(FetchDescriptor<\(schema.className)>) changed objects without allowEscapingMutations: true "
                        + "(the changes stay in the context; pass allowEscapingMutations: true, or save, to keep them)",
                    entityName: schema.entityName)
            }
        }
    }
}

extension ModelContext {
    /// The objects a descriptor matches, in its order, read a batch at a time as the result is
    /// gone through (SwiftData's `fetch(_:batchSize:)`): the matching identifiers are fetched
    /// now, the objects of a batch with one fetch when the first of them is read (see
    /// ``FetchResultsCollection``).
    ///
    /// With the descriptor's `includePendingChanges` and unsaved changes in the context, the
    /// objects are read at once, as ``fetch(_:)`` reads them.
    ///
    /// - Parameters:
    ///   - descriptor: which objects, in which order.
    ///   - batchSize: how many objects to read per fetch (at least 1).
    /// - Throws: what the fetch throws, and a `StoreError` for a `batchSize` below 1.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        guard batchSize >= 1 else {
            let schema = T.persistentEntitySchema
            throw StoreError(
                .coreData, "fetch(FetchDescriptor<\(schema.className)>, batchSize:) needs a batchSize of at least 1, not \(batchSize)",
                entityName: schema.entityName)
        }
        var request = try descriptor.fetchRequest()
        request.fetchBatchSize = batchSize
        return FetchResultsCollection(objects: try managedObjectContext.fetch(request), batchSize: batchSize)
    }
}
