/// An element of an ``ObjectIDTable``: it carries the ID it is found by.
protocol ObjectIDTableElement {
    /// The ID the element is found by; it must not change while the element is in a table.
    var tableKey: ObjectID { get }
}

/// A table of elements found by the object IDs they carry: the coordinator's row cache
/// (``RowCache``, whose elements are rows) and a context's registered objects
/// (``ObjectRegistry``, whose elements are the objects).
///
/// An open-addressing table (linear probing, deletion by shifting back, no tombstones) rather
/// than a `[ObjectID: Element]`, for memory: a dictionary keeps the ID twice (as its key and in
/// the element) and at most three quarters of its buckets full, so 100,000 rows took 262,144 of
/// its buckets (231 bytes a row; a registered object 84). Here a bucket is the element and a
/// 4-byte tag, and the table fills to seven eighths: 131,072 buckets. The tag is the key's hash
/// with its top bit set (0: empty), so a probe compares tags and reads an element's ID only when
/// they match; the table's seed is random, so keys a store file chose cannot be made to
/// collide. A copy of the value shares the buckets until one of the two changes (copy on
/// write); the elements live in memory of the table's own (a Swift array of them cost 515
/// instructions per fetched object more, in copies). Not thread-safe: its owner guards it (the
/// coordinator's lock; a context is used from one isolation domain at a time).
struct ObjectIDTable<Element: ObjectIDTableElement> {
    /// A bucket of the table (valid until the next insertion or removal).
    typealias Index = Int

    /// The buckets (nil until the first element).
    private var storage: ObjectIDTableStorage<Element>?
    /// The number of elements.
    private(set) var count = 0
    /// Mixed into every hash: per table, random.
    private let seed = Int.random(in: .min ... .max)

    /// An empty table.
    init() {}

    /// Whether the table holds no element.
    var isEmpty: Bool { count == 0 }

    /// The largest number of elements `buckets` buckets hold (seven eighths of them).
    private static func capacity(ofBuckets buckets: Int) -> Int { buckets - buckets / 8 }

    /// The tag of an ID: its hash's low 32 bits with the top bit set. A table has at most 2^31
    /// buckets, so the tag also gives the bucket an element belongs in (`tag & mask`).
    @inline(__always)
    private func tag(of id: ObjectID) -> UInt32 {
        UInt32(truncatingIfNeeded: id._rawHashValue(seed: seed)) | 0x8000_0000
    }

    // MARK: Finding

    /// The bucket holding the element of `id`, or nil.
    func index(forKey id: ObjectID) -> Index? {
        guard count > 0, let storage else { return nil }
        return storage.find(id, tag: tag(of: id))
    }

    /// The element in a bucket ``index(forKey:)`` returned.
    subscript(index: Index) -> Element {
        get {
            // An index comes from index(forKey:), whose bucket holds an element until the next
            // insertion or removal, and callers use it before either.
            precondition(storage?.isOccupied(index) == true, "a table index used after the table changed")
            return storage.unsafelyUnwrapped.elements[index]
        }
        _modify {
            precondition(storage?.isOccupied(index) == true, "a table index used after the table changed")
            makeUnique()
            // Changed in place (the caller keeps its ID).
            yield &storage.unsafelyUnwrapped.elements[index]
        }
    }

    /// The element of an ID; setting nil removes it, setting an element inserts or replaces it
    /// (the element's ID must be `id`).
    subscript(id: ObjectID) -> Element? {
        get { index(forKey: id).map { self[$0] } }
        _modify {
            let wanted = tag(of: id)
            var found: Index?
            if count > 0, let storage { found = storage.find(id, tag: wanted) }
            var element: Element?
            if let found {
                makeUnique()
                element = storage.unsafelyUnwrapped.take(at: found)
            }
            defer {
                if let element {
                    if let found { storage.unsafelyUnwrapped.put(element, at: found) } else { insertNew(element, tag: wanted) }
                } else if let found {
                    count -= 1
                    storage.unsafelyUnwrapped.closeHole(at: found)
                }
            }
            yield &element
        }
    }

    /// The elements, in no particular order: a snapshot (the table may change while it is
    /// iterated; the first change then gives the table buckets of its own).
    var values: Values { Values(storage: storage, count: count) }

