/// The coordinator's row cache: the rows of incremental stores that some context holds, each a
/// ``PersistentStoreCoordinator/CachedRow`` (the node last read or written and how many objects
/// hold it), found by the node's object ID: an ``ObjectIDTable`` of the rows.
///
/// A bucket is the row (64 bytes) and a 4-byte tag, filled to seven eighths: 131,072 buckets
/// (8.9 MB) for 100,000 rows, where a `[ObjectID: CachedRow]` took 262,144 (23 MB, 231 bytes a
/// row). The coordinator's lock guards it.
typealias RowCache = ObjectIDTable<PersistentStoreCoordinator.CachedRow>

extension PersistentStoreCoordinator.CachedRow: ObjectIDTableElement {
    /// The node's object ID.
    var tableKey: ObjectID { node.objectID }
}
