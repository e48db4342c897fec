import Foundation

/// The fixed 44-byte header at the start of every Binary store file (`docs/binary-format.md`):
///
/// | offset | size | field |
/// |---|---|---|
/// | 0 | 8 | magic `89 50 53 42 49 4E 0A 1A` ("\x89PSBIN\n\x1A") |
/// | 8 | 2 | format version (1) |
/// | 10 | 2 | flags: bit 0 = the data section is deflated; other bits 0 |
/// | 12 | 4 | metadata section length |
/// | 16 | 4 | CRC-32 of the metadata section |
/// | 20 | 4 | CRC-32 of the data section as stored |
/// | 24 | 8 | data section length as stored |
/// | 32 | 8 | data section length after inflating (= stored length when not deflated) |
/// | 40 | 4 | CRC-32 of bytes 0–39 |
///
/// Integers are little-endian. The file is the header, the metadata section, the data section,
/// and nothing else, so its length must be 44 + metadata length + stored data length.
struct BinaryFileHeader: Equatable {
    /// The first eight bytes of every Binary store file.
    static let magic: [UInt8] = [0x89, 0x50, 0x53, 0x42, 0x49, 0x4E, 0x0A, 0x1A]
    /// The header's size in bytes.
    static let size = 44
    /// The format version this code writes and the newest it reads.
    static let currentVersion: UInt16 = 1
    /// Flag bit: the data section is deflated (zlib format).
    static let compressedFlag: UInt16 = 1

    /// The format version.
    var version: UInt16 = currentVersion
    /// The flag bits.
    var flags: UInt16 = 0
    /// The length of the metadata section.
    var metadataLength: UInt32 = 0
    /// The CRC-32 of the metadata section.
    var metadataChecksum: UInt32 = 0
    /// The CRC-32 of the data section as stored (deflated when compressed).
    var dataChecksum: UInt32 = 0
    /// The length of the data section as stored.
    var storedDataLength: UInt64 = 0
    /// The length of the data section after inflating.
    var dataLength: UInt64 = 0

    /// Whether the data section is deflated.
    var isCompressed: Bool { flags & Self.compressedFlag != 0 }

    /// The file's expected total length (`UInt64.max` when the fields overflow it).
    var fileLength: UInt64 {
        let (sum, overflow) = storedDataLength.addingReportingOverflow(UInt64(Self.size) + UInt64(metadataLength))
        return overflow ? .max : sum
    }

    /// The 44 header bytes, their CRC-32 included.
    var encoded: [UInt8] {
        let writer = BinaryWriter(capacity: Self.size)
        Self.magic.withUnsafeBytes { writer.bytes($0) }
        writer.fixed(version)
        writer.fixed(flags)
        writer.fixed(metadataLength)
        writer.fixed(metadataChecksum)
        writer.fixed(dataChecksum)
        writer.fixed(storedDataLength)
        writer.fixed(dataLength)
        writer.fixed(Zlib.crc32(writer.bytes))
        return Array(writer.bytes)
    }

    /// Whether `prefix` (the first bytes of a file, possibly fewer than eight) could start a
    /// Binary store file: the bytes it has match the magic.
    static func matchesMagic(_ prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        zip(prefix, magic).allSatisfy { $0 == $1 }
    }

    /// Reads and checks the header at the start of `bytes` (the magic already matched): the
    /// version, the header checksum, the flags, and the lengths against `fileLength`.
    init(reading bytes: UnsafeBufferPointer<UInt8>, fileLength: Int) throws(BinaryReadFailure) {
        var reader = BinaryReader(bytes)
        _ = try reader.bytes(Self.magic.count, "the magic bytes")
        version = try reader.fixed(UInt16.self, "the format version")
        guard version >= 1, version <= Self.currentVersion else {
            throw reader.failure(
                "the file has format version \(version); this reader knows versions 1 to \(Self.currentVersion)",
                at: 8)
        }
        flags = try reader.fixed(UInt16.self, "the flags")
        metadataLength = try reader.fixed(UInt32.self, "the metadata length")
        metadataChecksum = try reader.fixed(UInt32.self, "the metadata checksum")
        dataChecksum = try reader.fixed(UInt32.self, "the data checksum")
        storedDataLength = try reader.fixed(UInt64.self, "the data length")
        dataLength = try reader.fixed(UInt64.self, "the decompressed data length")
        let checksumStart = reader.position
        let stated = try reader.fixed(UInt32.self, "the header checksum")
        let actual = Zlib.crc32(UnsafeBufferPointer(rebasing: bytes[0..<checksumStart]))
        guard stated == actual else {
            throw reader.failure(
                "header checksum mismatch (stored \(Self.hex(stated)), computed \(Self.hex(actual))): the header is corrupted",
                at: checksumStart)
        }
        guard flags & ~Self.compressedFlag == 0 else {
            throw reader.failure("unknown flags 0x\(String(flags, radix: 16)) (this reader knows bit 0, compressed)", at: 10)
        }
        guard describesFile(ofLength: fileLength) else {
            throw reader.failure(
                "the file is \(fileLength) bytes long, but its header describes \(self.fileLength) bytes (\(Self.size) header + \(metadataLength) metadata + \(storedDataLength) data): the file is truncated or has extra bytes",
                at: min(fileLength, Self.size))
        }
        if isCompressed {
            guard dataLength / UInt64(Zlib.maximumRatio) <= storedDataLength, dataLength < UInt64(Int.max) else {
                throw reader.failure(
                    "the header says \(storedDataLength) deflated bytes inflate to \(dataLength), more than deflate can produce",
                    at: 32)
            }
        } else if dataLength != storedDataLength {
            throw reader.failure(
                "the data section is not compressed, yet its two lengths differ (\(storedDataLength) and \(dataLength))", at: 32)
        }
    }

    /// A header for sections of the given lengths and checksums.
    init(
        compressed: Bool, metadataLength: UInt32, metadataChecksum: UInt32, dataChecksum: UInt32,
        storedDataLength: UInt64, dataLength: UInt64
    ) {
        flags = compressed ? Self.compressedFlag : 0
        self.metadataLength = metadataLength
        self.metadataChecksum = metadataChecksum
        self.dataChecksum = dataChecksum
        self.storedDataLength = storedDataLength
        self.dataLength = dataLength
    }

    private func describesFile(ofLength length: Int) -> Bool {
        length >= 0 && fileLength == UInt64(length)
    }

    /// A checksum as eight hexadecimal digits.
    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
