/// What a ``DataStore`` throws to tell the framework how to go on (SwiftData's
/// `DataStoreError`).
public enum DataStoreError: Error, Sendable, Hashable {
    /// The store cannot evaluate the request's predicate: filter in memory.
    case preferInMemoryFilter
    /// The store cannot apply the request's sort: sort in memory.
    case preferInMemorySort
    /// The request's predicate is not valid for the store.
    case invalidPredicate
    /// The store does not offer what was asked.
    case unsupportedFeature
}
