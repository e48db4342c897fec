/// The coordinator's row cache: the rows of incremental stores that some context holds, each
/// the node last read or written and how many objects hold it, found by the node's object ID.
/// The coordinator's lock guards it.
///
/// **Compact rows by primary key.** Nearly every cached row is an entity's row of an SQLite or
/// PostgreSQL store as a fetch or save left it: an integer key, the slots of the entity's
/// layout, no to-many loaded. Such a row is kept as a ``CompactRow``, its value buffer (shared
/// with the objects filled from it) with its version and holder count, 16 bytes, in its
/// scope's ``RowRun``: an array indexed by the key less the run's first key, the scope's ID and
/// layout kept once for the run. The row's node is made again when it is asked for (a fault
/// another context fires, a save keeping loaded to-manys); the ID, layout and unloaded
/// to-manys it had are the run's. Where the cache kept a whole ``PersistentStoreCoordinator/CachedRow``
/// (the node, with the ID, layout and to-many slots, and the count: 64 bytes), a row now
/// takes 16, and remembering a fetched row retains its value buffer only (the node's ID box,
/// layout and to-many array were retained and released again per row).
///
/// **Whole rows for the rest.** A row with a to-many loaded, a dictionary node, a string or
/// UUID reference, a version outside `0 ..< UInt32.max - 1`, a layout other than its run's,
/// or a key the run cannot reach while staying dense (at most four slots per row, as in
/// ``ObjectIDTable``) is a `CachedRow` in an ``ObjectIDTable``. A row is in one of the two
/// places, never both: every lookup looks in the runs, then in the table. A compact row that
/// gains a to-many, or whose replacement node cannot be compact, moves to the table; a row in
/// the table stays there while it is cached (it leaves when its last holder goes).
///
/// A copy of the value shares its memory until one of the two changes (the runs are arrays;
/// the table is copy on write).
struct RowCache {
    /// The runs of compact rows, one per scope that has one (a handful: a cache holds the rows
    /// of a few entities).
    private var runs: [RowRun] = []
    /// The rows that are not compact.
    private var whole = ObjectIDTable<PersistentStoreCoordinator.CachedRow>()
    /// The number of compact rows.
    private var compactCount = 0

    /// An empty cache.
    init() {}

    /// The number of rows.
    var count: Int { compactCount + whole.count }

    /// Whether the cache holds no row.
    var isEmpty: Bool { count == 0 }

    /// The rows kept compact and whole, and the runs' slots (what the cache's memory is in
    /// proportion to).
    var counts: (compact: Int, whole: Int, runSlots: Int) { (compactCount, whole.count, runs.reduce(0) { $0 + $1.capacity }) }

    // MARK: Finding

    /// The run and slot of an ID's compact row, when a run covers its key and the slot holds a
    /// row.
    @inline(__always)
    private func compactSlot(of id: ObjectID) -> (run: Int, slot: Int)? {
        guard let (scope, key) = id.denseKey, let run = runPosition(ofScope: scope), let slot = runs[run].slot(ofKey: key),
            runs[run].rows[slot].isOccupied
        else { return nil }
        return (run, slot)
    }

    @inline(__always)
    private func runPosition(ofScope scope: Int) -> Int? {
        for position in runs.indices where runs[position].scope == scope { return position }
        return nil
    }

    /// Run `run`, of this cache's own (copied first when a copy of the cache shares it).
    @inline(__always)
    private mutating func unique(_ run: Int) -> RowRun {
        if !isKnownUniquelyReferenced(&runs[run]) { runs[run] = runs[run].copy() }
        return runs[run]
    }

    /// The row of `id`: its node (made again from a compact row) and holders; nil when the
    /// cache has none.
    subscript(id: ObjectID) -> PersistentStoreCoordinator.CachedRow? {
        if let (run, slot) = compactSlot(of: id) { return runs[run].row(at: slot, id: id) }
        return whole[id]
    }

    /// The node of `id`'s row; nil when the cache has none.
    func node(for id: ObjectID) -> StoreNode? { self[id]?.node }

    /// The version of `id`'s row; nil when the cache has none.
    func version(of id: ObjectID) -> Int64? {
        if let (run, slot) = compactSlot(of: id) { return runs[run].rows[slot].version }
        return whole.index(forKey: id).map { whole[$0].node.version }
    }

