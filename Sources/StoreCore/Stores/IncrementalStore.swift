import Foundation

/// A store that answers each request itself and loads only what is asked (Core Data's
/// `NSIncrementalStore`). SQLite and InMemory are incremental stores.
///
/// The coordinator calls ``loadMetadata()`` once after creating the store, then
/// ``execute(_:)`` for fetches and saves, ``newValues(forObjectWith:)`` to fill a fault,
/// ``newValue(forRelationship:forObjectWith:)`` to fill a to-many fault, and
/// ``obtainPermanentIDs(for:)`` to mint IDs for inserted objects.
public protocol IncrementalStore: PersistentStore {
    /// Reads (or creates) the store and its metadata; the type-mismatch and bad-file checks
    /// belong here.
    func loadMetadata() throws
    /// Executes a fetch or save. A fetch returns `.nodes` (object results, values included),
    /// `.objectIDs` or `.count` as the request's result type asks; a save applies all of the
    /// request or none of it and returns the new row versions. Stores that declare
    /// ``StoreCapabilities/batchRequests`` also run batch update, delete and insert requests,
    /// all or nothing, and answer `.batch` in the request's result type; others never receive
    /// them (the coordinator refuses them with 134091) and may throw 134091 too.
    func execute(_ request: StoreRequest) throws -> StoreResult
    /// The values of one object; throws 133000 when the object does not exist.
    func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode
    /// The values of several objects at once (faults filled together: prefetching, batched
    /// fetches), in any order; objects that do not exist are left out. The default fetches each
    /// entity's objects with `SELF IN <IDs>`; a store that can read rows by key in one query
    /// (SQLite does) answers without building a predicate.
    func newValues(forObjectsWith objectIDs: [ObjectID]) throws -> [IncrementalStoreNode]
    /// The destinations of a relationship of one object (0 or 1 ID for a to-one), in order for
    /// ordered relationships.
    func newValue(forRelationship relationshipName: String, forObjectWith objectID: ObjectID) throws -> [ObjectID]
    /// Permanent IDs for temporary ones, in the order given.
    func obtainPermanentIDs(for objectIDs: [ObjectID]) throws -> [ObjectID]
    /// A context started using these objects (a hint for caches).
    func managedObjectContextDidRegister(objectsWith objectIDs: [ObjectID])
    /// A context stopped using these objects.
    func managedObjectContextDidUnregister(objectsWith objectIDs: [ObjectID])
}

extension IncrementalStore {
    /// One fetch per entity of `SELF IN <IDs>` (sub-entities not included: each ID names its
    /// concrete entity).
    public func newValues(forObjectsWith objectIDs: [ObjectID]) throws -> [IncrementalStoreNode] {
        var nodes: [IncrementalStoreNode] = []
        nodes.reserveCapacity(objectIDs.count)
        for (entity, ids) in Dictionary(grouping: objectIDs, by: \.entityName) {
            var request = FetchRequest(
                entityName: entity,
                predicate: .comparison(ComparisonPredicate(.evaluatedObject, .in, .collection(ids.map { .constant(.objectID($0)) }))))
            request.includesSubentities = false
            request.includesPendingChanges = false
            if case .nodes(let found) = try execute(.fetch(request)) { nodes += found }
        }
        return nodes
    }

    /// Does nothing.
    public func managedObjectContextDidRegister(objectsWith objectIDs: [ObjectID]) {}
    /// Does nothing.
    public func managedObjectContextDidUnregister(objectsWith objectIDs: [ObjectID]) {}
}
