/// Nodes kept in insertion order with O(1) lookup, insert, update and remove: the storage of
/// the InMemory store's tables and of an atomic store's cache. Removal leaves a hole that is
/// compacted once holes outnumber nodes, so iteration stays proportional to the node count.
///
/// Nodes are found by their ID. An ID hashes as its interned scope (a pointer) and its key (an
/// integer, for the integer references of the Binary, XML and SQLite stores), so a lookup hashes
/// two words and reads no text; an ID with a string or UUID reference hashes that reference.
public struct NodeTable: Sendable {
    private var slots: [StoreNode?] = []
    /// The position of each node by its ID.
    private var positions: [ObjectID: Int] = [:]

    /// An empty table.
    public init() {}

    /// The number of nodes.
    public var count: Int { positions.count }

    /// The position of the node with that ID.
    @inline(__always)
    private func position(of objectID: ObjectID) -> Int? { positions[objectID] }

    /// The node with that ID.
    public func node(for objectID: ObjectID) -> StoreNode? {
        guard let position = position(of: objectID) else { return nil }
        return slots[position]
    }

    /// Whether a node with that ID exists.
    public func contains(_ objectID: ObjectID) -> Bool { position(of: objectID) != nil }

    /// Inserts a node, or replaces the node with the same ID in place. Hashes the ID once when
    /// the node is new (the common case of loading and inserting), and moves the node into the
    /// table without copying it.
    public mutating func upsert(_ node: consuming StoreNode) {
        let objectID = node.objectID
        if let position = positions.updateValue(slots.count, forKey: objectID) {
            positions[objectID] = position  // the ID was there: keep its position
            slots[position] = consume node
        } else {
            slots.append(consume node)
        }
    }

    /// Makes room for `count` nodes in all, so that adding them does not rehash or copy.
    public mutating func reserveCapacity(_ count: Int) {
        positions.reserveCapacity(count)
        slots.reserveCapacity(count)
    }

    /// Removes and returns the node with that ID.
    @discardableResult
    public mutating func remove(_ objectID: ObjectID) -> StoreNode? {
        guard let position = positions.removeValue(forKey: objectID) else { return nil }
        let node = slots[position]
        slots[position] = nil
        if slots.count > 64 && slots.count > 2 * count { compact() }
        return node
    }

    /// Changes a node in place; returns false when there is no node with that ID.
    @discardableResult
    public mutating func modify(_ objectID: ObjectID, _ change: (inout StoreNode) -> Void) -> Bool {
        guard let position = position(of: objectID), var node = slots[position] else { return false }
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
            guard let node else { continue }
            positions[node.objectID] = position
        }
    }
}
