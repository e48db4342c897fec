/// The objects of a loaded to-many relationship: kept in order, with O(1) membership tests.
struct ObjectList {
    private(set) var objects: [ManagedObject] = []
    private var members: Set<ObjectKey> = []

    init(_ objects: [ManagedObject] = []) {
        for object in objects { append(object) }
    }

    var count: Int { objects.count }

    func contains(_ object: ManagedObject) -> Bool { members.contains(ObjectKey(object)) }

    /// Appends unless present; returns whether it was added.
    @discardableResult
    mutating func append(_ object: ManagedObject) -> Bool {
        guard members.insert(ObjectKey(object)).inserted else { return false }
        objects.append(object)
        return true
    }

    /// Removes if present; returns whether it was removed.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard members.remove(ObjectKey(object)) != nil else { return false }
        if let index = objects.lastIndex(where: { $0 === object }) { objects.remove(at: index) }
        return true
    }
}

/// An object's identity as a hash key, hashed by a 64-bit finalizer of its address mixed with
/// the table's seed (MurmurHash3's, as ``ObjectID`` hashes) instead of a SipHash round: a list
/// gains a member for every object set on the to-one side of its relationship, and a context's
/// tables of inserted, updated and deleted objects gain one per insert (hashing an
/// `ObjectIdentifier` there was about 400 instructions per insert; docs/benchmarks.md, W1).
struct ObjectKey: Hashable {
    let identifier: ObjectIdentifier

    @inline(__always)
    init(_ object: AnyObject) { identifier = ObjectIdentifier(object) }

    func hash(into hasher: inout Hasher) { hasher.combine(identifier) }

    func _rawHashValue(seed: Int) -> Int {
        ObjectID.finalizedHash(UInt64(UInt(bitPattern: identifier)) ^ UInt64(UInt(bitPattern: seed)))
    }
}
