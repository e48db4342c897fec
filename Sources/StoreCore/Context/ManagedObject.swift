import Foundation

/// An object of the graph: an instance of an entity, registered in one context.
///
/// Read attributes with ``value(forKey:)`` (or typed: `value(forKey: "age", as: Int.self)`),
/// relationships with ``object(forKey:)`` (to-one) and ``objects(forKey:)`` (to-many). Change
/// them with the throwing setters: a value of the wrong type for an attribute is rejected when it
/// is set (1550, naming the property and the expected type), and setting one side of a
/// relationship updates the inverse side at once.
///
/// ```swift
/// let crew = try context.insert(entityName: "Team")
/// try crew.setValue("Crew", forKey: "name")
/// let player = try context.insert(entityName: "Player")
/// try player.setObject(crew, forKey: "team")       // crew.objects(forKey: "players") now holds player
/// ```
///
/// An object fetched from a store may be a *fault*: its values load on first access. When a
/// fault cannot be filled (its row was deleted elsewhere), the non-throwing accessors read nil /
/// empty; call ``fireFault()`` to get the error (133000).
///
/// Objects belong to their context's isolation domain and are not `Sendable`; pass
/// ``objectID`` across threads or tasks instead. Subclasses are possible (`required init`).
open class ManagedObject: Hashable, CustomStringConvertible, SendableMetatype {
    /// The object's ID: temporary until the first save, permanent after.
    public internal(set) var objectID: ObjectID
    /// The object's entity.
    public let entity: EntityDescription
    /// The context the object is registered in; nil after it was deleted and saved, or the
    /// context went away.
    public internal(set) weak var managedObjectContext: ManagedObjectContext?

    /// Whether the values have not been loaded yet.
    public internal(set) var isFault: Bool
    /// Whether the object was inserted and not saved yet.
    public internal(set) var isInserted = false
    /// Whether the object was deleted and not saved yet.
    public internal(set) var isDeleted = false

    var attributeValues: [String: StoreValue] = [:]
    var toOneValues: [String: ManagedObject] = [:]
    /// Loaded to-many relationships; an absent key is a to-many fault.
    var toManyValues: [String: ObjectList] = [:]
    /// The values the store last had (for `committedValues(forKeys:)` and rollback).
    var committed: StoreNode?
    var changedKeys: Set<String> = []
    /// The row version the object was read at (optimistic locking).
    var version: Int64 = 0
    /// Ascending number given at registration, so unsaved inserts keep their order in fetches.
    var registrationOrder = 0

    /// Creates an object; contexts call this (``ManagedObjectContext/insert(entityName:)``
    /// and fetches), applications do not.
    public required init(entity: EntityDescription, objectID: ObjectID) {
        self.entity = entity
        self.objectID = objectID
        self.isFault = !objectID.isTemporaryID
    }

    /// Whether the object has unsaved changes (inserted, deleted or updated).
    public var hasChanges: Bool { isInserted || isDeleted || !changedKeys.isEmpty }

    /// Whether the object has unsaved changes to its values.
    public var isUpdated: Bool { !isInserted && !isDeleted && !changedKeys.isEmpty }

    /// `Entity <uri>` with its attribute values (or "fault").
    public var description: String {
        if isFault { return "\(entity.name) \(objectID) (fault)" }
        let values = attributeValues.keys.sorted().map { "\($0)=\(attributeValues[$0]?.description ?? "nil")" }
        return "\(entity.name) \(objectID) {\(values.joined(separator: ", "))}"
    }

    /// Identity: an object equals only itself.
    public static func == (lhs: ManagedObject, rhs: ManagedObject) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    var model: ObjectModel? { managedObjectContext?.coordinator.model }

    // MARK: Validation hooks

    /// Per-property validation run at save for every attribute and to-one (after the model's
    /// rules); throw to reject. The default accepts everything.
    open func validateValue(_ value: StoreValue, forKey key: String) throws {}

    /// Per-object validation run at save for inserted objects; throw to reject.
    open func validateForInsert() throws {}

    /// Per-object validation run at save for updated objects; throw to reject.
    open func validateForUpdate() throws {}

    /// Per-object validation run at save for deleted objects; throw to reject the delete.
    open func validateForDelete() throws {}

    /// Called once after the object is inserted, before the caller sees it (default values
    /// are already set); override to initialise more state.
    open func awakeFromInsert() {}

    /// Called after a fault is filled from the store; override to compute derived state.
    open func awakeFromFetch() {}

    // MARK: Faults

    /// Loads the values of a fault; throws 133000 when the object no longer exists.
    public func fireFault() throws {
        guard isFault else { return }
        guard let context = managedObjectContext else {
            throw StoreError(
                .managedObjectReferentialIntegrity, "\(entity.name) \(objectID) is not registered in a context",
                objectIDs: [objectID], entityName: entity.name)
        }
        try context.fulfillFault(self)
    }

    /// Fires the fault if there is one; failures leave nil values (see ``fireFault()``).
    func willAccessValues() {
        if isFault { try? fireFault() }
    }

    // MARK: Attributes

    /// The value of an attribute (a to-one relationship reads as `.objectID`); `.null` for nil
    /// and for unknown keys.
    public func value(forKey key: String) -> StoreValue {
        willAccessValues()
        if let value = attributeValues[key] { return value }
        if let object = toOneValues[key] { return .objectID(object.objectID) }
        return .null
    }

    /// The value of an attribute converted to a Swift type; nil when nil or of another type.
    public func value<T: StoreValueConvertible>(forKey key: String, as type: T.Type) -> T? {
        T(storeValue: value(forKey: key))
    }

    /// The value of an attribute; `object["name"]` reads like ``value(forKey:)``.
    public subscript(key: String) -> StoreValue { value(forKey: key) }

