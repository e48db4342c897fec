/// One batch of a batched fetch (``FetchRequest/fetchBatchSize``, Core Data's batched fetch):
/// the IDs it holds, filled together the first time one of its faults fires.
///
/// The batches of one fetch share a ``FaultBatchGroup``, which remembers the batch loaded last:
/// loading the next one turns the previous batch's unchanged objects back into faults, so
/// iterating a large result keeps about one batch of filled objects in memory.
final class FaultBatch {
    /// The object IDs of the batch, in the fetch's order.
    let ids: [ObjectID]
    /// The batches of the same fetch.
    let group: FaultBatchGroup

    init(ids: [ObjectID], group: FaultBatchGroup) {
        self.ids = ids
        self.group = group
    }
}

/// What the batches of one batched fetch share: the request that fills a batch and the batch
/// loaded last.
final class FaultBatchGroup {
    /// The fetch's entity, whether it includes sub-entities, and its prefetching key paths.
    let request: FetchRequest
    /// The batch filled most recently (its objects are the filled ones of this fetch).
    weak var loaded: FaultBatch?

    init(request: FetchRequest) {
        self.request = request
    }
}
