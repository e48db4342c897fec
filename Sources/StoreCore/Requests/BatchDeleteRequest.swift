/// Deletes every object of an entity that matches a predicate, or the objects with the given
/// IDs, inside the store, without loading them (Core Data's `NSBatchDeleteRequest`).
///
/// ```swift
/// var request = BatchDeleteRequest(entityName: "LogEntry", predicate: try FetchPredicate(format: "date < %@", cutoff))
/// request.resultType = .objectIDs
/// let deleted = try coordinator.execute(request).objectIDs ?? []
/// context.mergeChanges(from: ContextDidSave(deletedObjectIDs: Set(deleted)))
/// ```
///
/// A batch delete **bypasses contexts**: objects already in a context stay there until the
/// context merges the returned IDs. It does **not apply delete rules** (as in Core Data): no
/// cascade, no deny, no nullify of the objects that point at the deleted ones. The store
/// removes only what belongs to the deleted rows themselves (many-to-many links, inverse-less
/// to-many links); a to-one of another object that pointed at a deleted object is left
/// dangling, and reading it throws 133000. Delete such objects first, or set their to-one to
/// nil with a ``BatchUpdateRequest``.
///
/// Only store types that declare ``StoreCapabilities/batchRequests`` run batch requests; the
/// coordinator refuses others with 134091.
public struct BatchDeleteRequest: Sendable, Hashable {
    /// The entity whose objects are deleted (for an ID list, the entity of the first ID).
    public var entityName: String
    /// The objects to delete; nil for every object of the entity. Ignored when
    /// ``objectIDs`` is given.
    public var predicate: FetchPredicate?
    /// The objects to delete, when the request names them; they must all belong to one
    /// entity hierarchy.
    public var objectIDs: [ObjectID]?
    /// What the request returns (default ``BatchResultType/status``).
    public var resultType: BatchResultType
    /// Whether objects of sub-entities are deleted too (default true).
    public var includesSubentities: Bool
    /// Identifiers of the stores to delete from; nil for every store that holds the entity.
    public var affectedStoreIdentifiers: [String]?

    /// A request that deletes the objects of an entity that match a predicate (every object
    /// when it is nil).
    public init(entityName: String, predicate: FetchPredicate? = nil, resultType: BatchResultType = .status) {
        self.entityName = entityName
        self.predicate = predicate
        self.objectIDs = nil
        self.resultType = resultType
        self.includesSubentities = true
        self.affectedStoreIdentifiers = nil
    }

    /// A request that deletes the objects with these IDs (all of one entity hierarchy). IDs of
    /// objects that no longer exist are ignored.
    public init(objectIDs: [ObjectID], resultType: BatchResultType = .status) {
        self.entityName = objectIDs.first?.entityName ?? ""
        self.predicate = nil
        self.objectIDs = objectIDs
        self.resultType = resultType
        self.includesSubentities = true
        self.affectedStoreIdentifiers = nil
    }

    /// Checks the request against a model: the entity exists and its predicate is valid, or
    /// every ID is a saved object of one entity hierarchy.
    ///
    /// - Throws: 134060.
    public func validate(in model: ObjectModel) throws {
        if let objectIDs {
            if objectIDs.isEmpty { return }
            guard let root = model.rootEntityName(of: entityName) else {
                throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
            }
            for id in objectIDs {
                guard !id.isTemporaryID else {
                    throw StoreError(
                        .coreData, "A batch delete cannot delete \(id): the object has not been saved", objectIDs: [id],
                        entityName: id.entityName)
                }
                guard model.rootEntityName(of: id.entityName) == root else {
                    throw StoreError(
                        .coreData,
                        "A batch delete takes objects of one entity hierarchy: \(id.entityName) is not related to \(entityName)",
                        objectIDs: [id], entityName: id.entityName)
                }
            }
            return
        }
        guard model.entity(named: entityName) != nil else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        try predicate?.validate(forEntityNamed: entityName, in: model)
    }

    /// The entities whose instances are deleted: the entity, plus its descendants when
    /// ``includesSubentities`` (for an ID list, the whole hierarchy of its entity).
    public func matchingEntityNames(in model: ObjectModel) -> [String] {
        if objectIDs != nil {
            return model.rootEntityName(of: entityName).map { model.entityAndDescendants($0) } ?? []
        }
        return includesSubentities ? model.entityAndDescendants(entityName) : [entityName]
    }
}
