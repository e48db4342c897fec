/// The objects registered in a context, found by their IDs: the context's uniquing table.
///
/// An open-addressing table of the objects themselves (linear probing, deletion by shifting
/// back), as the coordinator's ``RowCache`` is of its rows, rather than a
/// `[ObjectID: ManagedObject]`: an object carries its ID, so a bucket is the object's reference
/// and a 4-byte tag (12 bytes, where a dictionary's is 32: the ID again, and the reference), and
/// the table fills to seven eighths (a dictionary to three quarters, so 100,000 objects took
/// 262,144 of its buckets, 84 bytes an object; here 131,072, 16). The tag is the ID's hash with
/// its top bit set (0: empty), so a probe reads an object's ID only when the tags match; the
/// seed is random per table.
///
/// An object is found by its current ``ManagedObject/objectID``: an object's ID must not change
/// while it is in the table (the context takes it out under its old ID and puts it back under
/// its new one, as it re-keyed the dictionary). Not thread-safe: a context is used from one
/// isolation domain at a time.
struct ObjectRegistry {
    /// Per bucket: 0 when empty, else the tag of the object's ID.
    private var tags: [UInt32] = []
    /// Per bucket: the object, nil when empty.
    private var objects: [ManagedObject?] = []
    /// The number of objects.
    private(set) var count = 0
    /// Mixed into every hash: per table, random.
    private let seed = Int.random(in: .min ... .max)

    private var mask: Int { tags.count - 1 }

    /// The largest number of objects `buckets` buckets hold (seven eighths of them).
    private static func capacity(ofBuckets buckets: Int) -> Int { buckets - buckets / 8 }

    /// The tag of an ID: its hash's low 32 bits with the top bit set (a table has at most 2^31
    /// buckets, so the tag also gives the bucket an object belongs in).
    private func tag(of id: ObjectID) -> UInt32 {
        UInt32(truncatingIfNeeded: id._rawHashValue(seed: seed)) | 0x8000_0000
    }

    // MARK: Finding

    /// The bucket of the object with ID `id`, whose tag is `wanted`, or nil.
    private func find(_ id: ObjectID, tag wanted: UInt32) -> Int? {
        guard count > 0 else { return nil }
        let mask = self.mask
        return tags.withUnsafeBufferPointer { tags in
            objects.withUnsafeBufferPointer { objects in
                var bucket = Int(wanted) & mask
                // The table always has an empty bucket (it fills to seven eighths): the probe ends.
                while tags[bucket] != 0 {
                    if tags[bucket] == wanted, objects[bucket]?.objectID == id { return bucket }
                    bucket = (bucket + 1) & mask
                }
                return nil
            }
        }
    }

    /// The object registered with an ID. Setting an object (whose ID is `id`) registers it,
    /// replacing one registered with the same ID; setting nil unregisters the one there.
    subscript(id: ObjectID) -> ManagedObject? {
        get { find(id, tag: tag(of: id)).flatMap { objects[$0] } }
        _modify {
            let wanted = tag(of: id)
            let found = find(id, tag: wanted)
            var object = found.flatMap { objects[$0] }
            defer {
                if let object {
                    if let found { objects[found] = object } else { insertNew(object, tag: wanted) }
                } else if let found {
                    removeBucket(found)
                }
            }
            yield &object
        }
    }

    /// The registered objects, in no particular order (a snapshot: the registry may change
    /// while it is iterated).
    var values: Values { Values(tags: tags, objects: objects, count: count) }

    /// ``ObjectRegistry/values``.
    struct Values: Sequence {
        fileprivate let tags: [UInt32]
        fileprivate let objects: [ManagedObject?]
        fileprivate let count: Int

        func makeIterator() -> Iterator { Iterator(values: self) }

        /// The objects of the occupied buckets.
        struct Iterator: IteratorProtocol {
            fileprivate let values: Values
            fileprivate var bucket = 0

            mutating func next() -> ManagedObject? {
                while bucket < values.tags.count {
                    defer { bucket += 1 }
                    if values.tags[bucket] != 0, let object = values.objects[bucket] { return object }
                }
                return nil
            }
        }

        /// The number of objects (``ObjectRegistry/count`` when the snapshot was taken).
        var underestimatedCount: Int { count }
    }

    // MARK: Changing

    /// Makes room for `minimumCount` objects without growing again.
    mutating func reserveCapacity(_ minimumCount: Int) {
        var buckets = max(tags.count, 8)
        while Self.capacity(ofBuckets: buckets) < minimumCount { buckets *= 2 }
        if buckets != tags.count { resize(to: buckets) }
    }

    /// Registers `object` under its ID; the object registered with that ID before, if any.
    @discardableResult
    mutating func updateValue(_ object: ManagedObject) -> ManagedObject? {
        let id = object.objectID
        let wanted = tag(of: id)
        if let found = find(id, tag: wanted) {
            let earlier = objects[found]
            objects[found] = object
            return earlier
        }
        insertNew(object, tag: wanted)
        return nil
    }

    /// Unregisters the object with an ID; the object, if there was one.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> ManagedObject? {
        guard let found = find(id, tag: tag(of: id)) else { return nil }
        let object = objects[found]
        removeBucket(found)
        return object
    }

    // MARK: The table

    /// Inserts an object whose ID is not in the table.
    private mutating func insertNew(_ object: ManagedObject, tag: UInt32) {
        if count + 1 > Self.capacity(ofBuckets: tags.count) { resize(to: max(8, tags.count * 2)) }
        let mask = self.mask
        let bucket = tags.withUnsafeMutableBufferPointer { tags in
            var bucket = Int(tag) & mask
            while tags[bucket] != 0 { bucket = (bucket + 1) & mask }
            tags[bucket] = tag
            return bucket
        }
        objects[bucket] = object
        count += 1
    }

    /// Empties a bucket, shifting back the objects after it that probed past it, so every
    /// object stays reachable from its own bucket without tombstones.
    private mutating func removeBucket(_ index: Int) {
        let mask = self.mask
        var hole = index
        tags[hole] = 0
        objects[hole] = nil
        count -= 1
        var next = (hole + 1) & mask
        while tags[next] != 0 {
            let home = Int(tags[next]) & mask
            // The object at `next` may fill the hole unless its home lies cyclically in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                tags[hole] = tags[next]
                objects.swapAt(hole, next)
                tags[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
    }

    /// Moves every object into a table of `buckets` buckets (a power of two, at most 2^31).
    private mutating func resize(to buckets: Int) {
        precondition(buckets <= 1 << 31, "a registry of \(buckets) buckets")
        // Made through their buffers (zeroed tags and nil references), not `Array(repeating:)`,
        // which copies its element once per bucket.
        var oldTags = [UInt32](unsafeUninitializedCapacity: buckets) { buffer, initialized in
            buffer.initialize(repeating: 0)
            initialized = buckets
        }
        var oldObjects = [ManagedObject?](unsafeUninitializedCapacity: buckets) { buffer, initialized in
            buffer.initialize(repeating: nil)
            initialized = buckets
        }
        swap(&oldTags, &tags)
        swap(&oldObjects, &objects)
        count = 0
        for bucket in oldTags.indices where oldTags[bucket] != 0 {
            guard let object = oldObjects[bucket] else { continue }
            insertNew(object, tag: oldTags[bucket])
        }
    }
}
