/// Parent and child contexts (``ManagedObjectContext/init(parent:)``): a child reads every
/// object, fetch and relationship through its parent's objects — the parent's unsaved changes
/// included — and its save pushes its changes into the parent's objects.
///
/// Decisions, as in Core Data: objects keep their IDs across the two contexts (an object the
/// parent inserted has the same temporary ID in the child); a child's save validates, then
/// makes the parent's objects what the child's are (inserts inserted with the same ID, changed
/// properties set through the ordinary setters so the parent's inverses follow, deletes
/// deleted with the parent's delete rules) and posts did-save in the child only; nothing
/// reaches the stores until the parent saves. The child's changes win over the parent's unsaved
/// changes to the same properties (there are no row versions between contexts); call
/// ``ManagedObjectContext/obtainPermanentIDs(for:)`` in the child first when the IDs must stay
/// valid across the parent's save.
extension ManagedObjectContext {
    // MARK: Where a context reads

    /// An object's values: from the parent's object in a child, else from the coordinator.
    func sourceNode(for objectID: ObjectID, refreshingCache: Bool = false) throws -> StoreNode {
        if let parent { return try parent.nodeForChild(objectID) }
        return try coordinator.node(for: objectID, refreshingCache: refreshingCache)
    }

    /// Several objects' values (missing ones left out).
    func sourceNodes(for objectIDs: [ObjectID]) throws -> [StoreNode] {
        if let parent { return objectIDs.compactMap { try? parent.nodeForChild($0) } }
        return try coordinator.nodes(for: objectIDs)
    }

    /// A fetch's result: the parent's (with its pending changes) in a child, else the stores'.
    func sourceExecute(_ request: FetchRequest, remembering: Bool) throws -> StoreResult {
        if let parent { return try parent.resultForChild(request) }
        return try coordinator.execute(request, remembering: remembering)
    }

    /// The destinations of a to-many: the parent object's in a child.
    func sourceRelatedIDs(_ key: String, of objectID: ObjectID) throws -> [ObjectID] {
        if let parent { return try parent.parentObject(for: objectID).loadObjects(forKey: key).map(\.objectID) }
        return try coordinator.relatedObjectIDs(key, of: objectID)
    }

    // MARK: Answering a child

    /// This context's object for an ID, filled (133000 when it is deleted or missing).
    func parentObject(for objectID: ObjectID) throws -> ManagedObject {
        if let object = registered[objectID] {
            if object.isDeleted { throw PersistentStoreCoordinator.missing(objectID) }
            try object.fireFault()
            return object
        }
        return try existingObject(with: objectID)
    }

    /// An object's current values as a node, for a child.
    func nodeForChild(_ objectID: ObjectID) throws -> StoreNode {
        try parentObject(for: objectID).snapshot()
    }

    /// A child's fetch, answered by this context (its pending changes included).
    func resultForChild(_ request: FetchRequest) throws -> StoreResult {
        switch request.resultType {
        case .managedObjects:
            var filled = request
            filled.returnsObjectsAsFaults = false
            filled.fetchBatchSize = 0
            return .nodes(try fetch(filled).map { $0.snapshot() })
        case .objectIDs: return .objectIDs(try fetchObjectIDs(request))
        case .count: return .count(try count(for: request))
        case .dictionaries: return .dictionaries(try fetchDictionaries(request))
        }
    }
}
