/// SwiftData's members of `ModelContext` beyond insert, delete, fetch and save: transactions,
/// finding objects by identifier, the pending changes as models, and autosave.
extension ModelContext {
    /// Runs `block` and then saves the changes it (and anything before it) left pending
    /// (SwiftData's `transaction(block:)`). When `block` throws, its error is rethrown and
    /// nothing is saved: the changes stay pending, as `rollback()` can drop them.
    public func transaction(block: () throws -> Void) throws {
        try block()
        if hasChanges { try save() }
    }

    /// The object an identifier names, in this context: the model instance already standing
    /// for it, or a new one for the object (a fault, filled on first access; an identifier of
    /// an object that no longer exists fails on that access). Nil when the identifier's
    /// entity is not a class of the container's model.
    public func model(for persistentModelID: PersistentIdentifier) -> (any PersistentModel)? {
        guard let type = container.schema.modelType(forEntityName: persistentModelID.entityName) else { return nil }
        return model(of: type, for: managedObjectContext.object(with: persistentModelID.objectID))
    }

    /// The object an identifier names if it is registered in this context already (fetched,
    /// inserted or reached before); nil otherwise, without reading any store.
    public func registeredModel<T: PersistentModel>(for persistentModelID: PersistentIdentifier) -> T? {
        managedObjectContext.registeredObject(for: persistentModelID.objectID).flatMap { ModelBackingData.model(for: $0, as: T.self) }
    }

    /// The objects inserted since the last save, as models.
    public var insertedModelsArray: [any PersistentModel] { models(of: managedObjectContext.insertedObjects) }
    /// The objects changed since the last save (inserted ones not included), as models.
    public var changedModelsArray: [any PersistentModel] { models(of: managedObjectContext.updatedObjects) }
    /// The objects deleted since the last save, as models.
    public var deletedModelsArray: [any PersistentModel] { models(of: managedObjectContext.deletedObjects) }

    /// Applies pending delete rules and inverse updates now (they are applied by every fetch
    /// and save anyway); an error it meets is thrown by the next ``save()``.
    public func processPendingChanges() {
        do {
            try managedObjectContext.processPendingChanges()
        } catch {
            managedObjectContext.deferError(error as? StoreError ?? StoreError(.coreData, "Processing pending changes failed: \(error)"))
        }
    }

    private func models(of objects: Set<ManagedObject>) -> [any PersistentModel] {
        objects.sorted { $0.objectID.description < $1.objectID.description }.compactMap { object in
            container.schema.modelType(forEntityName: object.entity.name).flatMap { model(of: $0, for: object) }
        }
    }

    private func model<T: PersistentModel>(of type: T.Type, for object: ManagedObject) -> (any PersistentModel)? {
        ModelBackingData.model(for: object, as: type)
    }

    /// Queues a save on the main actor when this is the container's main context and autosave
    /// is on; several changes before it runs are saved together.
    func queueAutosave() {
        guard isMainContext, autosaveEnabled else { return }
        let container = self.container
        Task { @MainActor in container.autosaveMainContext() }
    }
}
