/// An atomic store's node tables, one per entity, found by the entity's interned number (an
/// array index): adding or finding a node by its ID hashes no entity name. A load adds a node
/// per object, and every fetch and save looks nodes up by ID, so the entity's table is found
/// thousands of times per call; by name it would cost a `String` hash each time.
struct EntityNodeTables: Sendable {
    /// By interned entity number (``ObjectID/entityNumber``); entities without nodes have an
    /// empty table (which allocates nothing).
    private var tables: [NodeTable] = []

    /// No tables.
    init() {}

    /// The table of an ID's entity; nil when that entity has none.
    subscript(entityOf objectID: ObjectID) -> NodeTable? {
        let number = objectID.entityNumber
        return number < tables.count ? tables[number] : nil
    }

    /// The table of an entity by name; nil when that entity has none (a name that was never
    /// interned has none).
    subscript(entityName: String) -> NodeTable? {
        guard let number = NameTable.entities.existingNumber(of: entityName), number < tables.count else { return nil }
        return tables[number]
    }

    /// The number of nodes in all tables.
    var count: Int { tables.reduce(0) { $0 + $1.count } }

    /// Inserts a node into its entity's table, or replaces the node with the same ID there.
    mutating func upsert(_ node: consuming StoreNode) {
        let number = node.objectID.entityNumber
        makeTable(number)
        tables[number].upsert(node)
    }

    /// Makes room for `count` nodes of an entity in all.
    mutating func reserveCapacity(_ count: Int, ofEntity entityName: String) {
        let number = NameTable.entities.intern(entityName).number
        makeTable(number)
        tables[number].reserveCapacity(count)
    }

    /// Removes and returns the node with that ID.
    @discardableResult
    mutating func remove(_ objectID: ObjectID) -> StoreNode? {
        let number = objectID.entityNumber
        guard number < tables.count else { return nil }
        return tables[number].remove(objectID)
    }

    /// Changes a node in place; returns false when there is no node with that ID.
    @discardableResult
    mutating func modify(_ objectID: ObjectID, _ change: (inout StoreNode) -> Void) -> Bool {
        let number = objectID.entityNumber
        guard number < tables.count else { return false }
        return tables[number].modify(objectID, change)
    }

    /// Makes sure `tables` has a table for entity number `number`.
    @inline(__always)
    private mutating func makeTable(_ number: Int) {
        if number >= tables.count { tables += Array(repeating: NodeTable(), count: number + 1 - tables.count) }
    }
}
