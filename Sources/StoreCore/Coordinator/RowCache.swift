/// The coordinator's row cache: the rows of incremental stores that some context holds, each a
/// ``PersistentStoreCoordinator/CachedRow`` (the node last read or written and how many objects
/// hold it), found by the node's object ID.
///
/// An open-addressing table (linear probing, deletion by shifting back, no tombstones) rather
/// than a `[ObjectID: CachedRow]`, for memory: a dictionary keeps the ID twice (as its key and in
/// the node, 88 bytes a bucket) and at most three quarters of its buckets full, so at 100,000
/// rows it had 262,144 buckets (23 MB, 231 bytes a row). Here a bucket is the row (64 bytes)
/// and a 4-byte tag, and the table fills to seven eighths: 131,072 buckets (8.9 MB) for the same
/// rows. The tag is the key's hash with its top bit set (0: empty), so a probe compares tags and
/// reads a row's ID only when they match; the table's seed is random, so keys a store file
/// chose cannot be made to collide. A copy of the value shares the buckets until one of the two
/// changes (copy on write). Not thread-safe: the coordinator's lock guards it, as it guarded the
/// dictionary.
struct RowCache {
    typealias Row = PersistentStoreCoordinator.CachedRow

    /// A bucket of the table (valid until the next insertion or removal).
    typealias Index = Int

    /// The buckets (nil until the first row).
    private var storage: RowCacheStorage?
    /// The number of rows.
    private(set) var count = 0
    /// Mixed into every hash: per table, random.
    private let seed = Int.random(in: .min ... .max)

    /// Whether the cache holds no row.
    var isEmpty: Bool { count == 0 }

    /// The largest number of rows `buckets` buckets hold (seven eighths of them).
    private static func capacity(ofBuckets buckets: Int) -> Int { buckets - buckets / 8 }

    /// The tag of an ID: its hash's low 32 bits with the top bit set. A table has at most 2^31
    /// buckets, so the tag also gives the bucket a row belongs in (`tag & mask`).
    private func tag(of id: ObjectID) -> UInt32 {
        UInt32(truncatingIfNeeded: id._rawHashValue(seed: seed)) | 0x8000_0000
    }

    // MARK: Finding

    /// The bucket holding the row of `id`, or nil.
    func index(forKey id: ObjectID) -> Index? {
        guard count > 0, let storage else { return nil }
        return storage.find(id, tag: tag(of: id))
    }

    /// The row in a bucket ``index(forKey:)`` returned.
    subscript(index: Index) -> Row {
        get {
            // An index comes from index(forKey:), whose bucket holds a row until the next
            // insertion or removal, and callers use it before either.
            precondition(storage?.isOccupied(index) == true, "a row cache index used after the table changed")
            return storage.unsafelyUnwrapped.rows[index]
        }
        _modify {
            precondition(storage?.isOccupied(index) == true, "a row cache index used after the table changed")
            makeUnique()
            // Changed in place (the caller changes holders or the node of the same object).
            yield &storage.unsafelyUnwrapped.rows[index]
        }
    }

    /// The row of an ID; setting nil removes it, setting a row inserts or replaces it (the row's
    /// node must be of `id`).
    subscript(id: ObjectID) -> Row? {
        get { index(forKey: id).map { self[$0] } }
        _modify {
            let wanted = tag(of: id)
            var found: Index?
            if count > 0, let storage { found = storage.find(id, tag: wanted) }
            var row: Row?
            if let found {
                makeUnique()
                row = storage.unsafelyUnwrapped.take(at: found)
            }
            defer {
                if let row {
                    if let found { storage.unsafelyUnwrapped.put(row, at: found) } else { insertNew(row, tag: wanted) }
                } else if let found {
                    count -= 1
                    storage.unsafelyUnwrapped.closeHole(at: found)
                }
            }
            yield &row
        }
    }

    // MARK: Changing

    /// Makes room for `minimumCount` rows without growing again.
    mutating func reserveCapacity(_ minimumCount: Int) {
        var buckets = max(storage?.buckets ?? 0, 8)
        while Self.capacity(ofBuckets: buckets) < minimumCount { buckets *= 2 }
        if buckets != storage?.buckets { resize(to: buckets) }
    }

    /// Puts `row` in for its node's ID; the row it replaced, if any.
    @discardableResult
    mutating func updateValue(_ row: consuming Row) -> Row? {
        let wanted = tag(of: row.node.objectID)
        if count > 0, let found = storage?.find(row.node.objectID, tag: wanted) {
            makeUnique()
            let earlier = storage.unsafelyUnwrapped.take(at: found)
            storage.unsafelyUnwrapped.put(row, at: found)
            return earlier
        }
        insertNew(row, tag: wanted)
        return nil
    }

    /// Removes the row in a bucket ``index(forKey:)`` returned.
    mutating func remove(at index: Index) {
        precondition(storage?.isOccupied(index) == true, "a row cache index used after the table changed")
        makeUnique()
        _ = storage.unsafelyUnwrapped.take(at: index)
        count -= 1
        storage.unsafelyUnwrapped.closeHole(at: index)
    }

    /// Removes every row `shouldBeRemoved` is true of.
    mutating func removeAll(where shouldBeRemoved: (Row) throws -> Bool) rethrows {
        guard let storage else { return }
        var kept: [Row] = []
        kept.reserveCapacity(count)
        for bucket in 0..<storage.buckets where storage.isOccupied(bucket) {
            let row = storage.rows[bucket]
            if try !shouldBeRemoved(row) { kept.append(row) }
        }
        guard kept.count != count else { return }
        self = RowCache()
        reserveCapacity(kept.count)
        for row in kept { insertNew(row, tag: tag(of: row.node.objectID)) }
    }

