/// An element of an ``ObjectIDTable``: it carries the ID it is found by.
protocol ObjectIDTableElement {
    /// The ID the element is found by; it must not change while the element is in a table.
    var tableKey: ObjectID { get }
}

/// A table of elements found by the object IDs they carry: the coordinator's row cache
/// (``RowCache``, whose elements are rows) and a context's registered objects
/// (``ObjectRegistry``, whose elements are the objects).
///
/// **Dense segments by primary key.** Most IDs are an entity's integer key in one store
/// (SQLite's `Z_PK`, the atomic stores' numbers, this process's temporary IDs), and the keys of
/// one entity and store are mostly consecutive. Such an ID goes into its scope's *segment*: an
/// array of elements indexed by the key less the segment's first key, with a byte per slot that
/// says whether it is occupied. Finding one is a subtraction and a bounds check; rows fetched
/// in key order are read and written one after the other in memory, rather than at random
/// places of a hash table (two readers of one coordinator each missed the cache on every row of
/// the shared row cache, and held its lock the while; W13 in docs/benchmarks.md), and a slot
/// is the element alone, with no tag and no empty seven eighths. A segment grows only while it
/// stays dense: at most four slots per element it holds (plus a small fixed allowance), so keys
/// a store file chose far apart cannot make a table allocate memory in proportion to them; such
/// IDs, and IDs with a string or UUID reference, go to the hashed part. Invariant: an ID whose
/// key lies inside its scope's segment is in the segment, never in the hashed part (a segment
/// that grows takes in the hashed elements its new range covers).
///
/// **The hashed part** is an open-addressing table (linear probing, deletion by shifting back,
/// no tombstones) rather than a `[ObjectID: Element]`, for memory: a dictionary keeps the ID
/// twice (as its key and in the element) and at most three quarters of its buckets full. Here a
/// bucket is the element and a 4-byte tag, and the table fills to seven eighths. The tag is the
/// key's hash with its top bit set (0: empty), so a probe compares tags and reads an element's
/// ID only when they match; the table's seed is random, so keys a store file chose cannot be
/// made to collide.
///
/// A copy of the value shares its memory until one of the two changes (copy on write); the
/// elements live in memory of the table's own (a Swift array of them cost 515 instructions per
/// fetched object more, in copies). Not thread-safe: its owner guards it (the coordinator's
/// lock; a context is used from one isolation domain at a time).
struct ObjectIDTable<Element: ObjectIDTableElement> {
    /// Where an element is (valid until the next insertion or removal): a bucket of the hashed
    /// part (0 and up), or a segment's slot (below 0, see ``segmentIndex(_:slot:)``).
    typealias Index = Int

    /// The hashed part's buckets (nil until its first element).
    private var storage: ObjectIDTableStorage<Element>?
    /// The number of elements in the hashed part.
    private var hashedCount = 0
    /// The dense segments, one per scope that has one (few: a table holds the IDs of a handful
    /// of entities).
    private var segments: [ObjectIDTableSegment<Element>] = []
    /// The number of elements.
    private(set) var count = 0
    /// Mixed into every hash: per table, random.
    private let seed = Int.random(in: .min ... .max)

    /// An empty table.
    init() {}

    /// Whether the table holds no element.
    var isEmpty: Bool { count == 0 }

    /// The slots of the dense segments and the buckets of the hashed part: what the table's
    /// memory is in proportion to.
    var slotCount: (segments: Int, buckets: Int) { (segments.reduce(0) { $0 + $1.capacity }, storage?.buckets ?? 0) }

    /// The largest number of elements `buckets` buckets hold (seven eighths of them).
    private static func capacity(ofBuckets buckets: Int) -> Int { buckets - buckets / 8 }

    /// The tag of an ID: its hash's low 32 bits with the top bit set. A table has at most 2^31
    /// buckets, so the tag also gives the bucket an element belongs in (`tag & mask`).
    @inline(__always)
    private func tag(of id: ObjectID) -> UInt32 {
        UInt32(truncatingIfNeeded: id._rawHashValue(seed: seed)) | 0x8000_0000
    }