    /// The destinations of a to-many of `id`'s row when the row has it loaded; nil otherwise (a
    /// compact row has none loaded).
    func destinations(forToMany name: String, of id: ObjectID) -> [ObjectID]? {
        if compactSlot(of: id) != nil { return nil }
        guard let index = whole.index(forKey: id) else { return nil }
        return whole[index].node.destinations(forToMany: name)
    }

    // MARK: Remembering fetched rows

    /// Counts a fetched row as held once more, taking the node read when the cache has none
    /// (then held once) or a row of another version. The same version is the same row, so
    /// nothing is copied in and no buffer destroyed that another thread made (two readers of
    /// the same rows wrote each other's reference counts; W13 in docs/benchmarks.md).
    mutating func remember(_ node: UnsafePointer<StoreNode>) {
        // The node is read where it lies (a node passed by value was copied and destroyed per
        // row: four reference counts each).
        if let (scope, key) = node.pointee.objectID.denseKey, let run = runPosition(ofScope: scope),
            let slot = runs[run].slot(ofKey: key)
        {
            let rows = unique(run).rows
            if rows[slot].isOccupied {
                if rows[slot].version != node.pointee.version {
                    guard CompactRow.fits(node.pointee.version), let values = node.pointee.valueBuffer(in: runs[run].layout) else {
                        var row = takeWhole(run: run, slot: slot, id: node.pointee.objectID)
                        row.node = node.pointee
                        row.holders += 1
                        whole.updateValue(row)
                        return
                    }
                    rows[slot].values = values
                    rows[slot].version = node.pointee.version
                }
                addHolder(run: run, slot: slot, id: node.pointee.objectID)
                return
            }
            // The slot of a new row: only the node's value buffer is taken (no copy of the node).
            if whole.isEmpty || whole.index(forKey: node.pointee.objectID) == nil, CompactRow.fits(node.pointee.version),
                let values = node.pointee.valueBuffer(in: runs[run].layout)
            {
                rows[slot] = CompactRow(values: values, version: node.pointee.version, holders: 1)
                runs[run].countFilled()
                compactCount += 1
                return
            }
        }
        let id = node.pointee.objectID
        if let index = whole.index(forKey: id) {
            if whole[index].node.version != node.pointee.version { whole[index].node = node.pointee }
            whole[index].holders += 1
            return
        }
        insertNew(node.pointee, holders: 1)
    }

    /// ``remember(_:)`` of a node value (tests; the coordinator passes the nodes where they lie).
    mutating func remember(_ node: StoreNode) {
        withUnsafePointer(to: node) { remember($0) }
    }

    /// For a row read while a write may have run: counts it as held once more when the cache
    /// has it, taking the node read when it is of the same or a newer version; a row the cache
    /// does not have is not added.
    mutating func rememberIfCached(_ node: borrowing StoreNode) {
        let id = node.objectID
        guard let cachedVersion = version(of: id) else { return }
        if node.version >= cachedVersion { replaceNode(copy node, holders: nil) }
        addHolder(to: id)
    }

    // MARK: Changing rows

    /// Puts `node` in as its ID's row: a cached row keeps its holders unless `holders` is
    /// given, and with `keepingLoadedToManys` the loaded to-manys the node does not have (a
    /// save's snapshot keeps what the cache knew); a new row has `holders` (0 when nil).
    mutating func replaceNode(_ node: consuming StoreNode, holders: Int?, keepingLoadedToManys: Bool = false) {
        let id = node.objectID
        if let (run, slot) = compactSlot(of: id) {
            // A compact row has no to-many loaded: nothing to keep.
            let fitting = holders.map { UInt32(exactly: $0).map { $0 <= CompactRow.maximumHolders } ?? false } ?? true
            if fitting, CompactRow.fits(node.version), let values = node.takeValueBuffer(in: runs[run].layout) {
                let rows = unique(run).rows
                rows[slot].values = values
                rows[slot].version = node.version
                if let holders { rows[slot].holders = UInt32(truncatingIfNeeded: holders) }
            } else {
                var row = takeWhole(run: run, slot: slot, id: id)
                row.node = consume node
                if let holders { row.holders = holders }
                whole.updateValue(row)
            }
            return
        }
        if let index = whole.index(forKey: id) {
            if keepingLoadedToManys { node.keepLoadedToManys(of: whole[index].node) }
            whole[index].node = consume node
            if let holders { whole[index].holders = holders }
            return
        }
        insertNew(node, holders: holders ?? 0)
    }