    // MARK: The table

    /// Gives this value buckets of its own when a copy shares them.
    private mutating func makeUnique() {
        // Asked before binding the storage (a binding is a reference more).
        guard !isKnownUniquelyReferenced(&storage), let shared = storage else { return }
        storage = shared.copy()
    }

    /// Inserts a row whose ID is not in the table.
    private mutating func insertNew(_ row: consuming Row, tag: UInt32) {
        let buckets = storage?.buckets ?? 0
        if count + 1 > Self.capacity(ofBuckets: buckets) {
            resize(to: max(8, buckets * 2))
        } else {
            makeUnique()
        }
        storage.unsafelyUnwrapped.insert(row, tag: tag)
        count += 1
    }

    /// Moves every row into a table of `buckets` buckets (a power of two).
    private mutating func resize(to buckets: Int) {
        let resized = RowCacheStorage(buckets: buckets)
        // Asked before binding the storage (a binding is a reference more): rows of buckets no
        // copy shares are moved, shared ones copied.
        let unique = isKnownUniquelyReferenced(&storage)
        if let old = storage {
            for bucket in 0..<old.buckets where old.tags[bucket] != 0 {
                if unique {
                    resized.insert(old.take(at: bucket), tag: old.tags[bucket])
                    old.tags[bucket] = 0  // moved out: its deinit must not destroy it again
                } else {
                    resized.insert(old.rows[bucket], tag: old.tags[bucket])
                }
            }
        }
        storage = resized
    }
}

/// The buckets of a ``RowCache``: a tag per bucket (0: empty) and the rows of the occupied
/// buckets, in memory of their own (a row is initialised only where its bucket's tag is not 0,
/// so a new table initialises its tags and nothing else).
final class RowCacheStorage {
    /// The number of buckets: a power of two, at least 8.
    let buckets: Int
    /// Per bucket: 0 when empty, else the tag of the row's ID.
    let tags: UnsafeMutablePointer<UInt32>
    /// Per bucket: the row, initialised only where the tag is not 0.
    let rows: UnsafeMutablePointer<PersistentStoreCoordinator.CachedRow>

    private var mask: Int { buckets - 1 }

    init(buckets: Int) {
        precondition(buckets >= 8 && buckets & (buckets - 1) == 0 && buckets <= 1 << 31, "a row cache of \(buckets) buckets")
        self.buckets = buckets
        tags = .allocate(capacity: buckets)
        tags.initialize(repeating: 0, count: buckets)
        rows = .allocate(capacity: buckets)
    }

    deinit {
        for bucket in 0..<buckets where tags[bucket] != 0 { (rows + bucket).deinitialize(count: 1) }
        tags.deallocate()
        rows.deallocate()
    }

    /// A table with the same rows in the same buckets.
    func copy() -> RowCacheStorage {
        let copy = RowCacheStorage(buckets: buckets)
        for bucket in 0..<buckets where tags[bucket] != 0 {
            copy.tags[bucket] = tags[bucket]
            (copy.rows + bucket).initialize(to: rows[bucket])
        }
        return copy
    }

    /// Whether `bucket` is a bucket of the table holding a row.
    func isOccupied(_ bucket: Int) -> Bool { bucket >= 0 && bucket < buckets && tags[bucket] != 0 }

    /// The bucket holding the row of `id`, whose tag is `wanted`, or nil. The table always has
    /// an empty bucket (it fills to seven eighths), so the probe ends.
    func find(_ id: ObjectID, tag wanted: UInt32) -> Int? {
        var bucket = Int(wanted) & mask
        while tags[bucket] != 0 {
            if tags[bucket] == wanted, rows[bucket].node.objectID == id { return bucket }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Puts a row whose ID is not in the table into the first empty bucket from its own (the
    /// caller made sure there is room).
    func insert(_ row: consuming PersistentStoreCoordinator.CachedRow, tag: UInt32) {
        var bucket = Int(tag) & mask
        while tags[bucket] != 0 { bucket = (bucket + 1) & mask }
        tags[bucket] = tag
        (rows + bucket).initialize(to: row)
    }

    /// Moves the row out of an occupied bucket, leaving the bucket's tag for ``put(_:at:)`` or
    /// ``closeHole(at:)`` (the caller calls one of them before anything else).
    func take(at bucket: Int) -> PersistentStoreCoordinator.CachedRow {
        (rows + bucket).move()
    }

    /// Puts a row of the same ID back into the bucket ``take(at:)`` emptied.
    func put(_ row: consuming PersistentStoreCoordinator.CachedRow, at bucket: Int) {
        (rows + bucket).initialize(to: row)
    }

    /// Empties a bucket whose row was taken out, shifting back the rows after it that probed
    /// past it, so every row stays reachable from its own bucket without tombstones.
    func closeHole(at index: Int) {
        var hole = index
        tags[hole] = 0
        var next = (hole + 1) & mask
        while tags[next] != 0 {
            let home = Int(tags[next]) & mask
            // The row at `next` may fill the hole unless its home lies cyclically in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                tags[hole] = tags[next]
                (rows + hole).moveInitialize(from: rows + next, count: 1)
                tags[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
    }
}
