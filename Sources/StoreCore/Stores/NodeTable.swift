/// Nodes kept in insertion order with O(1) lookup, insert, update and remove: the storage of
/// the InMemory store's tables and of an atomic store's cache. Removal leaves a hole that is
/// compacted once holes outnumber nodes, so iteration stays proportional to the node count.
///
/// Nodes are found by their reference object: the IDs in one table share their entity and
/// nearly always their store, so the reference object alone tells them apart, and hashing it
/// is much cheaper than hashing the whole ID (whose store identifier is 36 characters). A
/// lookup still compares the whole ID. IDs the reference object does not tell apart (temporary
/// IDs, or an ID whose reference object another node of the table already has) are kept in a
/// second index by whole ID.
public struct NodeTable: Sendable {
    private var slots: [StoreNode?] = []
    /// The position of a node by its reference object.
    private var positions: [ReferenceObject: Int] = [:]
    /// The position of the nodes that ``positions`` cannot hold, by ID (usually empty).
    private var otherPositions: [ObjectID: Int] = [:]

    /// An empty table.
    public init() {}

    /// The number of nodes.
    public var count: Int { positions.count + otherPositions.count }

    /// The position of the node with that ID.
    @inline(__always)
    private func position(of objectID: ObjectID) -> Int? {
        if case .permanent(_, let reference) = objectID.kind, let position = positions[reference],
            slots[position]?.objectID == objectID
        {
            return position
        }
        return otherPositions.isEmpty ? nil : otherPositions[objectID]
    }

    /// The node with that ID.
    public func node(for objectID: ObjectID) -> StoreNode? {
        guard let position = position(of: objectID) else { return nil }
        return slots[position]
    }

    /// Whether a node with that ID exists.
    public func contains(_ objectID: ObjectID) -> Bool { position(of: objectID) != nil }

    /// Inserts a node, or replaces the node with the same ID in place. Hashes the reference
    /// object once when the node is new (the common case of loading and inserting), and moves
    /// the node into the table without copying it.
    public mutating func upsert(_ node: consuming StoreNode) {
        guard let reference = node.objectID.referenceObject else {
            upsertOther(consume node)
            return
        }
        if !otherPositions.isEmpty, let position = otherPositions[node.objectID] {
            slots[position] = consume node
            return
        }
        if let position = positions.updateValue(slots.count, forKey: reference) {
            positions[reference] = position  // the reference object was taken: put it back
            if slots[position]?.objectID == node.objectID {
                slots[position] = consume node
            } else {
                upsertOther(consume node)
            }
        } else {
            slots.append(consume node)
        }
    }

    private mutating func upsertOther(_ node: consuming StoreNode) {
        if let position = otherPositions.updateValue(slots.count, forKey: node.objectID) {
            otherPositions[node.objectID] = position
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
        guard let position = position(of: objectID) else { return nil }
        if case .permanent(_, let reference) = objectID.kind, positions[reference] == position {
            positions[reference] = nil
        } else {
            otherPositions[objectID] = nil
        }
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
        otherPositions.removeAll()
        for (position, node) in slots.enumerated() {
            guard let node else { continue }
            if case .permanent(_, let reference) = node.objectID.kind, positions[reference] == nil {
                positions[reference] = position
            } else {
                otherPositions[node.objectID] = position
            }
        }
    }
}
