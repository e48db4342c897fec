/// A bounded map from requests (by ``FetchRequestShape``, or by the request itself) to what
/// compiling them produced, forgetting the least recently used entries when it is full.
///
/// A lookup is one hash lookup and a counter update. When an insert finds the cache full, the
/// least recently used half is dropped at once (a sort of the use counters), so the cost of
/// eviction is amortised over as many inserts as it frees and the cache never holds more than
/// ``capacity`` entries. The owner serialises access (the coordinator's lock, a store's own
/// serial use).
package struct CompiledRequestCache<Key: Hashable, Value> {
    private var entries: [Key: (value: Value, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// The most entries kept.
    package let capacity: Int
    /// Lookups that found an entry, and lookups that did not.
    package private(set) var hits = 0
    package private(set) var misses = 0

    /// An empty cache keeping at most `capacity` entries (at least 2).
    package init(capacity: Int) {
        self.capacity = max(2, capacity)
    }

    /// The number of entries.
    package var count: Int { entries.count }

    /// The value stored for `key`, marking it as recently used.
    package mutating func value(for key: Key) -> Value? {
        guard let index = entries.index(forKey: key) else {
            misses += 1
            return nil
        }
        hits += 1
        clock &+= 1
        entries.values[index].lastUse = clock
        return entries.values[index].value
    }

    /// Stores `value` for `key`, dropping the least recently used half first when full.
    package mutating func insert(_ value: Value, for key: Key) {
        clock &+= 1
        if entries.count >= capacity && entries[key] == nil {
            let uses = entries.values.map(\.lastUse).sorted()
            let threshold = uses[uses.count / 2]
            entries = entries.filter { $0.value.lastUse > threshold }
        }
        entries[key] = (value, clock)
    }

    /// Forgets every entry (the counters of hits and misses stay).
    package mutating func removeAll() {
        entries.removeAll()
    }
}
