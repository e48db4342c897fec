/// A context's changes, as a store applies them: all of it or none of it.
///
/// Every ID is permanent. Inserted and updated nodes carry the object's complete attributes and
/// to-one values; to-many relationships appear only when loaded (an absent key is unchanged).
/// Updated and deleted nodes carry the version the context last saw: a store whose current
/// version differs reports an optimistic-locking conflict (133020).
public struct SaveChangesRequest: Sendable, Hashable {
    /// New objects (version 0).
    public var insertedObjects: [StoreNode]
    /// Changed objects, with the version the context saw.
    public var updatedObjects: [StoreNode]
    /// Deleted objects, with the version the context saw.
    public var deletedObjects: [StoreNode]
    /// The keys that changed, per updated object (stores may write only these).
    public var changedKeys: [ObjectID: Set<String>]
    /// The saving context's transaction author, for persistent history.
    public var transactionAuthor: String?
    /// The saving context's name, for persistent history.
    public var contextName: String?
    /// Inserted objects whose permanent IDs the application obtained before the save
    /// (`ManagedObjectContext.obtainPermanentIDs(for:)`) and may have kept: a store that gives
    /// saved objects other IDs (``AtomicStore/replaceObjectIDs(_:)``) leaves these as they are.
    public var keptObjectIDs: Set<ObjectID> = []

    /// Creates a save request.
    public init(
        insertedObjects: [StoreNode] = [], updatedObjects: [StoreNode] = [], deletedObjects: [StoreNode] = [],
        changedKeys: [ObjectID: Set<String>] = [:]
    ) {
        self.insertedObjects = insertedObjects
        self.updatedObjects = updatedObjects
        self.deletedObjects = deletedObjects
        self.changedKeys = changedKeys
    }

    /// Whether there is nothing to apply.
    public var isEmpty: Bool { insertedObjects.isEmpty && updatedObjects.isEmpty && deletedObjects.isEmpty }

    /// The part of the request that concerns one store.
    public func filtered(toStore identifier: String) -> SaveChangesRequest {
        let store = NameTable.stores.intern(identifier)
        // Store identifiers are interned: a pointer comparison per node, no text read.
        func mine(_ node: StoreNode) -> Bool { node.objectID.belongs(to: store) }
        // By index, reading each node's ID in place (iterating would copy every node).
        func allMine(_ nodes: [StoreNode]) -> Bool { nodes.indices.allSatisfy { nodes[$0].objectID.belongs(to: store) } }
        if allMine(insertedObjects) && allMine(updatedObjects) && allMine(deletedObjects) {
            return self
        }
        let updated = updatedObjects.filter(mine)
        var part = SaveChangesRequest(
            insertedObjects: insertedObjects.filter(mine), updatedObjects: updated,
            deletedObjects: deletedObjects.filter(mine),
            changedKeys: changedKeys.filter { $0.key.belongs(to: store) })
        part.transactionAuthor = transactionAuthor
        part.contextName = contextName
        part.keptObjectIDs = keptObjectIDs.filter { $0.belongs(to: store) }
        return part
    }

    /// The first object that belongs to none of these stores; nil when all belong to one.
    func belongsToStores(_ identifiers: [String]) -> ObjectID? {
        let stores = identifiers.map { NameTable.stores.intern($0) }
        // By index, reading each node's ID in place (iterating would copy every node).
        func stranger(in nodes: [StoreNode]) -> ObjectID? {
            for index in nodes.indices {
                let id = nodes[index].objectID
                if !stores.contains(where: { id.belongs(to: $0) }) { return id }
            }
            return nil
        }
        return stranger(in: insertedObjects) ?? stranger(in: updatedObjects) ?? stranger(in: deletedObjects)
    }
}
