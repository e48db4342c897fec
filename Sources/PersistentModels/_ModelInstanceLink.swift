import StoreCore

/// The link between a model instance and the managed object it stands for: a noncopyable
/// stored property of every `@Model` class (`_$instanceLink`), which only the instance holds.
///
/// It holds the managed object, and makes the instance the object's model instance
/// (`ManagedObject.modelInstance`, which a fetch returns again while the instance lives). The
/// object holds the instance unretained rather than `weak` (a weak reference gives every
/// fetched instance a side table, about 450 instructions); the link's `deinit`, which runs
/// while the instance's properties are destroyed and before its memory is freed, clears that
/// reference, so it never outlives the instance. Being noncopyable, the link cannot be copied
/// out of the instance to outlive it.
///
/// Applications do not use it: `@Model` declares it and calls ``attach(_:instance:)`` through
/// `PersistentModel._persistentLink(to:)`.
public struct _ModelInstanceLink: ~Copyable {
    /// The managed object (nil until the instance is inserted or made for a fetched object).
    private var object: ManagedObject?
    /// The instance, unretained: only compared, to clear the object's reference to it.
    private var instance: UnsafeMutableRawPointer?

    /// An empty link (every `@Model` instance's initial one).
    public init() {}

    /// Links `instance` (the model instance holding this link) to `object`: the object's model
    /// instance is then `instance` until the instance is freed.
    public mutating func attach(_ object: ManagedObject, instance: AnyObject) {
        if let previous = self.object, let linked = self.instance { previous.unlinkModelInstance(linked) }
        let pointer = Unmanaged.passUnretained(instance).toOpaque()
        self.object = object
        self.instance = pointer
        object.linkModelInstance(instance)
    }

    deinit {
        if let object, let instance { object.unlinkModelInstance(instance) }
    }
}
