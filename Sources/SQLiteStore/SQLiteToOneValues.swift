import StoreCore

/// The `.objectID` values of the to-one slots made while reading the rows of one statement, so
/// that rows pointing at the same destination share one value.
///
/// An `.objectID` value is boxed (``StoreValue`` keeps its other cases at 24 bytes), so each new
/// one is an allocation that the row, the row cache and the object keep alive. Persons of a
/// hundred teams read in one fetch thus hold a hundred boxes instead of one per person. The
/// table is direct-mapped by the destination's primary key (a miss just makes a new value), is
/// made on the first to-one read, grows while it misses often (up to ``largest`` entries, so it
/// never holds more than about half as many entries as rows were read), and lives as long as
/// the reading loop.
struct SQLiteToOneValues {
    /// The entries of a new table (a power of two).
    private static let smallest = 128
    /// The most entries a table grows to (a power of two; about 900 KiB).
    private static let largest = 16_384
    private var entries: [(id: ObjectID, value: StoreValue)?] = []
    /// Misses since the table was made at its present size.
    private var misses = 0
    /// Whether values are remembered (not for a single row: the table would cost more than it saves).
    private let sharing: Bool

    /// An empty table (nothing is allocated until a to-one is read); with `sharing` false, every
    /// value is made anew (a single row).
    init(sharing: Bool = true) { self.sharing = sharing }

    /// The value `.objectID(id)`: the one made for an earlier row when it named the same
    /// destination, else a new one (remembered for the next rows). `key` is the destination's
    /// primary key, which picks the entry.
    mutating func value(of id: ObjectID, key: Int64) -> StoreValue {
        guard sharing else { return .objectID(id) }
        if entries.isEmpty { entries = Array(repeating: nil, count: Self.smallest) }
        let index = Int(truncatingIfNeeded: key) & (entries.count - 1)
        if let entry = entries[index], entry.id == id { return entry.value }
        let value = StoreValue.objectID(id)
        misses += 1
        if misses > 2 * entries.count, entries.count < Self.largest {
            // More destinations than entries: start over twice as large.
            entries = Array(repeating: nil, count: entries.count * 2)
            misses = 0
        }
        entries[Int(truncatingIfNeeded: key) & (entries.count - 1)] = (id, value)
        return value
    }
}
