/// The primary keys of a read of several rows by key (faults filled together: to-one
/// prefetching, a batch of a batched fetch) when they are dense: the smallest and the largest,
/// and which keys between them were asked for, one bit each.
///
/// Rows whose keys lie close together (objects inserted together, the destinations of a to-one
/// whose sources were fetched in key order) are read with `Z_PK BETWEEN ?1 AND ?2`, a range of
/// the table's b-tree stepped in order, instead of `Z_PK IN (SELECT value FROM json_each(?1))`,
/// which writes every key as text, parses the JSON, builds a temporary index of the keys and
/// seeks each row. Rows in the range that were not asked for are skipped after reading their
/// key; the range is used only when it holds at most twice as many keys as were asked for
/// (``maximumSpread``), so the skipped rows never cost more than the rows read.
struct SQLiteKeySpan {
    /// The range may hold at most this many keys per key asked for.
    static let maximumSpread = 2

    /// The smallest key asked for.
    let low: Int64
    /// The largest key asked for.
    let high: Int64
    /// Bit `key - low` is set for each key asked for.
    private var wanted: [UInt64]

    /// The span of `keys`, or nil when they are empty or too sparse for a range read.
    init?(_ keys: [Int64]) {
        guard var low = keys.first else { return nil }
        var high = low
        for key in keys {
            if key < low { low = key }
            if key > high { high = key }
        }
        // The width as an unsigned number of keys minus one: no overflow for any two Int64s.
        let width = UInt64(bitPattern: high &- low)
        guard width < UInt64(keys.count) * UInt64(Self.maximumSpread) else { return nil }
        self.low = low
        self.high = high
        wanted = Array(repeating: 0, count: Int(width / 64) + 1)
        for key in keys {
            let offset = UInt64(bitPattern: key &- low)
            wanted[Int(offset / 64)] |= 1 << (offset % 64)
        }
    }

    /// Whether `key` was asked for (false outside the span).
    func contains(_ key: Int64) -> Bool {
        guard key >= low, key <= high else { return false }
        let offset = UInt64(bitPattern: key &- low)
        return wanted[Int(offset / 64)] & (1 << (offset % 64)) != 0
    }
}