    /// The index of slot `slot` of segment `segment`: negative, so it never names a bucket.
    @inline(__always)
    private static func segmentIndex(_ segment: Int, slot: Int) -> Index { -1 - (segment << 40 | slot) }

    /// The segment and slot of a negative index.
    @inline(__always)
    private static func segmentAndSlot(of index: Index) -> (segment: Int, slot: Int) {
        let bits = -1 - index
        return (bits >> 40, bits & (1 << 40 - 1))
    }

    /// The position of the segment of scope `scope` in ``segments``, or nil.
    @inline(__always)
    private func segmentPosition(ofScope scope: Int) -> Int? {
        for position in segments.indices where segments[position].scope == scope { return position }
        return nil
    }

    // MARK: Finding

    /// The segment and slot that are the place of `id` (occupied or not), when its scope's
    /// segment covers its key; nil otherwise (the ID's place is then in the hashed part).
    @inline(__always)
    private func segmentSlot(of id: ObjectID) -> (position: Int, slot: Int)? {
        guard let (scope, key) = id.denseKey, let position = segmentPosition(ofScope: scope),
            let slot = segments[position].slot(ofKey: key)
        else { return nil }
        return (position, slot)
    }

    /// The bucket of the hashed part holding the element of `id`, or nil (for an ID whose place
    /// is not in a segment, ``segmentSlot(of:)``).
    @inline(__always)
    private func hashedIndex(forKey id: ObjectID) -> Index? {
        guard hashedCount > 0, let storage else { return nil }
        return storage.find(id, tag: tag(of: id))
    }

    /// Where the element of `id` is, or nil.
    func index(forKey id: ObjectID) -> Index? {
        guard count > 0 else { return nil }
        if let (position, slot) = segmentSlot(of: id) {
            return segments[position].isOccupied(slot) ? Self.segmentIndex(position, slot: slot) : nil
        }
        return hashedIndex(forKey: id)
    }

    /// The element at an index ``index(forKey:)`` returned.
    subscript(index: Index) -> Element {
        // Lent, not copied: reading one field of a row (`table[index].holders`) copied the whole
        // row, a retain and a release of each reference it holds (6 % of two readers' CPU, W13).
        _read {
            // An index comes from index(forKey:), whose place holds an element until the next
            // insertion or removal, and callers use it before either.
            if index < 0 {
                let (segment, slot) = Self.segmentAndSlot(of: index)
                precondition(segment < segments.count && segments[segment].isOccupied(slot), "a table index used after the table changed")
                yield segments[segment].elements[slot]
            } else {
                precondition(storage?.isOccupied(index) == true, "a table index used after the table changed")
                yield storage.unsafelyUnwrapped.elements[index]
            }
        }
        _modify {
            // Changed in place (the caller keeps its ID).
            if index < 0 {
                let (segment, slot) = Self.segmentAndSlot(of: index)
                precondition(segment < segments.count && segments[segment].isOccupied(slot), "a table index used after the table changed")
                makeSegmentUnique(segment)
                yield &segments[segment].elements[slot]
            } else {
                precondition(storage?.isOccupied(index) == true, "a table index used after the table changed")
                makeUnique()
                yield &storage.unsafelyUnwrapped.elements[index]
            }
        }
    }

