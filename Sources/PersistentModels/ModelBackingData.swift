/// Where a `@Model` object's values live. Before the object is inserted into a context they
/// are kept here, by property index; ``ModelContext/insert(_:)`` moves them into a new
/// `ManagedObject` of the context, and from then on the generated accessors read and write
/// that object's slots (resolved once per entity layout: no name lookup per access for
/// attributes and to-ones; to-manys go through the relationship by name, as the object keeps
/// them).
///
/// The managed object refers to its model instance without holding it (the instance's
/// `_ModelInstanceLink` clears the reference as the instance is freed), so a fetch returns the
/// same instance while the application holds it, and a model instance let go is made again,
/// from the same object, on the next fetch. Setters cannot throw (they
/// are property setters): a value the attribute cannot hold, or a relationship to an object of
/// another context, is kept by the context and thrown by its next save, as with `Field`.
public final class ModelBackingData {
    /// The class's entity schema.
    public let schema: ModelEntitySchema
    // The mutable state below is read on every property access. A backing data, like the model
    // object it belongs to, is used by one context's thread at a time (it is not Sendable), and
    // no accessor hands out an inout reference to these properties, so no two accesses can
    // overlap: the runtime exclusivity checks (about a tenth of an attribute read) are off.

    /// The managed object the values live in, once the object was inserted or fetched.
    @exclusivity(unchecked) public private(set) var managedObject: ManagedObject?
    /// The managed object's context, held strongly: a model object keeps its context alive
    /// while the application holds it (a managed object holds its context weakly).
    @exclusivity(unchecked) private var context: ManagedObjectContext?
    /// For each property index, its slot in the managed object's layout (-1: not in the layout).
    @exclusivity(unchecked) @usableFromInline private(set) var slots: [Int] = []
    /// The values before insertion, by property index (empty until the first is set).
    @exclusivity(unchecked) @usableFromInline private(set) var local: [LocalValue] = []
    /// The temporary ID an object not inserted yet is identified by (`persistentModelID`).
    private(set) lazy var unattachedObjectID = ObjectID.temporary(entityName: schema.entityName)

    /// A property's value before insertion.
    ///
    /// An attribute of a plain type is kept in its stored form, converted when it is set (as
    /// the managed object would hold it; it reads back through the same conversion), so the
    /// insertion copies it into the object's slot without opening an existential. The rarer
    /// enum and `Codable` values are boxed (`indirect`): a `LocalValue` is then the size of a
    /// `StoreValue` plus its tag, and making and copying the array of them is cheap (with the
    /// whole `Result` and an `Any` inline it was over 100 bytes, and a new object's six
    /// `.unset` entries alone cost about 1,200 instructions).
    @usableFromInline enum LocalValue {
        case unset
        case stored(StoreValue)
        /// An enum or `Codable` value: the Swift value (read back as it was set) and what it is
        /// stored as (or why it cannot be stored, thrown by the save after insertion).
        indirect case encoded(Any, Result<StoreValue, StoreError>)
        case toOne((any PersistentModel)?)
        case toMany([any PersistentModel])
    }

    /// The backing data of a new object of `type`, holding its values until it is inserted.
    public init<Model: PersistentModel>(for type: Model.Type) {
        self.schema = Model.persistentEntitySchema
    }

    /// The backing data in `storage`, made (for a new object of `type`) and kept there when
    /// there is none yet. The code `@Model` generates keeps a model object's backing data in
    /// an optional stored property that starts empty, so that a model instance made for a
    /// stored object (`init(backingData:)`) allocates no backing data it would throw away; the
    /// property's accessors and a new object's initial values make one with this.
    @inlinable
    public static func made<Model: PersistentModel>(in storage: inout ModelBackingData?, for type: Model.Type) -> ModelBackingData {
        if let data = storage { return data }
        let data = ModelBackingData(for: type)
        storage = data
        return data
    }

