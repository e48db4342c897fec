/// Inserts objects given as dictionaries of attribute values straight into a store, without
/// contexts or managed objects (Core Data's `NSBatchInsertRequest`).
///
/// ```swift
/// let rows: [[String: StoreValue]] = songs.map { ["title": .string($0.title), "plays": .int($0.plays)] }
/// let result = try coordinator.execute(BatchInsertRequest(entityName: "Song", objects: rows, resultType: .objectIDs))
/// ```
///
/// Each dictionary holds attribute values by name; an attribute it leaves out takes the
/// model's default value (nil without one). Relationships cannot be set (connect the objects
/// afterwards through a context, as with Core Data). A batch insert **bypasses contexts** and
/// **skips validation**: values are checked against the attribute types only (1550 naming the
/// object's position otherwise), not against optionality, ranges, lengths, patterns or
/// uniqueness constraints. New objects start at version 1, as after a save.
///
/// Only store types that declare ``StoreCapabilities/batchRequests`` run batch requests; the
/// coordinator refuses others with 134091.
public struct BatchInsertRequest: Sendable, Hashable {
    /// The entity of the new objects (not abstract).
    public var entityName: String
    /// The new objects: attribute name → value.
    public var objects: [[String: StoreValue]]
    /// What the request returns (default ``BatchResultType/status``).
    public var resultType: BatchResultType
    /// Identifiers of the stores to insert into (the first that holds the entity is used);
    /// nil for the first store of the coordinator that holds the entity.
    public var affectedStoreIdentifiers: [String]?

    /// A request that inserts `objects` as new objects of an entity.
    public init(entityName: String, objects: [[String: StoreValue]], resultType: BatchResultType = .status) {
        self.entityName = entityName
        self.objects = objects
        self.resultType = resultType
        self.affectedStoreIdentifiers = nil
    }

    /// Checks the request against a model: the entity exists and is not abstract, and every
    /// key of every object names one of its stored attributes.
    ///
    /// - Throws: 134060 for an unknown or abstract entity; 1550 for a key that is not a stored
    ///   attribute (naming the property and the object's position).
    public func validate(in model: ObjectModel) throws {
        guard let entity = model.entity(named: entityName) else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        guard !entity.isAbstract else {
            throw StoreError(.coreData, "Entity \(entityName) is abstract; a batch insert cannot create its objects", entityName: entityName)
        }
        var stored: Set<String> = []
        for attribute in model.attributes(of: entityName) where !attribute.isTransient { stored.insert(attribute.name) }
        for (position, object) in objects.enumerated() {
            for key in object.keys where !stored.contains(key) {
                let what = model.relationship(key, of: entityName) != nil
                    ? "\(key) is a relationship; a batch insert sets attributes only"
                    : "entity \(entityName) has no stored attribute \(key)"
                throw StoreError(
                    .managedObjectValidation, "Batch insert of \(entityName), object \(position): \(what)",
                    entityName: entityName, propertyName: key, position: position)
            }
        }
    }
}