    /// The element of an ID; setting nil removes it, setting an element inserts or replaces it
    /// (the element's ID must be `id`).
    subscript(id: ObjectID) -> Element? {
        get { index(forKey: id).map { self[$0] } }
        _modify {
            // The ID's place, found once: an empty slot of its segment is filled in place
            // without looking the ID up again.
            var found: Index?
            var emptySlot: (position: Int, slot: Int)?
            if let (position, slot) = segmentSlot(of: id) {
                if segments[position].isOccupied(slot) { found = Self.segmentIndex(position, slot: slot) } else { emptySlot = (position, slot) }
            } else {
                found = hashedIndex(forKey: id)
            }
            var element: Element?
            if let found { element = take(at: found) }
            defer {
                // Moved back out of the optional (`if let` would copy it: a retain and a release
                // of each reference the element holds).
                if let element = element.take() {
                    if let found {
                        put(element, at: found)
                    } else if let (position, slot) = emptySlot {
                        makeSegmentUnique(position)
                        segments[position].put(element, atSlot: slot)
                        count += 1
                    } else {
                        insertNew(element)
                    }
                } else if let found {
                    closeHole(at: found)
                }
            }
            yield &element
        }
    }

    /// The elements, in no particular order: a snapshot (the table may change while it is
    /// iterated; the first change then gives the table memory of its own).
    var values: Values { Values(segments: segments, storage: storage, count: count) }

    /// ``ObjectIDTable/values``.
    struct Values: Sequence {
        fileprivate let segments: [ObjectIDTableSegment<Element>]
        fileprivate let storage: ObjectIDTableStorage<Element>?
        fileprivate let count: Int

        func makeIterator() -> Iterator { Iterator(segments: segments, storage: storage) }

        /// The elements of the occupied slots of each segment, then of the occupied buckets.
        struct Iterator: IteratorProtocol {
            fileprivate let segments: [ObjectIDTableSegment<Element>]
            fileprivate let storage: ObjectIDTableStorage<Element>?
            fileprivate var segment = 0
            fileprivate var slot = 0
            fileprivate var bucket = 0

            mutating func next() -> Element? {
                while segment < segments.count {
                    let current = segments[segment]
                    while slot < current.capacity {
                        defer { slot += 1 }
                        if current.isOccupied(slot) { return current.elements[slot] }
                    }
                    segment += 1
                    slot = 0
                }
                guard let storage else { return nil }
                while bucket < storage.buckets {
                    defer { bucket += 1 }
                    if storage.tags[bucket] != 0 { return storage.elements[bucket] }
                }
                return nil
            }
        }

        var underestimatedCount: Int { count }
    }

    // MARK: Changing

    /// Makes room for `minimumCount` elements in the hashed part without growing it again (for
    /// elements that may not have dense keys; ``reserveCapacity(forKeysOf:_:)`` places those that
    /// do).
    mutating func reserveCapacity(_ minimumCount: Int) {
        var buckets = max(storage?.buckets ?? 0, 8)
        while Self.capacity(ofBuckets: buckets) < minimumCount { buckets *= 2 }
        if buckets != storage?.buckets { resize(to: buckets) }
    }

    /// Makes room for the elements of `keys` (each element's ID given by `key`) before they are
    /// put in one by one: a scope whose keys in the batch are dense gets a segment covering
    /// exactly their range (and what it covered before), the other IDs room in the hashed part.
    /// One pass over the batch, then at most one allocation per scope: a fetch of 100,000 rows
    /// grows nothing while its rows go in.
    mutating func reserveCapacity<Keys: Sequence>(forKeysOf keys: Keys, _ key: (Keys.Element) -> ObjectID) {
        var batch = ReservationBatch()
        for element in keys { batch.add(key(element)) }
        reserve(batch)
    }

    /// ``reserveCapacity(forKeysOf:_:)`` for an array, whose elements are lent to `key` rather
    /// than copied (a fetch's nodes: a copy retains and releases each reference of the node).
    mutating func reserveCapacity<Key>(forKeysOf keys: [Key], _ key: (borrowing Key) -> ObjectID) {
        var batch = ReservationBatch()
        // Safe: the pointer is used only inside the closure, while `keys` (a constant parameter)
        // keeps its storage alive and unchanged.
        keys.withUnsafeBufferPointer { keys in
            for index in keys.indices { batch.add(key(keys[index])) }
        }
        reserve(batch)
    }

