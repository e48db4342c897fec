/// The in-memory query engine: answers a fetch over nodes. The InMemory store and every atomic
/// store use it, so they agree with each other by construction.
public enum QueryEngine {
    /// Answers `request` over `nodes`, which hold only instances of the entities the request
    /// matches (``FetchRequest/matchingEntityNames(in:)``), in the store's natural order.
    /// Applies offset and limit, then shapes the result as the result type asks.
    public static func execute(_ request: FetchRequest, over nodes: [StoreNode]) -> StoreResult {
        let selected = window(nodes, offset: request.fetchOffset, limit: request.fetchLimit)
        switch request.resultType {
        case .managedObjects: return .nodes(Array(selected))
        case .objectIDs: return .objectIDs(selected.map(\.objectID))
        case .count: return .count(selected.count)
        }
    }

    /// The slice of `items` that `offset` and `limit` (0 = none) select.
    public static func window<C: Collection>(_ items: C, offset: Int, limit: Int) -> C.SubSequence {
        let afterOffset = items.dropFirst(max(0, offset))
        return limit > 0 ? afterOffset.prefix(limit) : afterOffset.prefix(Int.max)
    }
}
