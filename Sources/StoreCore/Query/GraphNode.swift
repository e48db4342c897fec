/// A ``StoreNode`` seen through its ``NodeGraph``: the ``PredicateEvaluable`` form of a node,
/// whose relationships lead to other graph nodes.
public struct GraphNode: PredicateEvaluable {
    /// The object's ID.
    public let objectID: ObjectID
    /// The node when already known (otherwise the graph resolves it on first use).
    public let node: StoreNode?
    /// The graph that resolves relationships.
    public let graph: NodeGraph

    /// The object's ID.
    public var predicateObjectID: ObjectID? { objectID }

    /// The value of an attribute or relationship, following the graph.
    public func predicateValue(forKey key: String) throws -> PredicateKeyValue {
        try graph.keyValue(key, of: objectID, node: node)
    }
}