    /// What a batch about to be put in holds: per scope, its lowest and highest key and how
    /// many, and how many IDs have no dense key. A batch usually holds one or two scopes, so a
    /// short array is searched.
    private struct ReservationBatch {
        var ranges: [(scope: Int, lowest: Int64, highest: Int64, count: Int)] = []
        var hashed = 0
        private var last = -1

        @inline(__always)
        mutating func add(_ id: ObjectID) {
            guard let (scope, denseKey) = id.denseKey else {
                hashed += 1
                return
            }
            if last < 0 || ranges[last].scope != scope {
                last = ranges.firstIndex { $0.scope == scope } ?? -1
                if last < 0 {
                    ranges.append((scope, denseKey, denseKey, 0))
                    last = ranges.count - 1
                }
            }
            ranges[last].lowest = min(ranges[last].lowest, denseKey)
            ranges[last].highest = max(ranges[last].highest, denseKey)
            ranges[last].count += 1
        }
    }

    /// Places the segments a batch needs and reserves room in the hashed part for the rest.
    private mutating func reserve(_ batch: ReservationBatch) {
        var hashed = batch.hashed
        for range in batch.ranges {
            let position = segmentPosition(ofScope: range.scope)
            let held = position.map { segments[$0].count } ?? 0
            var lowest = range.lowest
            var highest = range.highest
            if let position {
                lowest = min(lowest, segments[position].firstKey)
                highest = max(highest, segments[position].lastKey)
            }
            guard let slots = Self.denseSlots(from: lowest, to: highest, holding: held + range.count) else {
                hashed += range.count
                continue
            }
            if let position, segments[position].firstKey == lowest, segments[position].capacity == slots { continue }
            placeSegment(ofScope: range.scope, at: position, firstKey: lowest, capacity: slots)
        }
        if hashed > 0 { reserveCapacity(hashedCount + hashed) }
    }

    /// ``DenseKeyRange/slots(from:to:holding:)``.
    private static func denseSlots(from lowest: Int64, to highest: Int64, holding elements: Int) -> Int? {
        DenseKeyRange.slots(from: lowest, to: highest, holding: elements)
    }

    /// Gives scope `scope` a segment of `capacity` slots from `firstKey` (its segment at
    /// `position` moved into it, and the hashed elements of the scope the new range covers).
    private mutating func placeSegment(ofScope scope: Int, at position: Int?, firstKey: Int64, capacity: Int) {
        let segment = ObjectIDTableSegment<Element>(scope: scope, firstKey: firstKey, capacity: capacity)
        if let position {
            // Asked before binding the old segment (a binding is a reference more): elements of
            // a segment no copy shares are moved, shared ones copied.
            let unique = isKnownUniquelyReferenced(&segments[position])
            let old = segments[position]
            for slot in 0..<old.capacity where old.isOccupied(slot) {
                let key = old.firstKey + Int64(slot)
                if unique {
                    segment.put(old.take(at: slot), atKey: key)
                } else {
                    segment.put(old.elements[slot], atKey: key)
                }
            }
            segments[position] = segment
        } else {
            segments.append(segment)
        }
        // The invariant: no hashed element of the scope lies in the segment's range.
        guard hashedCount > 0 else { return }
        var covered: [(id: ObjectID, key: Int64)] = []
        if let storage {
            for bucket in 0..<storage.buckets where storage.tags[bucket] != 0 {
                let id = storage.elements[bucket].tableKey
                if let (elementScope, key) = id.denseKey, elementScope == scope, segment.slot(ofKey: key) != nil {
                    covered.append((id, key))
                }
            }
        }
        for (id, key) in covered {
            guard let bucket = storage?.find(id, tag: tag(of: id)) else { continue }
            makeUnique()
            let element = storage.unsafelyUnwrapped.take(at: bucket)
            storage.unsafelyUnwrapped.closeHole(at: bucket)
            hashedCount -= 1
            segment.put(element, atKey: key)
        }
    }

