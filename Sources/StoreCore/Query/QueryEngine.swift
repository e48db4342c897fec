import Foundation

/// The in-memory query engine: answers a fetch over nodes. The InMemory store and every atomic
/// store use it, so they agree with each other by construction; the coordinator uses its later
/// steps to merge the results of several stores.
///
/// The steps of ``execute(_:over:graph:now:)``, each public on its own: ``filter(_:by:graph:evaluator:)``
/// (the predicate), ``sort(_:by:graph:evaluator:)`` (the sort keys), and
/// ``shape(_:_:graph:evaluator:)`` (dictionaries, distinct, grouping and aggregates, then offset
/// and limit, then the result type).
public enum QueryEngine {
    /// Answers `request` over `nodes`, which hold only instances of the entities the request
    /// matches (``FetchRequest/matchingEntityNames(in:)``), in the store's natural order.
    ///
    /// - Parameters:
    ///   - request: the fetch to answer.
    ///   - nodes: the candidate objects, in the order results keep when nothing is sorted.
    ///   - graph: resolves relationships for key paths (`team.name`); with a model it also
    ///     validates the request first (``FetchRequest/validate(in:)``).
    ///   - now: the instant `now()` stands for.
    /// - Throws: a ``StoreError`` for an invalid request or a predicate that fails to evaluate.
    public static func execute(_ request: FetchRequest, over nodes: [StoreNode], graph: NodeGraph, now: Date = Date()) throws -> StoreResult {
        try execute(request, over: nodes, graph: graph, now: now, validating: true)
    }

    /// ``execute(_:over:graph:now:)``, validating the request against the graph's model only
    /// when `validating` (callers that validated the request already, like the coordinator and
    /// the stores that keep compiled requests, pass false).
    package static func execute(
        _ request: FetchRequest, over nodes: [StoreNode], graph: NodeGraph, now: Date = Date(), validating: Bool
    ) throws -> StoreResult {
        if validating, let model = graph.model { try request.validate(in: model) }
        let evaluator = PredicateEvaluator(now: now)
        let matching = try filter(nodes, by: request.predicate, graph: graph, evaluator: evaluator)
        let sorted = try sort(matching, by: request.sortKeys, graph: graph, evaluator: evaluator)
        return try shape(request, sorted, graph: graph, evaluator: evaluator)
    }

    /// Answers `request` over `nodes`, following relationships only among `nodes` themselves.
    public static func execute(_ request: FetchRequest, over nodes: [StoreNode]) throws -> StoreResult {
        try execute(request, over: nodes, graph: NodeGraph(nodes: nodes))
    }

    /// The nodes for which `predicate` holds (all of them for nil), in their order.
    public static func filter(
        _ nodes: [StoreNode], by predicate: FetchPredicate?, graph: NodeGraph,
        evaluator: PredicateEvaluator = PredicateEvaluator()
    ) throws -> [StoreNode] {
        guard let predicate, predicate != .truePredicate else { return nodes }
        if let (key, ids) = objectIDSet(predicate) {
            // A key whose value is not an object ID (nil, a to-many) takes the general path.
            return try nodes.filter { node in
                guard let key else { return ids.contains(node.objectID) }
                if case .objectID(let id) = node.value(forKey: key) { return ids.contains(id) }
                return try evaluator.evaluate(predicate, with: graph.object(for: node))
            }
        }
        return try nodes.filter { try evaluator.evaluate(predicate, with: graph.object(for: $0)) }
    }

