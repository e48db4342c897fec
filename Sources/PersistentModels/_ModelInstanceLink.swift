import StoreCore

/// The link between a model instance and the managed object it stands for: a noncopyable
/// stored property of every `@Model` class (`_$instanceLink`), which only the instance holds.
///
/// It holds the managed object, the slots of the class's properties in the object's layout and
/// the object's context (so a model instance keeps its context alive while the application
/// holds it, as a managed object does not), and makes the instance the object's model
/// instance (`ManagedObject.modelInstance`, which a fetch returns again while the instance
/// lives). An instance made for a fetched object has this link and no backing data: its
/// attribute getters read the object's slots through the link, and the backing data is made
/// from the link the first time something else needs it (a setter, a relationship,
/// `persistentBackingData`). A backing data per fetched instance cost about 365 instructions
/// (allocated, attached, freed).
///
/// The object holds the instance unretained rather than `weak` (a weak reference gives every
/// fetched instance a side table, about 450 instructions); the link's `deinit`, which runs
/// while the instance's properties are destroyed and before its memory is freed, clears that
/// reference, so it never outlives the instance. Being noncopyable, the link cannot be copied
/// out of the instance to outlive it.
///
/// Applications do not use it: `@Model` declares it, and contexts attach it through
/// `PersistentModel._persistentLink(to:slots:context:)` and
/// `PersistentModel.init(_persistentObject:slots:context:)`.
public struct _ModelInstanceLink: ~Copyable {
    /// The managed object (nil until the instance is inserted or made for a fetched object).
    @usableFromInline private(set) var object: ManagedObject?
    /// ``object`` again, unretained, for the inlinable readers: read through
    /// `_withUnsafeGuaranteedRef`, it costs no retain and release per read. It is set only
    /// together with ``object``, which holds the object for as long as this link lives, and
    /// the instance holding the link is alive while its getter runs.
    @usableFromInline private(set) var unretainedObject: Unmanaged<ManagedObject>?
    /// For each property index, its slot in the object's layout (-1: not in the layout).
    @usableFromInline private(set) var slots: [Int] = []
    /// The object's context, held so that the instance keeps it alive.
    private var context: ManagedObjectContext?
    /// The instance, unretained: only compared, to clear the object's reference to it.
    private var instance: UnsafeMutableRawPointer?

    /// An empty link (every `@Model` instance's initial one).
    public init() {}

    /// Whether the instance stands for a managed object.
    @inlinable public var isLinked: Bool { unretainedObject != nil }

    /// Links `instance` (the model instance holding this link) to `object`, whose layout has
    /// `slots` for the class's properties and whose context is `context`: the object's model
    /// instance is then `instance` until the instance is freed.
    public mutating func attach(_ object: ManagedObject, slots: [Int], context: ManagedObjectContext?, instance: AnyObject) {
        if let previous = unretainedObject, let linked = self.instance {
            previous._withUnsafeGuaranteedRef { $0.unlinkModelInstance(linked) }
        }
        self.object = object
        unretainedObject = Unmanaged.passUnretained(object)
        self.slots = slots
        self.context = context
        self.instance = Unmanaged.passUnretained(instance).toOpaque()
        object.linkModelInstance(instance)
    }

    /// The backing data of a linked instance of `schema`'s class: attached to the object, with
    /// the link's slots (nil when the instance is not linked).
    @usableFromInline func backingData(of schema: ModelEntitySchema) -> ModelBackingData? {
        guard let object else { return nil }
        return ModelBackingData(schema: schema, managedObject: object, slots: slots, context: context)
    }

    // MARK: Attributes

    /// A non-optional attribute's value (its fallback when the object holds none) of a linked
    /// instance: what `ModelBackingData.attributeValue(at:as:)` reads, inlined into the getter.
    @inlinable @inline(__always)
    public func attributeValue<Value: PersistentAttributeValue>(at index: Int, as type: Value.Type) -> Value {
        optionalAttributeValue(at: index, as: Value.self) ?? Value.persistentFallbackValue
    }

    /// An optional attribute's value of a linked instance: a filled object's slot read in
    /// place, with no call and no retain (the getter's instance holds this link, which holds
    /// the object); a fault returns through a call of its own.
    @inlinable @inline(__always)
    public func optionalAttributeValue<Value: StoreValueConvertible>(at index: Int, as type: Value.Type) -> Value? {
        guard let object = unretainedObject else { return nil }
        if object._withUnsafeGuaranteedRef({ $0.isFault }) { return faultAttributeValue(at: index, as: Value.self) }
        let slot = slots[index]
        return slot < 0 ? nil : Value(storeValue: object._withUnsafeGuaranteedRef { $0.slotValue(slot) })
    }

    /// An attribute's value when the object is a fault: filled first, then read (specialised,
    /// not inlined: the first read of each fetched object only).
    @inlinable @inline(never)
    func faultAttributeValue<Value: StoreValueConvertible>(at index: Int, as type: Value.Type) -> Value? {
        guard let object else { return nil }
        object.willAccessValues()
        let slot = slots[index]
        return slot < 0 ? nil : Value(storeValue: object.slotValue(slot))
    }

    deinit {
        // Through the unretained reference: `object` (which keeps it valid) is released after
        // this body, and binding it would retain and release it once more.
        if let unretainedObject, let instance { unretainedObject._withUnsafeGuaranteedRef { $0.unlinkModelInstance(instance) } }
    }
}
