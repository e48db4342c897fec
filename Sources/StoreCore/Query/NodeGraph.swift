/// A set of ``StoreNode``s reachable by object ID: how predicates and sort keys evaluated over
/// nodes follow relationships (`team.name`, `ANY posts.title …`).
///
/// ```swift
/// let graph = NodeGraph(nodes: store.cacheNodes, model: model)
/// let matches = try predicate.evaluate(with: graph.object(for: node))
/// ```
///
/// With a model the graph knows which keys are to-many relationships, so an absent to-many key
/// reads as the relationship's destinations from `relatedObjectIDs` (a store's fault filling),
/// or as empty; without one, a node's keys are read as they are (attributes, then to-ones, then
/// to-manys, else nil). A to-one pointing at an ID the graph cannot resolve still compares by
/// its ID; its keys read as nil.
public struct NodeGraph {
    /// The model; it enables validation and the classification of absent keys.
    public var model: ObjectModel?
    private let lookup: (ObjectID) throws -> StoreNode?
    private let relatedLookup: ((String, ObjectID) throws -> [ObjectID])?

    /// A graph over any lookup: `node` resolves an ID (nil when unknown); `relatedObjectIDs`
    /// loads a to-many relationship a node does not carry.
    public init(
        model: ObjectModel? = nil, node: @escaping (ObjectID) throws -> StoreNode?,
        relatedObjectIDs: ((_ relationship: String, _ objectID: ObjectID) throws -> [ObjectID])? = nil
    ) {
        self.model = model
        self.lookup = node
        self.relatedLookup = relatedObjectIDs
    }

    /// A graph over a fixed set of nodes.
    public init(nodes: some Sequence<StoreNode>, model: ObjectModel? = nil) {
        var byID: [ObjectID: StoreNode] = [:]
        for node in nodes { byID[node.objectID] = node }
        self.init(model: model, node: { byID[$0] })
    }

    /// The node with that ID, if the graph holds it.
    public func node(for objectID: ObjectID) throws -> StoreNode? { try lookup(objectID) }

    /// The node seen as an evaluable object of this graph.
    public func object(for node: StoreNode) -> GraphNode { GraphNode(objectID: node.objectID, node: node, graph: self) }

    /// The object with that ID, resolved when one of its keys is read.
    public func object(for objectID: ObjectID) -> GraphNode { GraphNode(objectID: objectID, node: nil, graph: self) }

    func keyValue(_ key: String, of objectID: ObjectID, node known: StoreNode?) throws -> PredicateKeyValue {
        guard let node = try known ?? lookup(objectID) else { return .value(.null) }
        if let model, let relationship = model.relationship(key, of: node.entityName) {
            if relationship.isToMany {
                let ids = try node.destinations(forToMany: key) ?? relatedLookup?(key, node.objectID) ?? []
                return .objects(ids.map { object(for: $0) })
            }
            return .object(node.destination(forToOne: key).map { object(for: $0) })
        }
        if let value = node.attributeValue(forKey: key) { return .value(value) }
        if let id = node.destination(forToOne: key) { return .object(object(for: id)) }
        if let ids = node.destinations(forToMany: key) { return .objects(ids.map { object(for: $0) }) }
        return .value(.null)
    }
}