    /// ``ObjectIDTable/values``.
    struct Values: Sequence {
        fileprivate let storage: ObjectIDTableStorage<Element>?
        fileprivate let count: Int

        func makeIterator() -> Iterator { Iterator(storage: storage) }

        /// The elements of the occupied buckets.
        struct Iterator: IteratorProtocol {
            fileprivate let storage: ObjectIDTableStorage<Element>?
            fileprivate var bucket = 0

            mutating func next() -> Element? {
                guard let storage else { return nil }
                while bucket < storage.buckets {
                    defer { bucket += 1 }
                    if storage.tags[bucket] != 0 { return storage.elements[bucket] }
                }
                return nil
            }
        }

        /// The number of elements (``ObjectIDTable/count`` when the snapshot was taken).
        var underestimatedCount: Int { count }
    }

    // MARK: Changing

    /// Makes room for `minimumCount` elements without growing again.
    mutating func reserveCapacity(_ minimumCount: Int) {
        var buckets = max(storage?.buckets ?? 0, 8)
        while Self.capacity(ofBuckets: buckets) < minimumCount { buckets *= 2 }
        if buckets != storage?.buckets { resize(to: buckets) }
    }

    /// Puts `element` in for its ID; the element it replaced, if any.
    @discardableResult
    mutating func updateValue(_ element: consuming Element) -> Element? {
        let id = element.tableKey
        let wanted = tag(of: id)
        if count > 0, let found = storage?.find(id, tag: wanted) {
            makeUnique()
            let earlier = storage.unsafelyUnwrapped.take(at: found)
            storage.unsafelyUnwrapped.put(element, at: found)
            return earlier
        }
        insertNew(element, tag: wanted)
        return nil
    }

    /// Removes the element in a bucket ``index(forKey:)`` returned.
    mutating func remove(at index: Index) {
        precondition(storage?.isOccupied(index) == true, "a table index used after the table changed")
        makeUnique()
        _ = storage.unsafelyUnwrapped.take(at: index)
        count -= 1
        storage.unsafelyUnwrapped.closeHole(at: index)
    }

    /// Removes the element of an ID; the element, if there was one.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Element? {
        guard let found = index(forKey: id) else { return nil }
        makeUnique()
        let element = storage.unsafelyUnwrapped.take(at: found)
        count -= 1
        storage.unsafelyUnwrapped.closeHole(at: found)
        return element
    }

    /// Removes every element `shouldBeRemoved` is true of.
    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        guard let storage else { return }
        var kept: [Element] = []
        kept.reserveCapacity(count)
        for bucket in 0..<storage.buckets where storage.isOccupied(bucket) {
            let element = storage.elements[bucket]
            if try !shouldBeRemoved(element) { kept.append(element) }
        }
        guard kept.count != count else { return }
        self = ObjectIDTable()
        reserveCapacity(kept.count)
        for element in kept { insertNew(element, tag: tag(of: element.tableKey)) }
    }

    // MARK: The table

    /// Gives this value buckets of its own when a copy shares them.
    private mutating func makeUnique() {
        // Asked before binding the storage (a binding is a reference more).
        guard !isKnownUniquelyReferenced(&storage), let shared = storage else { return }
        storage = shared.copy()
    }

    /// Inserts an element whose ID is not in the table.
    private mutating func insertNew(_ element: consuming Element, tag: UInt32) {
        let buckets = storage?.buckets ?? 0
        if count + 1 > Self.capacity(ofBuckets: buckets) {
            resize(to: max(8, buckets * 2))
        } else {
            makeUnique()
        }
        storage.unsafelyUnwrapped.insert(element, tag: tag)
        count += 1
    }

    /// Moves every element into a table of `buckets` buckets (a power of two).
    private mutating func resize(to buckets: Int) {
        let resized = ObjectIDTableStorage<Element>(buckets: buckets)
        // Asked before binding the storage (a binding is a reference more): elements of buckets
        // no copy shares are moved, shared ones copied.
        let unique = isKnownUniquelyReferenced(&storage)
        if let old = storage {
            for bucket in 0..<old.buckets where old.tags[bucket] != 0 {
                if unique {
                    resized.insert(old.take(at: bucket), tag: old.tags[bucket])
                    old.tags[bucket] = 0  // moved out: its deinit must not destroy it again
                } else {
                    resized.insert(old.elements[bucket], tag: old.tags[bucket])
                }
            }
        }
        storage = resized
    }
}