    /// Sets the destinations of a to-many of `id`'s row, when the cache has the row (a compact
    /// row becomes whole).
    mutating func setDestinations(_ ids: [ObjectID], forToMany name: String, of id: ObjectID) {
        if let (run, slot) = compactSlot(of: id) {
            var row = takeWhole(run: run, slot: slot, id: id)
            row.node.setDestinations(ids, forToMany: name)
            whole.updateValue(row)
            return
        }
        guard let index = whole.index(forKey: id) else { return }
        whole[index].node.setDestinations(ids, forToMany: name)
    }

    /// Counts `id`'s row as held once more, when the cache has it.
    mutating func addHolder(to id: ObjectID) {
        if let (run, slot) = compactSlot(of: id) {
            addHolder(run: run, slot: slot, id: id)
        } else if let index = whole.index(forKey: id) {
            whole[index].holders += 1
        }
    }

    @inline(__always)
    private mutating func addHolder(run: Int, slot: Int, id: ObjectID) {
        let rows = unique(run).rows
        if rows[slot].holders < CompactRow.maximumHolders {
            rows[slot].holders += 1
        } else {
            var row = takeWhole(run: run, slot: slot, id: id)
            row.holders += 1
            whole.updateValue(row)
        }
    }

    /// Counts `id`'s row as held once fewer, forgetting it when no object holds it any more.
    mutating func removeHolder(from id: ObjectID) {
        if let (run, slot) = compactSlot(of: id) {
            let own = unique(run)
            if own.rows[slot].holders > 1 {
                own.rows[slot].holders -= 1
                return
            }
            own.empty(slot)
            compactCount -= 1
            if own.count == 0 { runs.remove(at: run) }
        } else if let index = whole.index(forKey: id) {
            if whole[index].holders <= 1 {
                whole.remove(at: index)
            } else {
                whole[index].holders -= 1
            }
        }
    }

    /// Forgets `id`'s row.
    mutating func removeRow(for id: ObjectID) {
        if let (run, slot) = compactSlot(of: id) {
            removeCompact(run: run, slot: slot)
        } else {
            whole.removeValue(forKey: id)
        }
    }

    /// Forgets every row whose ID `shouldBeRemoved` is true of.
    mutating func removeAll(where shouldBeRemoved: (ObjectID) -> Bool) {
        for run in runs.indices.reversed() {
            let own = unique(run)
            for slot in 0..<own.capacity where own.rows[slot].isOccupied && shouldBeRemoved(own.id(at: slot)) {
                own.empty(slot)
                compactCount -= 1
            }
            if own.count == 0 { runs.remove(at: run) }
        }
        whole.removeAll { shouldBeRemoved($0.node.objectID) }
    }

    // MARK: Storage

    /// Makes room for the rows of `nodes` before they are remembered one by one: a scope whose
    /// keys in the batch are dense gets a run covering their range (and what it covered
    /// before), the other rows room in the table. One pass over the batch, then at most one
    /// allocation per scope: a fetch of 100,000 rows grows nothing while its rows go in.
    mutating func reserveCapacity(for nodes: [StoreNode]) {
        var ranges: [(scope: Int, lowest: Int64, highest: Int64, count: Int, first: Int)] = []
        var others = 0
        // The range of the scope being read, added to `ranges` when another scope's row comes
        // (a result usually holds one scope, in key order).
        var current: (scope: Int, lowest: Int64, highest: Int64, count: Int, first: Int) = (-1, 0, 0, 0, 0)
        func flush(_ current: (scope: Int, lowest: Int64, highest: Int64, count: Int, first: Int)) {
            guard current.count > 0 else { return }
            if let index = ranges.firstIndex(where: { $0.scope == current.scope }) {
                ranges[index].lowest = min(ranges[index].lowest, current.lowest)
                ranges[index].highest = max(ranges[index].highest, current.highest)
                ranges[index].count += current.count
            } else {
                ranges.append(current)
            }
        }
        // Safe: the pointer is used only inside the closure, while `nodes` (a constant
        // parameter) keeps its storage alive and unchanged.
        nodes.withUnsafeBufferPointer { nodes in
            for position in nodes.indices {
                guard nodes[position].isCompactable, let (scope, key) = nodes[position].objectID.denseKey,
                    !nodes[position].objectID.isTemporaryID
                else {
                    others += 1
                    continue
                }
                if scope == current.scope {
                    if key < current.lowest { current.lowest = key }
                    if key > current.highest { current.highest = key }
                    current.count += 1
                } else {
                    flush(current)
                    current = (scope, key, key, 1, position)
                }
            }
        }
        flush(current)
        for range in ranges {
            if let run = runPosition(ofScope: range.scope) {
                let lowest = min(range.lowest, runs[run].firstKey)
                let highest = max(range.highest, runs[run].lastKey)
                if let slots = DenseKeyRange.slots(from: lowest, to: highest, holding: runs[run].count + range.count) {
                    unique(run).cover(firstKey: lowest, slots: slots)
                } else {
                    others += range.count
                }
            } else if let layout = nodes[range.first].layout,
                let slots = DenseKeyRange.slots(from: range.lowest, to: range.highest, holding: range.count)
            {
                runs.append(RowRun(template: nodes[range.first].objectID, layout: layout, firstKey: range.lowest, slots: slots))
            } else {
                others += range.count
            }
        }
        if others > 0 { whole.reserveCapacity(whole.count + others) }
    }

