/// One object's values as stores hold and exchange them: attributes, to-one and to-many
/// relationships by object ID, and the row version used for optimistic locking.
///
/// This is the node an incremental store returns (``IncrementalStoreNode``), the cache node an
/// atomic store keeps (``AtomicStoreCacheNode``), and the snapshot a save request carries.
/// Absent keys mean: attribute nil, to-one nil; an absent to-many key means *not loaded* (a
/// fault the coordinator fills through ``IncrementalStore/newValue(forRelationship:forObjectWith:)``)
/// while an empty array means empty.
public struct StoreNode: Sendable, Hashable {
    /// The object's ID.
    public var objectID: ObjectID
    /// Attribute values; a missing key is nil.
    public var attributes: [String: StoreValue]
    /// To-one destinations; a missing key is nil.
    public var toOne: [String: ObjectID]
    /// To-many destinations in order (the order matters only for ordered relationships); a
    /// missing key is "not loaded".
    public var toMany: [String: [ObjectID]]
    /// The row version: 1 after insert, +1 per saved change (SQLite's `Z_OPT`).
    public var version: Int64

    /// Creates a node.
    public init(
        objectID: ObjectID, attributes: [String: StoreValue] = [:], toOne: [String: ObjectID] = [:],
        toMany: [String: [ObjectID]] = [:], version: Int64 = 1
    ) {
        self.objectID = objectID
        self.attributes = attributes
        self.toOne = toOne
        self.toMany = toMany
        self.version = version
    }

    /// The node's entity name.
    public var entityName: String { objectID.entityName }

    /// The value of an attribute or to-one relationship as a ``StoreValue`` (`.objectID` for a
    /// to-one); `.null` when absent.
    public func value(forKey key: String) -> StoreValue {
        if let value = attributes[key] { return value }
        if let id = toOne[key] { return .objectID(id) }
        return .null
    }
}

/// The node an ``IncrementalStore`` returns for an object (object ID, values, version).
public typealias IncrementalStoreNode = StoreNode

/// A cache node of an ``AtomicStore``: the object ID and its property cache. An atomic store's
/// nodes always carry every to-many relationship (they are never faults).
public typealias AtomicStoreCacheNode = StoreNode
