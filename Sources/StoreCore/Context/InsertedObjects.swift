/// A context's inserted objects that are not saved yet.
///
/// Inserts are kept in the order they were made, in an array, while every change since the
/// set was last empty was an insert ``append(_:)``: a save of many new objects then neither
/// hashes each object into a dictionary nor walks one in hash order to find them again (a visit
/// of every object at random; together about a tenth of W1's wall time, docs/benchmarks.md).
/// The first change by key (an undo, a constraint merge, an object forgotten) turns the set
/// into a dictionary by object for as long as it is not empty again; it answers the same
/// questions either way, only ``inInsertionOrder`` is then unknown.
struct InsertedObjects {
    /// The objects in insertion order, while ``table`` is nil.
    private var log: [ManagedObject] = []
    /// The objects by key, once a change by key was made; nil while ``log`` holds them.
    private var table: [ObjectKey: ManagedObject]?

    /// Whether there are none.
    var isEmpty: Bool { table?.isEmpty ?? log.isEmpty }

    /// How many there are.
    var count: Int { table?.count ?? log.count }

    /// The objects (in insertion order while it is known).
    var values: [ManagedObject] {
        guard let table else { return log }
        return Array(table.values)
    }

    /// The objects in the order they were inserted, or nil once a change by key made the order
    /// unknown.
    var inInsertionOrder: [ManagedObject]? { table == nil ? log : nil }

    /// Adds an object that is not in the set (a new insert).
    mutating func append(_ object: ManagedObject) {
        if table != nil {
            table?[ObjectKey(object)] = object
        } else {
            log.append(object)
        }
    }

    /// The object with this key, if in the set; setting adds or removes it by key.
    subscript(key: ObjectKey) -> ManagedObject? {
        get {
            if let table { return table[key] }
            return log.first { ObjectKey($0) == key }
        }
        set {
            if table == nil {
                if newValue == nil && !log.contains(where: { ObjectKey($0) == key }) { return }
                // Every object once: appends are of new objects only.
                table = Dictionary(log.map { (ObjectKey($0), $0) }, uniquingKeysWith: { first, _ in first })
                log = []
            }
            table?[key] = newValue
            if table?.isEmpty == true { table = nil }
        }
    }
}