    /// Puts in the row of an ID the cache does not have: compact when it can be, else whole.
    private mutating func insertNew(_ node: consuming StoreNode, holders: Int) {
        let id = node.objectID
        if !id.isTemporaryID, let (scope, key) = id.denseKey, CompactRow.fits(node.version), node.isCompactable,
            let count = UInt32(exactly: holders), count <= CompactRow.maximumHolders
        {
            var position = runPosition(ofScope: scope)
            if position == nil, let layout = node.layout {
                // A new scope: a small run from its first key (fewer slots near the largest key,
                // so that every slot's key exists).
                runs.append(RowRun(template: id, layout: layout, firstKey: key, slots: key > .max - 15 ? Int(.max - key) + 1 : 16))
                position = runs.count - 1
            }
            if let run = position {
                let own = unique(run)
                // (A node of another layout fails the take, after a growth it did not need.)
                if own.reach(key), let slot = own.slot(ofKey: key), let values = node.takeValueBuffer(in: own.layout) {
                    own.put(CompactRow(values: values, version: node.version, holders: count), at: slot)
                    compactCount += 1
                    return
                }
            }
        }
        whole.updateValue(PersistentStoreCoordinator.CachedRow(node: node, holders: holders))
    }

    /// Takes the compact row at `slot` of run `run` out as a whole row (which the caller
    /// changes and puts in ``whole``).
    private mutating func takeWhole(run: Int, slot: Int, id: ObjectID) -> PersistentStoreCoordinator.CachedRow {
        let row = runs[run].row(at: slot, id: id)
        removeCompact(run: run, slot: slot)
        return row
    }

    private mutating func removeCompact(run: Int, slot: Int) {
        let own = unique(run)
        own.empty(slot)
        compactCount -= 1
        if own.count == 0 { runs.remove(at: run) }
    }
}

/// A row of a ``RowRun``: the value buffer, the version and the number of objects holding the
/// row. 16 bytes; a slot with no row has version `UInt32.max` (``isOccupied``).
struct CompactRow {
    /// The values by the run's layout's value slots.
    var values: [StoreValue]
    private var storedVersion: UInt32
    /// The number of objects, over every context, filled from this row and not yet faulted.
    var holders: UInt32

    /// The most holders a compact row counts (a row held more often is whole; no process has
    /// that many objects).
    static var maximumHolders: UInt32 { .max - 1 }

    /// Whether a row of `version` can be compact.
    @inline(__always)
    static func fits(_ version: Int64) -> Bool { version >= 0 && version < Int64(UInt32.max) }

    /// A row (its version must fit).
    @inline(__always)
    init(values: [StoreValue], version: Int64, holders: UInt32) {
        self.values = values
        self.storedVersion = UInt32(truncatingIfNeeded: version)
        self.holders = holders
    }

    /// The mark of a slot with no row.
    private init() {
        values = []
        storedVersion = .max
        holders = 0
    }

    /// The mark of a slot with no row.
    static var empty: CompactRow { CompactRow() }

    /// Whether the slot holds a row.
    @inline(__always)
    var isOccupied: Bool { storedVersion != .max }

    /// The row version (`Z_OPT`); set only versions that fit.
    var version: Int64 {
        @inline(__always) get { Int64(storedVersion) }
        @inline(__always) set { storedVersion = UInt32(truncatingIfNeeded: newValue) }
    }
}

