/// Nodes kept in insertion order with O(1) lookup, insert, update and remove: the storage of
/// the InMemory store's tables and of an atomic store's cache. Removal leaves a hole that is
/// compacted once holes outnumber nodes, so iteration stays proportional to the node count.
public struct NodeTable: Sendable {
    private var slots: [StoreNode?] = []
    private var positions: [ObjectID: Int] = [:]

    /// An empty table.
    public init() {}

    /// The number of nodes.
    public var count: Int { positions.count }

    /// The node with that ID.
    public func node(for objectID: ObjectID) -> StoreNode? {
        guard let position = positions[objectID] else { return nil }
        return slots[position]
    }

    /// Whether a node with that ID exists.
    public func contains(_ objectID: ObjectID) -> Bool { positions[objectID] != nil }

    /// Inserts a node, or replaces the node with the same ID in place.
    public mutating func upsert(_ node: StoreNode) {
        if let position = positions[node.objectID] {
            slots[position] = node
        } else {
            positions[node.objectID] = slots.count
            slots.append(node)
        }
    }

    /// Removes and returns the node with that ID.
    @discardableResult
    public mutating func remove(_ objectID: ObjectID) -> StoreNode? {
        guard let position = positions.removeValue(forKey: objectID) else { return nil }
        let node = slots[position]
        slots[position] = nil
        if slots.count > 64 && slots.count > 2 * positions.count { compact() }
        return node
    }

    /// Changes a node in place; returns false when there is no node with that ID.
    @discardableResult
    public mutating func modify(_ objectID: ObjectID, _ change: (inout StoreNode) -> Void) -> Bool {
        guard let position = positions[objectID], var node = slots[position] else { return false }
        slots[position] = nil  // keeps the node uniquely referenced while it changes
        change(&node)
        slots[position] = node
        return true
    }

    /// The nodes in insertion order.
    public var nodes: [StoreNode] { slots.compactMap { $0 } }

    /// Calls `body` for each node in insertion order.
    public func forEach(_ body: (StoreNode) throws -> Void) rethrows {
        for case let node? in slots { try body(node) }
    }

    private mutating func compact() {
        slots = slots.compactMap { $0 }
        positions.removeAll(keepingCapacity: true)
        for (position, node) in slots.enumerated() {
            if let node { positions[node.objectID] = position }
        }
    }
}
