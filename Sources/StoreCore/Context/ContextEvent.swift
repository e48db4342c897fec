/// A change notification of a ``ManagedObjectContext`` (Core Data's
/// `NSManagedObjectContextObjectsDidChange`, `WillSave` and `DidSave`), delivered to observers
/// added with ``ManagedObjectContext/addObserver(_:)`` on the context's own thread or task.
public enum ContextEvent: Sendable, Hashable {
    /// Pending changes were processed (``ManagedObjectContext/processPendingChanges()``, fetch,
    /// save, merge): the objects inserted, updated and deleted since the last such event.
    case objectsDidChange(ContextDidSave)
    /// A save is about to start; observers may still change objects.
    case willSave
    /// A save finished; the IDs are permanent.
    case didSave(ContextDidSave)
}

/// A token that removes an observer (``ManagedObjectContext/removeObserver(_:)`` or
/// ``PersistentStoreCoordinator/removeObserver(_:)``).
public struct ObserverToken: Sendable, Hashable {
    let id: Int
}