    /// The IDs of `SELF IN {id, id, …}` (the shape of a fetch that fills faults; key nil) or
    /// `key IN {id, …}` (prefetching a to-many through its inverse), so each node costs one set
    /// lookup instead of a comparison with every listed ID.
    static func objectIDSet(_ predicate: FetchPredicate) -> (key: String?, ids: Set<ObjectID>)? {
        guard case .comparison(let comparison) = predicate, comparison.op == .in,
            case .collection(let items) = comparison.rhs, items.count > 16
        else { return nil }
        let key: String?
        switch comparison.lhs {
        case .evaluatedObject: key = nil
        case .keyPath(.evaluatedObject, let components) where components.count == 1:
            guard case .key(let name) = components[0] else { return nil }
            key = name
        default: return nil
        }
        var ids: Set<ObjectID> = []
        ids.reserveCapacity(items.count)
        for item in items {
            guard case .constant(.objectID(let id)) = item else { return nil }
            ids.insert(id)
        }
        return (key, ids)
    }

    /// The nodes sorted by `keys` (stable; unchanged for no keys).
    public static func sort(
        _ nodes: [StoreNode], by keys: [SortKey], graph: NodeGraph, evaluator: PredicateEvaluator = PredicateEvaluator()
    ) throws -> [StoreNode] {
        try SortKey.sort(nodes, by: keys, evaluator: evaluator) { graph.object(for: $0) }
    }

    /// Shapes filtered, sorted nodes as the request's result type asks: dictionaries (with
    /// distinct, grouping and aggregates) first, then offset and limit.
    public static func shape(
        _ request: FetchRequest, _ nodes: [StoreNode], graph: NodeGraph, evaluator: PredicateEvaluator = PredicateEvaluator()
    ) throws -> StoreResult {
        switch request.resultType {
        case .managedObjects:
            return .nodes(Array(window(nodes, offset: request.fetchOffset, limit: request.fetchLimit)))
        case .objectIDs:
            return .objectIDs(window(nodes, offset: request.fetchOffset, limit: request.fetchLimit).map(\.objectID))
        case .count:
            return .count(window(nodes, offset: request.fetchOffset, limit: request.fetchLimit).count)
        case .dictionaries:
            let rows = try dictionaries(request, nodes.map { graph.object(for: $0) }, graph: graph, evaluator: evaluator)
            return .dictionaries(Array(window(rows, offset: request.fetchOffset, limit: request.fetchLimit)))
        }
    }

    /// The dictionaries of a dictionary fetch over objects already filtered and sorted (before
    /// offset and limit): one per object, or one per group when the request groups or
    /// aggregates; duplicates dropped when ``FetchRequest/returnsDistinctResults``.
    public static func dictionaries(
        _ request: FetchRequest, _ objects: [any PredicateEvaluable], graph: NodeGraph? = nil,
        evaluator: PredicateEvaluator = PredicateEvaluator()
    ) throws -> [[String: StoreValue]] {
        var columns = request.propertiesToFetch
        if columns.isEmpty {
            if let model = graph?.model {
                columns = model.attributes(of: request.entityName).map { .property($0.name) }
            } else if let first = objects.first as? GraphNode, let node = try first.node ?? first.graph.node(for: first.objectID) {
                columns = node.attributes.keys.sorted().map { .property($0) }
            }
        }
        var rows: [[String: StoreValue]]
        if request.hasAggregates {
            rows = try aggregateRows(request, columns, objects, evaluator: evaluator)
        } else {
            rows = try objects.map { object in
                var row: [String: StoreValue] = [:]
                for column in columns {
                    let value: StoreValue
                    switch column {
                    case .property(let keyPath): value = try evaluator.value(of: .keyPath(keyPath), with: object)
                    case .expression(let description):
                        value = coerce(try evaluator.value(of: description.expression, with: object), to: description.resultType)
                    }
                    if !value.isNull { row[column.resultKey] = value }
                }
                return row
            }
        }
        if request.returnsDistinctResults {
            var seen: Set<[String: StoreValue]> = []
            rows = rows.filter { seen.insert($0).inserted }
        }
        return rows
    }

