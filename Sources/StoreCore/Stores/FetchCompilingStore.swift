import Foundation

/// An incremental store that compiles a fetch once per request shape (``FetchRequestShape``:
/// the request without the values of its constants) and answers later requests of that shape
/// from what it compiled. The InMemory store is one: its compiled form is the request's
/// validation, the entities it reads and the index it uses.
///
/// The coordinator keys its own compiled requests by shape already. For a fetch that goes to
/// one such store it asks the store to compile when it compiles, keeps the store's result with
/// its own, and hands it back with each request of the shape
/// (``execute(_:compiled:)``), so the store neither hashes nor looks up the request again. What
/// a store compiled belongs to that store and stays valid while the store is added (the
/// coordinator forgets it when a store is added or removed).
package protocol FetchCompilingStore: IncrementalStore {
    /// Validates `request` and compiles it for every request of its shape; throws what
    /// ``IncrementalStore/execute(_:)`` would throw for it.
    func compileFetch(_ request: FetchRequest) throws -> AnyObject

    /// Answers a fetch as ``IncrementalStore/execute(_:)`` would, with what
    /// ``compileFetch(_:)`` made of a request of the same shape.
    func execute(_ request: FetchRequest, compiled: AnyObject) throws -> StoreResult
}
