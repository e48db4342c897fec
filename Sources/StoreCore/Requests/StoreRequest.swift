/// A request the coordinator sends to a store.
public enum StoreRequest: Sendable {
    /// Fetch objects, IDs or a count.
    case fetch(FetchRequest)
    /// Apply a context's changes.
    case save(SaveChangesRequest)
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
    /// A save succeeded; the new row version of every inserted and updated object.
    case saved(versions: [ObjectID: Int64])
}
