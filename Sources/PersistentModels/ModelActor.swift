/// An actor that works on models in a context of its own (SwiftData's `ModelActor`);
/// `@ModelActor` writes the requirements.
///
/// Models belong to their context, so they stay inside the actor; what crosses to and from it
/// are ``PersistentIdentifier``s, which the actor turns back into models with
/// `self[id, as: Trip.self]`. The actor runs on the default actor executor (SwiftData's
/// `modelExecutor` and `DefaultSerialModelExecutor` are not needed and not provided).
public protocol ModelActor: Actor {
    /// The container the actor's context works on.
    nonisolated var modelContainer: ModelContainer { get }
    /// The actor's own context.
    var modelContext: ModelContext { get }
}

extension ModelActor {
    /// The model an identifier names, in the actor's context; nil when it is of another class
    /// or its entity is not in the container's model.
    public subscript<T: PersistentModel>(id: PersistentIdentifier, as type: T.Type) -> T? {
        if let registered: T = modelContext.registeredModel(for: id) { return registered }
        return modelContext.model(for: id) as? T
    }
}
