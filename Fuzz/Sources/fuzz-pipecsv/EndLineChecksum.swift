import Foundation

/// Recomputes the CRC-32 of a PipeCSV data file's end line (`#PipeCSV-end|records=N|crc32=X`)
/// over the bytes before it, so that mutations of a framed file reach the record parser instead
/// of stopping at the checksum (the record count is left as it is: libFuzzer's comparison
/// tracing finds it).
enum EndLineChecksum {
    static let marker = Array("#PipeCSV-end|".utf8)
    static let field = Array("|crc32=".utf8)

    /// `bytes` with the checksum of its last end line recomputed; unchanged without one.
    static func recomputed(_ bytes: [UInt8]) -> [UInt8] {
        guard let start = lastLineStart(of: marker, in: bytes),
            let fieldStart = firstIndex(of: field, in: bytes, from: start)
        else { return bytes }
        let valueStart = fieldStart + field.count
        var valueEnd = valueStart
        while valueEnd < bytes.count, bytes[valueEnd] != 0x0A, bytes[valueEnd] != 0x7C { valueEnd += 1 }
        let hex = Array(String(crc32(bytes[..<start]), radix: 16).utf8)
        let padded = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, 8 - hex.count)) + hex
        return Array(bytes[..<valueStart]) + padded + Array(bytes[valueEnd...])
    }

    private static func lastLineStart(of prefix: [UInt8], in bytes: [UInt8]) -> Int? {
        var index = bytes.count - prefix.count
        while index >= 0 {
            if (index == 0 || bytes[index - 1] == 0x0A), bytes[index..<(index + prefix.count)].elementsEqual(prefix) { return index }
            index -= 1
        }
        return nil
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == 0x0A { return nil }
            if bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// The CRC-32 (IEEE, as zlib's) of `bytes`.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    private static let table: [UInt32] = (0..<256).map { index -> UInt32 in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
}