    /// The backing data in `storage`, made and kept there when there is none yet: attached to
    /// the managed object `link` links the instance to (an instance made for a fetched object
    /// has no backing data until something needs one), else a new object's. The generated
    /// `_$backingData` calls it.
    @inlinable
    public static func made<Model: PersistentModel>(
        in storage: inout ModelBackingData?, linkedBy link: borrowing _ModelInstanceLink, for type: Model.Type
    ) -> ModelBackingData {
        if let data = storage { return data }
        let data = link.backingData(of: Model.persistentEntitySchema) ?? ModelBackingData(for: type)
        storage = data
        return data
    }

    /// The backing data of an object read from a store; `slots` are the schema's slots in the
    /// object's layout when the caller resolved them already.
    init(schema: ModelEntitySchema, managedObject: ManagedObject, slots: [Int]? = nil, context: ManagedObjectContext? = nil) {
        self.schema = schema
        attach(managedObject, slots: slots, context: context)
    }

    /// Makes `object` the managed object of this backing data; `context`, when given, is the
    /// object's context (a fetch knows it: reading it from the object costs a load of its
    /// context link).
    private func attach(_ object: ManagedObject, slots known: [Int]? = nil, context knownContext: ManagedObjectContext? = nil) {
        managedObject = object
        context = knownContext ?? object.managedObjectContext
        slots = known ?? schema.slots(in: object.layout)
    }

    func setLocal(_ value: LocalValue, at index: Int) {
        if local.isEmpty {
            // Reserved and appended: `Array(repeating:count:)` cost about 850 instructions for a
            // six-property class (its element copies are not specialised).
            let count = schema.propertyNames.count
            local.reserveCapacity(count)
            for _ in 0..<count { local.append(.unset) }
        }
        guard index >= 0, index < local.count else { return }
        local[index] = value
    }

    // MARK: Attributes

    /// A non-optional attribute's value (its fallback when the object holds none). Inlinable, so
    /// the generated getters read a slot with the value type known (no generic call per read).
    @inlinable @inline(__always)
    public func attributeValue<Value: PersistentAttributeValue>(at index: Int, as type: Value.Type) -> Value {
        optionalAttributeValue(at: index, as: Value.self) ?? Value.persistentFallbackValue
    }

    /// An optional attribute's value (inlinable, as ``attributeValue(at:as:)``).
    ///
    /// The getters `@Model` generates read an attached object's attributes through the
    /// instance's `_ModelInstanceLink` (in place, with no call or retain per read); they come
    /// here for a new object's values before insertion, as does code that reads through
    /// `persistentBackingData`.
    @inlinable @inline(__always)
    public func optionalAttributeValue<Value: StoreValueConvertible>(at index: Int, as type: Value.Type) -> Value? {
        if let object = managedObject {
            let slot = slots[index]
            return slot < 0 ? nil : Value(storeValue: object.attributeValue(atSlot: slot))
        }
        return localAttributeValue(at: index, as: Value.self)
    }

    /// An attribute's value set before insertion (nil when unset).
    @inlinable
    func localAttributeValue<Value: StoreValueConvertible>(at index: Int, as type: Value.Type) -> Value? {
        guard index < local.count, case .stored(let value) = local[index] else { return nil }
        return Value(storeValue: value)
    }

    /// Sets an attribute (`nil` of an optional clears it).
    public func setAttributeValue<Value: StoreValueConvertible>(_ value: Value, at index: Int) {
        guard let object = managedObject else {
            setLocal(.stored(value.storeValue), at: index)
            return
        }
        let slot = slots[index]
        object.deferringErrors {
            guard slot >= 0 else { throw missingProperty(at: index, of: object) }
            try object.setValue(value.storeValue, atAttributeSlot: slot)
        }
    }

    // MARK: Relationships

    /// A to-one relationship's destination.
    public func toOne<Destination: PersistentModel>(at index: Int, as type: Destination.Type) -> Destination? {
        if let object = managedObject {
            let slot = slots[index]
            guard slot >= 0, let destination = object.toOneObject(atValueSlot: slot) else { return nil }
            return Self.model(for: destination, as: Destination.self)
        }
        guard index < local.count, case .toOne(let destination) = local[index] else { return nil }
        return destination as? Destination
    }

