/// What a save did to the saved objects: their new row versions, and what the store changed
/// beyond the request while writing (an atomic store's ``AtomicStore/replaceObjectIDs(_:)``
/// and ``AtomicStore/replaceCacheNodeWhileSaving(_:)``), for the saving context to take on.
struct SaveOutcome {
    /// The new row version of each saved object, by its ID after the save.
    var versions: [ObjectID: Int64] = [:]
    /// The IDs the store gave saved objects in place of the ones the request carried.
    var replacedObjectIDs: [ObjectID: ObjectID] = [:]
    /// The saved objects (by their IDs after the save) whose values the store changed while
    /// writing them: their saved values are the store's, not the request's.
    var changedObjectIDs: Set<ObjectID> = []
    /// The same versions by position: the request's inserted objects', then its updated
    /// objects', in the request's order. Set when one incremental store saved the whole request
    /// (so positions match); nil otherwise. A context reads its saved objects' versions here
    /// instead of hashing each ID again (about 200 instructions per saved object; W1).
    var versionsInRequestOrder: [Int64]?

    /// Takes on another store's outcome of the same save.
    mutating func merge(_ other: SaveOutcome) {
        versions.merge(other.versions) { _, new in new }
        replacedObjectIDs.merge(other.replacedObjectIDs) { _, new in new }
        changedObjectIDs.formUnion(other.changedObjectIDs)
        versionsInRequestOrder = nil
    }
}