/// The buckets of an ``ObjectIDTable``: a tag per bucket (0: empty) and the elements of the
/// occupied buckets, in memory of their own (an element is initialised only where its bucket's
/// tag is not 0, so a new table initialises its tags and nothing else).
final class ObjectIDTableStorage<Element: ObjectIDTableElement> {
    /// The number of buckets: a power of two, at least 8.
    let buckets: Int
    /// Per bucket: 0 when empty, else the tag of the element's ID.
    let tags: UnsafeMutablePointer<UInt32>
    /// Per bucket: the element, initialised only where the tag is not 0.
    let elements: UnsafeMutablePointer<Element>

    private var mask: Int { buckets - 1 }

    init(buckets: Int) {
        precondition(buckets >= 8 && buckets & (buckets - 1) == 0 && buckets <= 1 << 31, "a table of \(buckets) buckets")
        self.buckets = buckets
        tags = .allocate(capacity: buckets)
        tags.initialize(repeating: 0, count: buckets)
        elements = .allocate(capacity: buckets)
    }

    deinit {
        for bucket in 0..<buckets where tags[bucket] != 0 { (elements + bucket).deinitialize(count: 1) }
        tags.deallocate()
        elements.deallocate()
    }

    /// A table with the same elements in the same buckets.
    func copy() -> ObjectIDTableStorage {
        let copy = ObjectIDTableStorage(buckets: buckets)
        for bucket in 0..<buckets where tags[bucket] != 0 {
            copy.tags[bucket] = tags[bucket]
            (copy.elements + bucket).initialize(to: elements[bucket])
        }
        return copy
    }

    /// Whether `bucket` is a bucket of the table holding an element.
    func isOccupied(_ bucket: Int) -> Bool { bucket >= 0 && bucket < buckets && tags[bucket] != 0 }

    /// The bucket holding the element of `id`, whose tag is `wanted`, or nil. The table always
    /// has an empty bucket (it fills to seven eighths), so the probe ends.
    func find(_ id: ObjectID, tag wanted: UInt32) -> Int? {
        var bucket = Int(wanted) & mask
        while tags[bucket] != 0 {
            if tags[bucket] == wanted, elements[bucket].tableKey == id { return bucket }
            bucket = (bucket + 1) & mask
        }
        return nil
    }

    /// Puts an element whose ID is not in the table into the first empty bucket from its own
    /// (the caller made sure there is room).
    func insert(_ element: consuming Element, tag: UInt32) {
        var bucket = Int(tag) & mask
        while tags[bucket] != 0 { bucket = (bucket + 1) & mask }
        tags[bucket] = tag
        (elements + bucket).initialize(to: element)
    }

    /// Moves the element out of an occupied bucket, leaving the bucket's tag for ``put(_:at:)``
    /// or ``closeHole(at:)`` (the caller calls one of them before anything else).
    func take(at bucket: Int) -> Element {
        (elements + bucket).move()
    }

    /// Puts an element of the same ID back into the bucket ``take(at:)`` emptied.
    func put(_ element: consuming Element, at bucket: Int) {
        (elements + bucket).initialize(to: element)
    }

    /// Empties a bucket whose element was taken out, shifting back the elements after it that
    /// probed past it, so every element stays reachable from its own bucket without tombstones.
    func closeHole(at index: Int) {
        var hole = index
        tags[hole] = 0
        var next = (hole + 1) & mask
        while tags[next] != 0 {
            let home = Int(tags[next]) & mask
            // The element at `next` may fill the hole unless its home lies cyclically in (hole, next].
            if (next - home) & mask >= (next - hole) & mask {
                tags[hole] = tags[next]
                (elements + hole).moveInitialize(from: elements + next, count: 1)
                tags[next] = 0
                hole = next
            }
            next = (next + 1) & mask
        }
    }
}
