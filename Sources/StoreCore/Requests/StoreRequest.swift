/// A request the coordinator sends to a store.
public enum StoreRequest: Sendable {
    /// Fetch objects, IDs or a count.
    case fetch(FetchRequest)
    /// Apply a context's changes.
    case save(SaveChangesRequest)
    /// Change attributes of the matching objects inside the store (answered with `.batch`; only
    /// for stores that declare ``StoreCapabilities/batchRequests``).
    case batchUpdate(BatchUpdateRequest)
    /// Delete the matching objects inside the store (answered with `.batch`). For an ID list,
    /// the coordinator passes only the IDs of the receiving store.
    case batchDelete(BatchDeleteRequest)
    /// Insert objects given as dictionaries inside the store (answered with `.batch`).
    case batchInsert(BatchInsertRequest)
}

/// What a store answers.
public enum StoreResult: Sendable, Equatable {
    /// Objects with their values (a fetch of managed objects).
    case nodes([StoreNode])
    /// Object IDs (a fetch of IDs).
    case objectIDs([ObjectID])
    /// A count.
    case count(Int)
    /// Dictionaries (a fetch with ``FetchResultType/dictionaries``); nil values are absent.
    case dictionaries([[String: StoreValue]])
    /// A save succeeded; the new row version of every updated object, and of each inserted
    /// object whose version is not 1. An inserted object absent from `versions` is at version 1,
    /// as every built-in store writes it (SQLite's and PostgreSQL's `Z_OPT`): the SQLite and
    /// PostgreSQL stores leave their inserts out, so a save of many new objects builds no
    /// dictionary of them. A store that reports every insert, as the atomic stores do, is
    /// read the same.
    case saved(versions: [ObjectID: Int64])
    /// A batch request succeeded, answered in the form its result type asked for.
    case batch(BatchResult)
}
