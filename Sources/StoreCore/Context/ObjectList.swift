/// The objects of a loaded to-many relationship: kept in order, with O(1) membership tests.
struct ObjectList {
    private(set) var objects: [ManagedObject] = []
    private var members: Set<ObjectIdentifier> = []

    init(_ objects: [ManagedObject] = []) {
        for object in objects { append(object) }
    }

    var count: Int { objects.count }

    func contains(_ object: ManagedObject) -> Bool { members.contains(ObjectIdentifier(object)) }

    /// Appends unless present; returns whether it was added.
    @discardableResult
    mutating func append(_ object: ManagedObject) -> Bool {
        guard members.insert(ObjectIdentifier(object)).inserted else { return false }
        objects.append(object)
        return true
    }

    /// Removes if present; returns whether it was removed.
    @discardableResult
    mutating func remove(_ object: ManagedObject) -> Bool {
        guard members.remove(ObjectIdentifier(object)) != nil else { return false }
        if let index = objects.lastIndex(where: { $0 === object }) { objects.remove(at: index) }
        return true
    }
}