    /// Puts `element` in for its ID; the element it replaced, if any.
    @discardableResult
    mutating func updateValue(_ element: consuming Element) -> Element? {
        // Inside its scope's segment the slot is the element's place, taken or not: no second
        // lookup to insert it.
        if let (position, slot) = segmentSlot(of: element.tableKey) {
            makeSegmentUnique(position)
            let segment = segments[position]
            if segment.isOccupied(slot) {
                let earlier = segment.take(at: slot)
                segment.put(element, atSlot: slot)
                return earlier
            }
            segment.put(element, atSlot: slot)
            count += 1
            return nil
        }
        if let found = hashedIndex(forKey: element.tableKey) {
            let earlier = take(at: found)
            put(element, at: found)
            return earlier
        }
        insertNew(element)
        return nil
    }

    /// Changes the element of `id` in place with `change` when the table has one, else puts in
    /// the element `make` gives (whose ID must be `id`): one lookup either way.
    @inline(__always)
    mutating func update(_ id: ObjectID, orInsert make: () -> Element, change: (inout Element) -> Void) {
        if let (position, slot) = segmentSlot(of: id) {
            makeSegmentUnique(position)
            let segment = segments[position]
            if segment.isOccupied(slot) {
                change(&segment.elements[slot])
            } else {
                segment.put(make(), atSlot: slot)
                count += 1
            }
            return
        }
        if let found = hashedIndex(forKey: id) {
            makeUnique()
            change(&storage.unsafelyUnwrapped.elements[found])
            return
        }
        insertNew(make())
    }

    /// Removes the element at an index ``index(forKey:)`` returned.
    mutating func remove(at index: Index) {
        if index < 0 {
            let (segment, slot) = Self.segmentAndSlot(of: index)
            precondition(segment < segments.count && segments[segment].isOccupied(slot), "a table index used after the table changed")
        } else {
            precondition(storage?.isOccupied(index) == true, "a table index used after the table changed")
        }
        _ = take(at: index)
        closeHole(at: index)
    }

    /// Moves the element of `id` to the ID `change` gives it, within the table: the element is
    /// taken out, changed and put in again, never copied (no reference counted). An element
    /// already at the new ID is replaced. False when `id` is not in the table.
    mutating func rekey(_ id: ObjectID, _ change: (inout Element) -> Void) -> Bool {
        guard let found = index(forKey: id) else { return false }
        var element = take(at: found)
        closeHole(at: found)
        change(&element)
        updateValue(element)
        return true
    }

    /// Removes the element of an ID; the element, if there was one.
    @discardableResult
    mutating func removeValue(forKey id: ObjectID) -> Element? {
        guard let found = index(forKey: id) else { return nil }
        let element = take(at: found)
        closeHole(at: found)
        return element
    }