    private static func aggregateRows(
        _ request: FetchRequest, _ columns: [PropertyToFetch], _ objects: [any PredicateEvaluable], evaluator: PredicateEvaluator
    ) throws -> [[String: StoreValue]] {
        let groupExpressions = request.propertiesToGroupBy.map { FetchExpression.keyPath($0) }
        var groupOrder: [[StoreValue]] = []
        var groups: [[StoreValue]: [any PredicateEvaluable]] = [:]
        for object in objects {
            let key = try groupExpressions.map { try evaluator.value(of: $0, with: object) }
            if groups[key] == nil { groupOrder.append(key) }
            groups[key, default: []].append(object)
        }
        // Without grouping, an aggregate over no objects is still one row (sum 0, count 0).
        if groupExpressions.isEmpty && groupOrder.isEmpty { groupOrder.append([]) }
        return try groupOrder.map { key in
            let members = groups[key] ?? []
            var row: [String: StoreValue] = [:]
            for (name, value) in zip(request.propertiesToGroupBy, key) where !value.isNull { row[name] = value }
            for column in columns {
                let value: StoreValue
                switch column {
                case .property(let keyPath):
                    if let position = request.propertiesToGroupBy.firstIndex(of: keyPath) {
                        value = key[position]
                    } else if let first = members.first {
                        value = try evaluator.value(of: .keyPath(keyPath), with: first)
                    } else {
                        value = .null
                    }
                case .expression(let description):
                    guard let function = description.function else {
                        value = try members.first.map { try evaluator.value(of: description.expression, with: $0) } ?? .null
                        break
                    }
                    var values: [StoreValue] = []
                    for member in members { values += try evaluator.values(of: description.expression, with: member) }
                    value = coerce(try aggregate(function, values), to: description.resultType)
                }
                if !value.isNull { row[column.resultKey] = value }
            }
            return row
        }
    }

    /// An aggregate function over values; nils are ignored (`count` counts the non-nil ones).
    public static func aggregate(_ function: ExpressionDescription.AggregateFunction, _ values: [StoreValue]) throws -> StoreValue {
        let present = values.filter { !$0.isNull }
        switch function {
        case .count: return .int(Int64(present.count))
        case .sum: return try PredicateEvaluator.aggregate(.sum, present, count: present.count)
        case .min: return try PredicateEvaluator.aggregate(.min, present, count: present.count)
        case .max: return try PredicateEvaluator.aggregate(.max, present, count: present.count)
        case .average: return try PredicateEvaluator.aggregate(.avg, present, count: present.count)
        }
    }

    /// A dictionary-result value in the type an expression description asks for: exact
    /// coercion first (``AttributeType/coerce(_:)``), else numbers truncated or converted. Stores
    /// that compute dictionary results themselves use it to agree with the in-memory engine.
    public static func coerce(_ value: StoreValue, to type: AttributeType?) -> StoreValue {
        guard let type, !value.isNull else { return value }
        if let exact = type.coerce(value) { return exact }
        switch type {
        case .integer16, .integer32, .integer64:
            if let d = value.doubleValue, d.isFinite, let i = Int64(exactly: d.rounded(.towardZero)) { return .int(i) }
        case .double, .float:
            if let d = value.doubleValue { return .double(type == .float ? Double(Float(d)) : d) }
        case .decimal:
            if let d = value.doubleValue, d.isFinite { return .decimal(Decimal(d)) }
        default: break
        }
        return value
    }

    /// The slice of `items` that `offset` and `limit` (0 = none) select.
    ///
    /// Inlinable, so that stores in other modules get it specialized for their collection: the
    /// unspecialized generic slicing cost about 3,700 instructions per call (runtime metadata
    /// lookups), more than an indexed lookup's own work.
    @inlinable
    public static func window<C: Collection>(_ items: C, offset: Int, limit: Int) -> C.SubSequence {
        let afterOffset = items.dropFirst(max(0, offset))
        return limit > 0 ? afterOffset.prefix(limit) : afterOffset.prefix(Int.max)
    }
}