    /// Sets a to-one relationship (the inverse follows once the object is in a context); a
    /// destination not in a context yet is inserted into this object's context.
    public func setToOne<Destination: PersistentModel>(_ destination: Destination?, at index: Int) {
        guard let object = managedObject else {
            // Nothing set yet reads as nil already: an initial `nil` (every optional to-one's
            // implicit initial value, written again for each model instance a fetch makes)
            // costs nothing.
            if destination == nil && local.isEmpty { return }
            setLocal(.toOne(destination), at: index)
            return
        }
        let name = schema.propertyNames[index]
        object.deferringErrors {
            // Not `destination.map`: this generic method runs unspecialised from the model's
            // module, where `Optional.map` costs a metadata lookup per call.
            var target: ManagedObject?
            if let destination { target = try Self.managedObject(for: destination, besides: object) }
            try object.setObject(target, forKey: name)
        }
    }

    /// A to-many relationship's destinations.
    public func toMany<Destination: PersistentModel>(at index: Int, as type: Destination.Type) -> [Destination] {
        if let object = managedObject {
            return object.objects(forKey: schema.propertyNames[index]).compactMap {
                Self.model(for: $0, as: Destination.self)
            }
        }
        guard index < local.count, case .toMany(let destinations) = local[index] else { return [] }
        return destinations.compactMap { $0 as? Destination }
    }

    /// Replaces a to-many relationship's destinations (inverses follow once the object is in a
    /// context); destinations not in a context yet are inserted into this object's context.
    public func setToMany<Destination: PersistentModel>(_ destinations: [Destination], at index: Int) {
        guard let object = managedObject else {
            // Nothing set yet reads as empty already (an initial `[]`, as for `nil` above).
            if destinations.isEmpty && local.isEmpty { return }
            setLocal(.toMany(destinations), at: index)
            return
        }
        let name = schema.propertyNames[index]
        object.deferringErrors {
            let targets = try destinations.map { try Self.managedObject(for: $0, besides: object) }
            try object.setObjects(targets, forKey: name)
        }
    }

    // MARK: Objects and model instances

    /// The model instance of a managed object: the one that stands for it already, or a new
    /// one (nil when the object is of another entity than `Model`'s).
    static func model<Model: PersistentModel>(for object: ManagedObject, as type: Model.Type) -> Model? {
        if let existing = object.modelInstance { return existing as? Model }
        let schema = Model.persistentEntitySchema
        guard object.layout.entityName == schema.entityName else { return nil }
        return newModel(for: object, as: Model.self, schema: schema, slots: nil, context: nil)
    }

    /// A new model instance for `object`, an object of `schema`'s entity with no model
    /// instance yet, made its model instance (inlinable: specialised for the class, the
    /// initialiser is called directly rather than through the protocol's witness).
    @inlinable static func newModel<Model: PersistentModel>(
        for object: ManagedObject, as type: Model.Type, schema: ModelEntitySchema, slots: [Int]?, context: ManagedObjectContext?
    ) -> Model {
        Model(_persistentObject: object, schema: schema, slots: slots ?? schema.slots(in: object.layout), context: context ?? object.managedObjectContext)
    }

    /// The model instances of objects fetched in `context`, in order (objects of another entity
    /// than `Model`'s are left out): ``model(for:as:)`` for each, with the slot
    /// table resolved once per layout rather than once per object. Inlinable, so the loop is
    /// specialised for the model class where `ModelContext.fetch(_:)` is called (unspecialised,
    /// its `append` alone cost 75 instructions per object).
    @inlinable
    static func models<Model: PersistentModel>(
        for objects: [ManagedObject], as type: Model.Type, in context: ManagedObjectContext
    ) -> [Model] {
        let schema = Model.persistentEntitySchema
        var models: [Model] = []
        models.reserveCapacity(objects.count)
        // Per layout (a fetch's objects almost always share one): its slots, and whether it is
        // the layout of `Model`'s entity.
        var layout: EntityLayout?
        var slots: [Int] = []
        var isModelEntity = false
        for object in objects {
            if object.layout !== layout {
                layout = object.layout
                slots = schema.slots(in: object.layout)
                isModelEntity = object.layout.entityName == schema.entityName
            }
            if let existing = object.modelInstance {
                if let model = existing as? Model { models.append(model) }
            } else if isModelEntity {
                models.append(newModel(for: object, as: Model.self, schema: schema, slots: slots, context: context))
            }
        }
        return models
    }