/// The compact rows of one scope (an entity of a store): slot `i` holds the row of key
/// `firstKey + i`, and the rows share the run's layout and their IDs' scope. Every slot is
/// initialised (an empty one to ``CompactRow/empty``), in memory of the run's own: a Swift
/// array of rows, reached through the array of runs, cost a uniqueness and a bounds check per
/// access and copies of the run (docs/benchmarks.md). Shared by copies of the cache until one
/// changes it (``RowCache`` copies it first).
final class RowRun {
    /// An ID of the scope, from which the IDs of other keys are made.
    let template: ObjectID
    /// The scope's ``ObjectIDScope/number``.
    let scope: Int
    /// The layout of every row of the run.
    let layout: EntityLayout
    /// The key of slot 0.
    private(set) var firstKey: Int64
    /// The number of slots.
    private(set) var capacity: Int
    /// The rows by slot, every one initialised.
    private(set) var rows: UnsafeMutablePointer<CompactRow>
    /// The number of occupied slots.
    private(set) var count = 0

    /// The key of the last slot.
    var lastKey: Int64 { firstKey + Int64(capacity - 1) }

    init(template: ObjectID, layout: EntityLayout, firstKey: Int64, slots: Int) {
        self.template = template
        // A run is made only for an ID with a dense key.
        self.scope = template.denseKey?.scope ?? -1
        self.layout = layout
        self.firstKey = firstKey
        self.capacity = slots
        rows = .allocate(capacity: slots)
        rows.initialize(repeating: .empty, count: slots)
    }

    deinit {
        rows.deinitialize(count: capacity)
        rows.deallocate()
    }

    /// A run with the same rows in the same slots.
    func copy() -> RowRun {
        let copy = RowRun(template: template, layout: layout, firstKey: firstKey, slots: capacity)
        copy.rows.update(from: rows, count: capacity)
        copy.count = count
        return copy
    }

    /// The slot of `key`, or nil when the run does not cover it.
    @inline(__always)
    func slot(ofKey key: Int64) -> Int? {
        let (offset, overflow) = key.subtractingReportingOverflow(firstKey)
        guard !overflow, offset >= 0, offset < Int64(capacity) else { return nil }
        return Int(offset)
    }

    /// The ID of the row at `slot`.
    func id(at slot: Int) -> ObjectID {
        // The template is permanent (runs are made for permanent IDs), so an ID is made.
        template.permanentID(withReference: .int(firstKey + Int64(slot))) ?? template
    }

    /// The whole row at an occupied slot, its node made with `id` (the slot's ID).
    func row(at slot: Int, id: ObjectID) -> PersistentStoreCoordinator.CachedRow {
        PersistentStoreCoordinator.CachedRow(
            node: StoreNode(objectID: id, layout: layout, movingValues: rows[slot].values, version: rows[slot].version),
            holders: Int(rows[slot].holders))
    }

    /// Fills an empty slot.
    @inline(__always)
    func put(_ row: consuming CompactRow, at slot: Int) {
        rows[slot] = row
        count += 1
    }

    /// Counts a slot the caller filled through ``rows``.
    @inline(__always)
    func countFilled() { count += 1 }

    /// Empties an occupied slot.
    @inline(__always)
    func empty(_ slot: Int) {
        rows[slot] = .empty
        count -= 1
    }

    /// Grows the run to cover `key` (to twice its slots towards it, or to it) when it stays
    /// dense; whether it covers the key.
    func reach(_ key: Int64) -> Bool {
        if slot(ofKey: key) != nil { return true }
        guard let (newFirstKey, slots) = DenseKeyRange.grown(firstKey: firstKey, capacity: capacity, holding: count, toReach: key) else {
            return false
        }
        cover(firstKey: newFirstKey, slots: slots)
        return true
    }

    /// Makes the run cover `slots` slots from `newFirstKey` (a range covering its present one),
    /// its rows moved to their new slots.
    func cover(firstKey newFirstKey: Int64, slots: Int) {
        guard newFirstKey != firstKey || slots != capacity else { return }
        let moved = UnsafeMutablePointer<CompactRow>.allocate(capacity: slots)
        let shift = Int(firstKey - newFirstKey)
        moved.initialize(repeating: .empty, count: shift)
        (moved + shift).moveInitialize(from: rows, count: capacity)
        (moved + shift + capacity).initialize(repeating: .empty, count: slots - shift - capacity)
        rows.deallocate()
        rows = moved
        capacity = slots
        firstKey = newFirstKey
    }

}

extension PersistentStoreCoordinator.CachedRow: ObjectIDTableElement {
    /// The node's ID.
    var tableKey: ObjectID { node.objectID }
}
