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
/// chose cannot be made to collide. Not thread-safe: the coordinator's lock guards it, as it
/// guarded the dictionary.
struct RowCache {
    typealias Row = PersistentStoreCoordinator.CachedRow

    /// A bucket of the table (valid until the next insertion or removal).
    typealias Index = Int

    /// Per bucket: 0 when empty, else the hash of the row's ID with its top bit set.
    private var tags: [UInt32] = []
    /// Per bucket: the row, nil when empty.
    private var rows: [Row?] = []
    /// The number of rows.
    private(set) var count = 0
    /// Mixed into every hash: per table, random.
    private let seed = Int.random(in: .min ... .max)

    /// Whether the cache holds no row.
    var isEmpty: Bool { count == 0 }

    private var mask: Int { tags.count - 1 }

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
        guard count > 0 else { return nil }
        let wanted = tag(of: id)
        var bucket = Int(wanted) & mask
        while tags[bucket] != 0 {
            if tags[bucket] == wanted, rows[bucket]?.node.objectID == id { return bucket }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// The row in a bucket ``index(forKey:)`` returned.
    subscript(index: Index) -> Row {
        get {
            // Safe: an index comes from index(forKey:), whose bucket holds a row until the next
            // insertion or removal (callers use it before either).
            rows[index].unsafelyUnwrapped
        }
        _modify {
            // Taken out and put back: the row's buffers stay uniquely referenced while the
            // caller changes it. The key cannot change (the caller changes holders or the node
            // of the same object).
            var row = rows[index].take().unsafelyUnwrapped
            defer { rows[index] = row }
            yield &row
        }
    }

    /// The row of an ID; setting nil removes it, setting a row inserts or replaces it (the row's
    /// node must be of `id`).
    subscript(id: ObjectID) -> Row? {
        get { index(forKey: id).map { self[$0] } }
        _modify {
            let found = index(forKey: id)
            var row = found.flatMap { rows[$0].take() }
            defer {
                if let row {
                    if let found { rows[found] = row } else { insertNew(row, tag: tag(of: id)) }
                } else if let found {
                    removeTaken(at: found)
                }
            }
            yield &row
        }
    }

    // MARK: Changing

    /// Makes room for `minimumCount` rows without growing again.
    mutating func reserveCapacity(_ minimumCount: Int) {
        var buckets = max(tags.count, 8)
        while Self.capacity(ofBuckets: buckets) < minimumCount { buckets *= 2 }
        if buckets != tags.count { resize(to: buckets) }
    }

    /// Puts `row` in for its node's ID; the row it replaced, if any.
    @discardableResult
    mutating func updateValue(_ row: Row) -> Row? {
        let id = row.node.objectID
        if let found = index(forKey: id) {
            let earlier = rows[found].take()
            rows[found] = row
            return earlier
        }
        insertNew(row, tag: tag(of: id))
        return nil
    }

    /// Removes the row in a bucket ``index(forKey:)`` returned.
    mutating func remove(at index: Index) {
        rows[index] = nil
        removeTaken(at: index)
    }

    /// Removes every row `shouldBeRemoved` is true of.
    mutating func removeAll(where shouldBeRemoved: (Row) throws -> Bool) rethrows {
        var kept: [Row] = []
        kept.reserveCapacity(count)
        for bucket in rows.indices where tags[bucket] != 0 {
            if let row = rows[bucket], try !shouldBeRemoved(row) { kept.append(row) }
        }
        guard kept.count != count else { return }
        self = RowCache()
        reserveCapacity(kept.count)
        for row in kept { insertNew(row, tag: tag(of: row.node.objectID)) }
    }

    // MARK: The table

    /// Inserts a row whose ID is not in the table.
    private mutating func insertNew(_ row: Row, tag: UInt32) {
        if count + 1 > Self.capacity(ofBuckets: tags.count) { resize(to: max(8, tags.count * 2)) }
        var bucket = Int(tag) & mask
        while tags[bucket] != 0 { bucket = (bucket + 1) & mask }
        tags[bucket] = tag
        rows[bucket] = row
        count += 1
    }

    /// Empties a bucket whose row was taken out, shifting back the rows after it that probed
    /// past it, so every row stays reachable from its own bucket without tombstones.
    private mutating func removeTaken(at index: Index) {
        var hole = index
        tags[hole] = 0
        count -= 1
        var next = (hole + 1) & mask
        while tags[next] != 0 {
            let home = Int(tags[next]) & mask
            // The row at `next` may fill the hole unless its home lies cyclically in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                tags[hole] = tags[next]
                rows[hole] = rows[next].take()
                tags[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// Moves every row into a table of `buckets` buckets (a power of two).
    private mutating func resize(to buckets: Int) {
        var oldTags: [UInt32] = Array(repeating: 0, count: buckets)
        var oldRows: [Row?] = Array(repeating: nil, count: buckets)
        swap(&oldTags, &tags)
        swap(&oldRows, &rows)
        let moved = count
        count = 0
        for bucket in oldTags.indices where oldTags[bucket] != 0 {
            guard let row = oldRows[bucket].take() else { continue }
            insertNew(row, tag: oldTags[bucket])
        }
        assert(count == moved)
    }
}