    /// The managed object of a model that is to be related to `object`: its own, or a new one
    /// in `object`'s context when it was not inserted yet.
    private static func managedObject(for model: any PersistentModel, besides object: ManagedObject) throws -> ManagedObject {
        if let existing = model.persistentBackingData.managedObject { return existing }
        guard let context = object.managedObjectContext else {
            throw StoreError(
                .managedObjectReferentialIntegrity,
                "\(object.entity.name) \(object.objectID) is not registered in a context",
                objectIDs: [object.objectID], entityName: object.entity.name)
        }
        return try insert(model, into: context)
    }

    /// Inserts a model object into a context: a new managed object of its entity takes the
    /// values set so far, and the objects its relationships point at are inserted too (unless
    /// they already are). An object already in this context is returned as it is; one in
    /// another context is an error (133010).
    @discardableResult
    static func insert(_ model: any PersistentModel, into context: ManagedObjectContext) throws -> ManagedObject {
        let backing = model.persistentBackingData
        if let existing = backing.managedObject {
            guard existing.managedObjectContext === context else {
                throw StoreError(
                    .managedObjectExternalRelationship,
                    "\(backing.schema.className) \(existing.objectID) belongs to another context; insert it there, "
                        + "or fetch it in this one by its ID",
                    objectIDs: [existing.objectID], entityName: backing.schema.entityName)
            }
            return existing
        }
        let object = try context.insert(entityName: backing.schema.entityName)
        let values = backing.local
        backing.local = []
        backing.attach(object, context: context)
        // The backing data holds the context already: the link need not.
        model._persistentLink(to: object, slots: backing.slots, context: nil)
        // A value that cannot be set fails the next save (the object is inserted, with the
        // values that could be set, so the caller can correct it or roll back).
        for index in values.indices {
            switch values[index] {
            case .unset:
                // Most properties of a new object are set; an unset one costs nothing.
                continue
            case .stored(let value):
                // The common case, without a closure per value (about 150 instructions).
                let slot = backing.slots[index]
                do {
                    guard slot >= 0 else { throw backing.missingProperty(at: index, of: object) }
                    try object.setValue(value, atAttributeSlot: slot)
                } catch {
                    object.deferError(error)
                }
                continue
            default:
                break
            }
            object.deferringErrors {
                switch values[index] {
                case .unset, .stored:
                    break  // handled above
                case .encoded(_, let encoded):
                    let slot = backing.slots[index]
                    guard slot >= 0 else { throw backing.missingProperty(at: index, of: object) }
                    try object.setValue(try encoded.get(), atAttributeSlot: slot)
                case .toOne(let destination):
                    // Set only when given: the inverse of an object inserted with this one may
                    // have set it already.
                    guard let destination else { break }
                    try object.setObject(try insert(destination, into: context), forKey: backing.schema.propertyNames[index])
                case .toMany(let destinations):
                    // Added, not replaced, for the same reason.
                    for destination in destinations {
                        try object.addObject(try insert(destination, into: context), toKey: backing.schema.propertyNames[index])
                    }
                }
            }
        }
        return object
    }

    /// The error for a property the managed object's model does not have.
    func missingProperty(at index: Int, of object: ManagedObject) -> StoreError {
        let name = index < schema.properties.count ? schema.properties[index].name : "#\(index)"
        return StoreError(
            .managedObjectValidation,
            "\(schema.className).\(name) is not a property of the entity \(object.entity.name) in the context's model",
            objectIDs: [object.objectID], entityName: object.entity.name, propertyName: name)
    }
}