    /// Removes every element `shouldBeRemoved` is true of.
    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        var kept: [Element] = []
        kept.reserveCapacity(count)
        for element in values where try !shouldBeRemoved(element) { kept.append(element) }
        guard kept.count != count else { return }
        self = ObjectIDTable()
        reserveCapacity(forKeysOf: kept) { $0.tableKey }
        for element in kept { insertNew(element) }
    }

    // MARK: The table

    /// Moves the element at `index` out, leaving its place for ``put(_:at:)`` or
    /// ``closeHole(at:)`` (the caller calls one of them before anything else).
    private mutating func take(at index: Index) -> Element {
        if index < 0 {
            let (segment, slot) = Self.segmentAndSlot(of: index)
            makeSegmentUnique(segment)
            return segments[segment].take(at: slot)
        }
        makeUnique()
        return storage.unsafelyUnwrapped.take(at: index)
    }

    /// Puts an element of the same ID back where ``take(at:)`` emptied.
    private mutating func put(_ element: consuming Element, at index: Index) {
        if index < 0 {
            let (segment, slot) = Self.segmentAndSlot(of: index)
            segments[segment].put(element, atSlot: slot)
        } else {
            storage.unsafelyUnwrapped.put(element, at: index)
        }
    }

    /// Counts the element ``take(at:)`` moved out as removed: a segment's slot is marked empty
    /// (a segment left empty is dropped), a bucket's hole closed.
    private mutating func closeHole(at index: Index) {
        count -= 1
        if index < 0 {
            let (segment, _) = Self.segmentAndSlot(of: index)
            if segments[segment].count == 0 { segments.remove(at: segment) }
        } else {
            hashedCount -= 1
            storage.unsafelyUnwrapped.closeHole(at: index)
        }
    }

    /// Gives this value buckets of its own when a copy shares them.
    private mutating func makeUnique() {
        // Asked before binding the storage (a binding is a reference more).
        guard !isKnownUniquelyReferenced(&storage), let shared = storage else { return }
        storage = shared.copy()
    }

    /// Gives this value a segment of its own when a copy shares it.
    private mutating func makeSegmentUnique(_ position: Int) {
        guard !isKnownUniquelyReferenced(&segments[position]) else { return }
        segments[position] = segments[position].copy()
    }

    /// Inserts an element whose ID is not in the table: into its scope's segment when its key
    /// is inside it or the segment can grow to it and stay dense, into a new segment when its
    /// scope has none, else into the hashed part.
    private mutating func insertNew(_ element: consuming Element) {
        let id = element.tableKey
        if let (scope, key) = id.denseKey {
            if let position = segmentPosition(ofScope: scope) {
                if segments[position].slot(ofKey: key) == nil {
                    let segment = segments[position]
                    if let (firstKey, slots) = DenseKeyRange.grown(
                        firstKey: segment.firstKey, capacity: segment.capacity, holding: segment.count, toReach: key)
                    {
                        placeSegment(ofScope: scope, at: position, firstKey: firstKey, capacity: slots)
                    }
                }
                if segments[position].slot(ofKey: key) != nil {
                    makeSegmentUnique(position)
                    segments[position].put(element, atKey: key)
                    count += 1
                    return
                }
            } else {
                // A new scope: a small segment from its first key.
                // (Fewer slots when the key is within 16 of the largest key, so that every slot's
                // key exists: a segment's last key is `firstKey + capacity - 1`.)
                placeSegment(ofScope: scope, at: nil, firstKey: key, capacity: key > .max - 15 ? Int(.max - key) + 1 : 16)
                segments[segments.count - 1].put(element, atKey: key)
                count += 1
                return
            }
        }
        let wanted = tag(of: id)
        let buckets = storage?.buckets ?? 0
        if hashedCount + 1 > Self.capacity(ofBuckets: buckets) {
            resize(to: max(8, buckets * 2))
        } else {
            makeUnique()
        }
        storage.unsafelyUnwrapped.insert(element, tag: wanted)
        hashedCount += 1
        count += 1
    }

    /// Moves every hashed element into a hashed part of `buckets` buckets (a power of two).
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

/// A dense segment of an ``ObjectIDTable``: the elements of one scope whose keys lie in
/// `firstKey ..< firstKey + capacity`, each in the slot of its key, with a byte per slot saying
/// whether it is occupied (an element is initialised only where it is).
final class ObjectIDTableSegment<Element: ObjectIDTableElement> {
    /// The scope's ``ObjectIDScope/number``.
    let scope: Int
    /// The key of slot 0.
    let firstKey: Int64
    /// The number of slots (never more than the keys from ``firstKey`` to `Int64.max`).
    let capacity: Int

    /// The key of the last slot.
    var lastKey: Int64 { firstKey + Int64(capacity - 1) }
    /// Per slot: 1 when it holds an element, else 0.
    private let occupied: UnsafeMutablePointer<UInt8>
    /// Per slot: the element, initialised only where the slot is occupied.
    let elements: UnsafeMutablePointer<Element>
    /// The number of occupied slots.
    private(set) var count = 0

