/// CRC-32 (the IEEE polynomial zlib and PNG use), so the end line of a PipeCSV file detects a
/// truncated, corrupted or partly edited file. Written here because the PipeCSV store depends on
/// Foundation only.
///
/// Computed eight bytes at a time ("slicing by 8": eight tables, one lookup per byte but no
/// dependency from one byte to the next), about four times faster than a byte at a time; the
/// checksum of a load is over the whole file.
struct CRC32 {
    /// `tables[k][b]`: the CRC of byte `b` followed by `k` zero bytes, flattened (256 entries
    /// per table).
    private static let tables: [UInt32] = {
        var tables = [UInt32](repeating: 0, count: 8 * 256)
        for index in 0..<256 {
            var value = UInt32(index)
            for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
            tables[index] = value
        }
        for index in 0..<256 {
            var value = tables[index]
            for table in 1..<8 {
                value = tables[Int(value & 0xFF)] ^ (value >> 8)
                tables[table * 256 + index] = value
            }
        }
        return tables
    }()

    private var state: UInt32 = 0xFFFF_FFFF

    /// A checksum over no bytes yet.
    init() {}

    /// Adds bytes to the checksum.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        if bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) != nil { return }
        Self.tables.withUnsafeBufferPointer { table in
            var crc = state
            for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
            state = crc
        }
    }

    /// Adds the bytes of a buffer to the checksum.
    mutating func update(_ buffer: UnsafeRawBufferPointer) {
        Self.tables.withUnsafeBufferPointer { table in
            var crc = state
            var index = 0
            let count = buffer.count
            // Every table index below is a byte (0...255) plus a multiple of 256 below 2048, and
            // every buffer read is below `count`.
            while index + 8 <= count {
                let low = crc ^ (UInt32(buffer[index]) | UInt32(buffer[index + 1]) << 8
                    | UInt32(buffer[index + 2]) << 16 | UInt32(buffer[index + 3]) << 24)
                let high = UInt32(buffer[index + 4]) | UInt32(buffer[index + 5]) << 8
                    | UInt32(buffer[index + 6]) << 16 | UInt32(buffer[index + 7]) << 24
                crc = table[7 * 256 + Int(low & 0xFF)] ^ table[6 * 256 + Int((low >> 8) & 0xFF)]
                    ^ table[5 * 256 + Int((low >> 16) & 0xFF)] ^ table[4 * 256 + Int(low >> 24)]
                    ^ table[3 * 256 + Int(high & 0xFF)] ^ table[2 * 256 + Int((high >> 8) & 0xFF)]
                    ^ table[1 * 256 + Int((high >> 16) & 0xFF)] ^ table[Int(high >> 24)]
                index += 8
            }
            while index < count {
                crc = table[Int((crc ^ UInt32(buffer[index])) & 0xFF)] ^ (crc >> 8)
                index += 1
            }
            state = crc
        }
    }

    /// The checksum of the bytes added so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// The checksum as eight lowercase hexadecimal digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
