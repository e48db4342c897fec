/// A class persisted by the framework (SwiftData's `PersistentModel`); `@Model` adds the
/// conformance and every requirement.
///
/// A model object is not a `ManagedObject` subclass (a macro cannot add a superclass, and
/// a model is made with its own initializer before any context exists): it holds
/// ``ModelBackingData``, which keeps its values until ``ModelContext/insert(_:)`` and then
/// reads and writes the slots of a managed object in that context.
public protocol PersistentModel: AnyObject, Hashable, SendableMetatype {
    /// The entity derived from the class's stored properties.
    static var persistentEntitySchema: ModelEntitySchema { get }
    /// The name of the persisted property a key path of this class reaches; nil for any
    /// other key path (sort descriptors are translated with it).
    static func persistentPropertyName(for keyPath: AnyKeyPath) -> String?
    /// The object's backing data.
    var persistentBackingData: ModelBackingData { get }
    /// An instance standing for an object read from a store.
    init(backingData: ModelBackingData)
    /// Makes this instance the one standing for `object`, whose layout has `slots` for the
    /// class's properties and whose context is `context` (a context calls it when it inserts
    /// the instance). `@Model` implements it with the instance's `_ModelInstanceLink`, which
    /// a conformance written by hand declares as a stored property and attaches here; one that
    /// does nothing is safe, but then every fetch makes a new instance for the object.
    func _persistentLink(to object: ManagedObject, slots: [Int], context: ManagedObjectContext?)
    /// An instance standing for a fetched object, linked to it (see
    /// `_persistentLink(to:slots:context:)`) and with no backing data until one is needed.
    /// `@Model` implements it; the default makes a backing data and links the instance.
    init(_persistentObject object: ManagedObject, schema: ModelEntitySchema, slots: [Int], context: ManagedObjectContext?)
}

extension PersistentModel {
    /// An instance standing for a fetched object: made with a backing data attached to it
    /// (``init(backingData:)``), then linked to it.
    public init(_persistentObject object: ManagedObject, schema: ModelEntitySchema, slots: [Int], context: ManagedObjectContext?) {
        self.init(backingData: ModelBackingData(schema: schema, managedObject: object, slots: slots, context: context))
        _persistentLink(to: object, slots: slots, context: context)
    }

    /// Identity: a model object equals only itself.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The object's ID in its context: temporary until the first save, permanent after; nil
    /// before it is inserted.
    public var persistentObjectID: ObjectID? { persistentBackingData.managedObject?.objectID }

    /// Whether the object was inserted into a context and has unsaved changes there.
    public var hasChanges: Bool { persistentBackingData.managedObject?.hasChanges ?? false }

    /// Whether the object was deleted in its context (and not saved yet).
    public var isDeleted: Bool { persistentBackingData.managedObject?.isDeleted ?? false }
}
