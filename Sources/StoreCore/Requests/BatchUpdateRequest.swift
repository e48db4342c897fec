/// Changes attributes of every object of an entity that matches a predicate, inside the store,
/// without loading the objects (Core Data's `NSBatchUpdateRequest`).
///
/// ```swift
/// let request = BatchUpdateRequest(
///     entityName: "Song", predicate: try FetchPredicate(format: "lastPlayed >= %@", cutoff),
///     propertiesToUpdate: ["favorite": true], resultType: .objectIDs)
/// let result = try coordinator.execute(request)
/// context.mergeChanges(from: ContextDidSave(updatedObjectIDs: Set(result.objectIDs ?? [])))
/// ```
///
/// A batch update **bypasses contexts**: objects already in a context keep their old values
/// until the context merges the returned IDs (or refreshes the objects). It also skips
/// validation: the new values are checked against the attribute types only, not against
/// optionality, ranges, lengths or patterns, and no validation hook runs. Every updated row's
/// version increases by one, so a context that saves an object it read before the batch
/// update meets an optimistic-locking conflict (133020) unless it merged first.
///
/// Only store types that declare ``StoreCapabilities/batchRequests`` run batch requests; the
/// coordinator refuses others with 134091.
public struct BatchUpdateRequest: Sendable, Hashable {
    /// The entity whose objects change.
    public var entityName: String
    /// The objects to change; nil for every object of the entity.
    public var predicate: FetchPredicate?
    /// The new value of each property: a constant, or an expression evaluated on each object
    /// (`score * 2`, `lastName`, `now()`). Keys are attributes, or to-one relationships set to
    /// an object ID or nil (a constant).
    public var propertiesToUpdate: [String: FetchExpression]
    /// What the request returns (default ``BatchResultType/status``).
    public var resultType: BatchResultType
    /// Whether objects of sub-entities change too (default true).
    public var includesSubentities: Bool
    /// Identifiers of the stores to change; nil for every store that holds the entity.
    public var affectedStoreIdentifiers: [String]?

    /// A request that sets constant values.
    public init(
        entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: StoreValue],
        resultType: BatchResultType = .status
    ) {
        self.init(
            entityName: entityName, predicate: predicate, propertiesToUpdate: propertiesToUpdate.mapValues(FetchExpression.constant),
            resultType: resultType)
    }

    /// A request that sets values computed per object from expressions.
    public init(
        entityName: String, predicate: FetchPredicate? = nil, propertiesToUpdate: [String: FetchExpression],
        resultType: BatchResultType = .status
    ) {
        self.entityName = entityName
        self.predicate = predicate
        self.propertiesToUpdate = propertiesToUpdate
        self.resultType = resultType
        self.includesSubentities = true
        self.affectedStoreIdentifiers = nil
    }

    /// Checks the request against a model: the entity exists; the predicate is valid; every
    /// key names a stored attribute or to-one relationship; expressions name existing
    /// properties and yield a single value; constants fit the attribute's type and to-one
    /// values are object IDs of the destination entity (or nil).
    ///
    /// - Throws: 134060 for a request the model cannot run; 1550 for a constant of the wrong
    ///   type (naming entity and property).
    public func validate(in model: ObjectModel) throws {
        guard model.entity(named: entityName) != nil else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        try predicate?.validate(forEntityNamed: entityName, in: model)
        guard !propertiesToUpdate.isEmpty else {
            throw StoreError(.coreData, "A batch update of \(entityName) needs at least one property to update", entityName: entityName)
        }
        let validator = PredicateValidator(model: model)
        for name in propertiesToUpdate.keys.sorted() {
            guard let expression = propertiesToUpdate[name] else { continue }
            if let attribute = model.attribute(name, of: entityName), !attribute.isTransient {
                if case .constant(let value) = expression {
                    guard let coerced = attribute.type.coerce(value), !(coerced.isNull && !value.isNull) else {
                        throw StoreError(
                            .managedObjectValidation,
                            "Batch update of \(entityName).\(name): \(value) is not a \(attribute.type.rawValue) value",
                            entityName: entityName, propertyName: name)
                    }
                    continue
                }
                switch try validator.resultKind(of: expression, entity: entityName) {
                case .scalar, .unknown: continue
                case .object, .collection:
                    throw StoreError(
                        .coreData,
                        "Batch update of \(entityName).\(name): \(PredicateFormatter.format(expression)) does not yield a single attribute value",
                        entityName: entityName, propertyName: name)
                }
            } else if let relationship = model.relationship(name, of: entityName), !relationship.isToMany, !relationship.isTransient {
                switch expression {
                case .constant(.null):
                    continue
                case .constant(.objectID(let id))
                where !id.isTemporaryID && model.isEntity(id.entityName, kindOf: relationship.destinationEntityName):
                    continue
                default:
                    throw StoreError(
                        .coreData,
                        "Batch update of \(entityName).\(name): a to-one relationship takes the object ID of a saved \(relationship.destinationEntityName) or nil, not \(PredicateFormatter.format(expression))",
                        entityName: entityName, propertyName: name)
                }
            } else {
                throw StoreError(
                    .coreData,
                    "Batch update of \(entityName): \(name) is not a stored attribute or to-one relationship of the entity",
                    entityName: entityName, propertyName: name)
            }
        }
    }

    /// The entities whose instances change: the entity, plus its descendants when
    /// ``includesSubentities``.
    public func matchingEntityNames(in model: ObjectModel) -> [String] {
        includesSubentities ? model.entityAndDescendants(entityName) : [entityName]
    }

    /// Whether the request sets a relationship (which changes the inverse side too).
    func updatesRelationships(in model: ObjectModel) -> Bool {
        propertiesToUpdate.keys.contains { model.relationship($0, of: entityName) != nil }
    }
}
