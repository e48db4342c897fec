/// CRC-32 (the IEEE polynomial zlib and PNG use), so the end line of a PipeCSV file detects a
/// truncated, corrupted or partly edited file. Written here because the PipeCSV store depends on
/// Foundation only.
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }

    private var state: UInt32 = 0xFFFF_FFFF

    /// A checksum over no bytes yet.
    init() {}

    /// Adds bytes to the checksum.
    mutating func update<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let table = Self.table
        var crc = state
        for byte in bytes { crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        state = crc
    }

    /// The checksum of the bytes added so far.
    var value: UInt32 { state ^ 0xFFFF_FFFF }

    /// The checksum as eight lowercase hexadecimal digits.
    var hex: String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
