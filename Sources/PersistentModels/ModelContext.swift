/// Inserts, fetches, changes and deletes `@Model` objects, then saves them (SwiftData's
/// `ModelContext`), over a `ManagedObjectContext` of the container's coordinator.
///
/// ```swift
/// let context = ModelContext(container)
/// let trip = Trip(name: "Lisbon", start: .now)
/// context.insert(trip)                    // and the objects its relationships point at
/// try context.save()
/// let trips = try context.fetch(FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.name)]))
/// ```
///
/// As a managed object context is, a model context and its objects belong to one isolation
/// domain and are not `Sendable`. ``insert(_:)`` cannot throw (as in SwiftData): what goes
/// wrong (a class the container's model lacks, a value an attribute cannot hold, an object of
/// another context) is thrown by the next ``save()``.
public final class ModelContext {
    /// The container the context works on.
    public let container: ModelContainer
    /// The managed object context underneath: the same objects, by name (`ManagedObject`).
    public let managedObjectContext: ManagedObjectContext

    /// Whether the context saves its changes by itself (SwiftData's `autosaveEnabled`): true
    /// for the container's ``ModelContainer/mainContext``, which then saves on the main actor
    /// soon after an insert or a delete (with every other pending change); false for a context
    /// you make, which saves when you call ``save()`` or at the end of ``transaction(block:)``.
    /// A failed autosave keeps the changes and is thrown by the next ``save()``.
    public var autosaveEnabled: Bool = false
    /// Whether this is the container's main context.
    let isMainContext: Bool

    /// A new context on a container.
    public convenience init(_ container: ModelContainer) {
        self.init(container, isMainContext: false)
    }

    init(_ container: ModelContainer, isMainContext: Bool) {
        self.container = container
        self.managedObjectContext = ManagedObjectContext(coordinator: container.coordinator)
        self.isMainContext = isMainContext
        self.autosaveEnabled = isMainContext
    }

    /// Whether there are unsaved inserts, changes or deletes.
    public var hasChanges: Bool { managedObjectContext.hasChanges }

    /// Inserts an object made with its own initializer, with the objects its relationships
    /// point at that are not in a context yet. Inserting an object of this context again does
    /// nothing.
    public func insert<T: PersistentModel>(_ model: T) {
        do {
            try ModelBackingData.insert(model, into: managedObjectContext)
        } catch let error as StoreError {
            managedObjectContext.deferError(error)
        } catch {
            managedObjectContext.deferError(StoreError(.coreData, "Inserting \(T.persistentEntitySchema.className) failed: \(error)"))
        }
        queueAutosave()
    }

    /// Marks an object of this context deleted; its relationships' delete rules apply (a
    /// cascade deletes the destinations). An object not in this context is left alone.
    public func delete<T: PersistentModel>(_ model: T) {
        guard let object = model.persistentBackingData.managedObject, object.managedObjectContext === managedObjectContext
        else { return }
        managedObjectContext.delete(object)
        queueAutosave()
    }

    /// Saves the context's changes to the stores; throws what the save or an earlier
    /// non-throwing operation met.
    public func save() throws { try managedObjectContext.save() }

    /// Drops every unsaved change: inserted objects leave the context, changed and deleted
    /// ones take their saved values again.
    public func rollback() { managedObjectContext.rollback() }

    /// The objects a descriptor matches, with the context's unsaved changes counted unless
    /// the descriptor says otherwise. Each is the model instance already standing for its
    /// object when there is one. (Inlinable: the loop making the instances is specialised for
    /// the model class.)
    @inlinable
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        ModelBackingData.models(
            for: try managedObjectContext.fetch(descriptor.fetchRequest()), as: T.self, in: managedObjectContext)
    }

    /// How many objects a descriptor matches. On a ``DataStore`` the store's own
    /// ``DataStore/fetchCount(_:)`` answers when the context has nothing unsaved to count
    /// (see `DataStoreAnswering`).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        if let counted = try dataStoreCount(descriptor) { return counted }
        return try managedObjectContext.count(for: descriptor.fetchRequest())
    }
}
