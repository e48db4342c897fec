/// The answer to a batch request, in the form its ``BatchResultType`` asked for.
///
/// ```swift
/// var request = BatchDeleteRequest(entityName: "Item", predicate: try FetchPredicate(format: "done == YES"))
/// request.resultType = .objectIDs
/// let deleted = try coordinator.execute(request).objectIDs ?? []
/// context.mergeChanges(from: ContextDidSave(deletedObjectIDs: Set(deleted)))
/// ```
public enum BatchResult: Sendable, Hashable {
    /// Whether the request succeeded (a failed request throws instead, so this is `true`).
    case status(Bool)
    /// The IDs of the objects the request updated, deleted or inserted.
    case objectIDs([ObjectID])
    /// How many objects the request updated, deleted or inserted.
    case count(Int)

    /// The IDs, for a ``BatchResultType/objectIDs`` result; nil otherwise.
    public var objectIDs: [ObjectID]? {
        if case .objectIDs(let ids) = self { return ids }
        return nil
    }

    /// The number of objects, for a ``BatchResultType/count`` or ``BatchResultType/objectIDs``
    /// result; nil for a status.
    public var count: Int? {
        switch self {
        case .count(let count): return count
        case .objectIDs(let ids): return ids.count
        case .status: return nil
        }
    }

    /// The results of several stores as one: statuses and-ed, IDs concatenated, counts added.
    static func combining(_ results: [BatchResult], as type: BatchResultType) -> BatchResult {
        switch type {
        case .status:
            return .status(results.allSatisfy { if case .status(let ok) = $0 { return ok } else { return true } })
        case .objectIDs:
            return .objectIDs(results.flatMap { $0.objectIDs ?? [] })
        case .count:
            return .count(results.reduce(0) { $0 + ($1.count ?? 0) })
        }
    }
}