    init(scope: Int, firstKey: Int64, capacity: Int) {
        self.scope = scope
        self.firstKey = firstKey
        self.capacity = capacity
        occupied = .allocate(capacity: capacity)
        occupied.initialize(repeating: 0, count: capacity)
        elements = .allocate(capacity: capacity)
    }

    deinit {
        for slot in 0..<capacity where occupied[slot] != 0 { (elements + slot).deinitialize(count: 1) }
        occupied.deallocate()
        elements.deallocate()
    }

    /// A segment with the same elements in the same slots.
    func copy() -> ObjectIDTableSegment {
        let copy = ObjectIDTableSegment(scope: scope, firstKey: firstKey, capacity: capacity)
        for slot in 0..<capacity where occupied[slot] != 0 {
            copy.occupied[slot] = 1
            (copy.elements + slot).initialize(to: elements[slot])
        }
        copy.count = count
        return copy
    }

    /// The slot of `key`, or nil when the segment does not cover it.
    @inline(__always)
    func slot(ofKey key: Int64) -> Int? {
        let (offset, overflow) = key.subtractingReportingOverflow(firstKey)
        guard !overflow, offset >= 0, offset < Int64(capacity) else { return nil }
        return Int(offset)
    }

    /// Whether `slot` is a slot of the segment holding an element.
    @inline(__always)
    func isOccupied(_ slot: Int) -> Bool { slot >= 0 && slot < capacity && occupied[slot] != 0 }

    /// Puts an element into the empty slot of `key` (the segment covers it).
    func put(_ element: consuming Element, atKey key: Int64) {
        put(element, atSlot: Int(key - firstKey))
    }

    /// Puts an element into an empty slot.
    func put(_ element: consuming Element, atSlot slot: Int) {
        precondition(slot >= 0 && slot < capacity && occupied[slot] == 0, "a segment slot filled twice")
        occupied[slot] = 1
        count += 1
        (elements + slot).initialize(to: element)
    }

    /// Moves the element out of an occupied slot, leaving it empty.
    func take(at slot: Int) -> Element {
        occupied[slot] = 0
        count -= 1
        return (elements + slot).move()
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

/// The rule by which a dense range of integer keys (an ``ObjectIDTable`` segment, a
/// ``RowCache`` run) is sized and grown.
enum DenseKeyRange {
    /// The number of slots of a range from key `lowest` to `highest`, when a range that large
    /// holding `elements` elements is dense enough (at most four slots per element, and 64
    /// slots whatever it holds); nil otherwise.
    static func slots(from lowest: Int64, to highest: Int64, holding elements: Int) -> Int? {
        let (span, overflow) = highest.subtractingReportingOverflow(lowest)
        guard !overflow, span >= 0, span < Int64(4 * elements + 64), span < 1 << 40 - 1 else { return nil }
        return Int(span) + 1
    }

    /// The first key and slots of a range of `capacity` slots from `firstKey`, holding
    /// `elements`, grown to take `key` (outside it): to twice its slots towards the key (or to
    /// the key), or else just to the key, whichever stays dense with one element more; nil when
    /// neither does.
    static func grown(firstKey: Int64, capacity: Int, holding elements: Int, toReach key: Int64) -> (firstKey: Int64, slots: Int)? {
        let lastKey = firstKey + Int64(capacity - 1)
        // Saturating at the ends of the key space: keys come from store files.
        let span = Int64(2 * capacity) - 1
        let down = lastKey.subtractingReportingOverflow(span)
        let up = firstKey.addingReportingOverflow(span)
        let lowest = key < firstKey ? min(key, down.overflow ? .min : down.partialValue) : firstKey
        let highest = key > lastKey ? max(key, up.overflow ? .max : up.partialValue) : lastKey
        if let slots = slots(from: lowest, to: highest, holding: elements + 1) { return (lowest, slots) }
        if let slots = slots(from: min(key, firstKey), to: max(key, lastKey), holding: elements + 1) { return (min(key, firstKey), slots) }
        return nil
    }
}