    /// Sets an attribute. The value must fit the attribute's type (``AttributeType/coerce(_:)``);
    /// otherwise 1550 naming the property, the expected type and the value. Setting a relationship
    /// name takes `.objectID` or `.null`. An unknown key is 1550 as well.
    public func setValue(_ value: StoreValue, forKey key: String) throws {
        guard let model else { throw detached() }
        if let attribute = model.attribute(key, of: entity.name) {
            guard let coerced = attribute.type.coerce(value) else {
                throw StoreError(
                    .managedObjectValidation,
                    "\(entity.name).\(key) expects a value of type \(attribute.type.rawValue), not the \(value.typeName) \(value)",
                    objectIDs: [objectID], entityName: entity.name, propertyName: key)
            }
            willAccessValues()
            if coerced.isNull { attributeValues[key] = nil } else { attributeValues[key] = coerced }
            didChange(key)
            return
        }
        if let relationship = model.relationship(key, of: entity.name) {
            let destination: ManagedObject?
            switch value {
            case .null: destination = nil
            case .objectID(let id):
                guard let context = managedObjectContext else { throw detached() }
                destination = context.object(with: id)
            default:
                throw StoreError(
                    .managedObjectValidation,
                    "\(entity.name).\(key) is a relationship; it takes an object ID or nil, not the \(value.typeName) \(value)",
                    objectIDs: [objectID], entityName: entity.name, propertyName: key)
            }
            if relationship.isToMany {
                try setObjects(destination.map { [$0] } ?? [], forKey: key)
            } else {
                try setObject(destination, forKey: key)
            }
            return
        }
        throw unknownKey(key)
    }

    /// Sets an attribute from a Swift value (nil clears it).
    public func setValue<T: StoreValueConvertible>(_ value: T?, forKey key: String) throws {
        try setValue(value?.storeValue ?? .null, forKey: key)
    }

    /// The attributes and relationships changed since the last save, as values (to-ones as
    /// `.objectID`; to-manys are listed with `.null`).
    public func changedValues() -> [String: StoreValue] {
        var result: [String: StoreValue] = [:]
        for key in changedKeys {
            if model?.relationship(key, of: entity.name)?.isToMany == true {
                result[key] = .null
            } else {
                result[key] = value(forKey: key)
            }
        }
        return result
    }

    /// The values the store last had for these keys (all attributes and to-ones for nil).
    public func committedValues(forKeys keys: [String]? = nil) -> [String: StoreValue] {
        guard let committed else { return [:] }
        let wanted = keys ?? (Array(committed.attributes.keys) + Array(committed.toOne.keys))
        var result: [String: StoreValue] = [:]
        for key in wanted { result[key] = committed.value(forKey: key) }
        return result
    }

    /// Sets a value from a non-throwing typed setter; a failure is kept by the context and
    /// thrown by its next save.
    func setValueDeferringErrors(_ value: StoreValue, forKey key: String) {
        deferringErrors { try setValue(value, forKey: key) }
    }

    func deferringErrors(_ body: () throws -> Void) {
        do {
            try body()
        } catch let error as StoreError {
            managedObjectContext?.deferredErrors.append(error)
        } catch {
            managedObjectContext?.deferredErrors.append(StoreError(.managedObjectValidation, "\(error)", objectIDs: [objectID]))
        }
    }

    /// The entity a subclass stands for (default: the class name); used by
    /// ``PersistentStoreCoordinator/register(_:)`` and the typed context methods.
    open class var entityName: String { String(describing: self) }

    // MARK: Change tracking

    func didChange(_ key: String) {
        guard !isInserted else { return }
        changedKeys.insert(key)
        managedObjectContext?.objectDidChange(self)
    }

    func detached() -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "\(entity.name) \(objectID) is not registered in a context",
            objectIDs: [objectID], entityName: entity.name)
    }

    func unknownKey(_ key: String) -> StoreError {
        StoreError(
            .managedObjectValidation, "\(entity.name) has no property named \(key)", objectIDs: [objectID],
            entityName: entity.name, propertyName: key)
    }

    // MARK: Filling from the store

    /// Takes the values of a node (the object becomes a non-fault at that version).
    func fill(from node: StoreNode, in context: ManagedObjectContext) {
        attributeValues = node.attributes
        toOneValues = node.toOne.mapValues { context.object(with: $0) }
        toManyValues = node.toMany.mapValues { ids in ObjectList(ids.map { context.object(with: $0) }) }
        committed = node
        version = node.version
        isFault = false
        awakeFromFetch()
    }

    /// The store's form of the object's current values: attributes (not transient), to-ones,
    /// and the to-manys that are loaded (all of them when `allToMany`).
    func snapshot(model: ObjectModel) -> StoreNode {
        var node = StoreNode(objectID: objectID, version: version)
        for attribute in model.attributes(of: entity.name) where !attribute.isTransient {
            if let value = attributeValues[attribute.name] { node.attributes[attribute.name] = value }
        }
        for relationship in model.relationships(of: entity.name) where !relationship.isTransient {
            if relationship.isToMany {
                if let list = toManyValues[relationship.name] {
                    node.toMany[relationship.name] = list.objects.map(\.objectID)
                } else if isInserted {
                    node.toMany[relationship.name] = []
                }
            } else if let destination = toOneValues[relationship.name] {
                node.toOne[relationship.name] = destination.objectID
            }
        }
        return node
    }

    /// Forgets values and relationships (reset, deinit of the context), breaking reference cycles.
    func turnIntoFault() {
        attributeValues = [:]
        toOneValues = [:]
        toManyValues = [:]
        changedKeys = []
        isFault = !objectID.isTemporaryID
    }
}
