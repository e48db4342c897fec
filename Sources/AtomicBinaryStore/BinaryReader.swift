import Foundation
import StoreCore

/// Why bytes of a Binary store file cannot be read: where (an offset within the bytes the
/// reader was given) and why. ``AtomicBinaryStore`` turns it into a ``StoreError`` that names
/// the file and the byte offset.
struct BinaryReadFailure: Error {
    /// The offset of the offending byte within the reader's bytes.
    let position: Int
    /// What is wrong ("unexpected end of file …", "bad tag 0x3f …", "bad index …").
    let reason: String
    /// The entity involved, when there is one.
    var entity: String? = nil
    /// The property involved, when there is one.
    var property: String? = nil
}

/// A cursor over bytes in memory that checks every read against the end of the bytes: the only
/// place where the Binary store touches raw memory while loading. Every read either returns
/// bytes that lie inside the buffer or throws a ``BinaryReadFailure``; lengths and counts read
/// from the file are checked against the bytes that remain before anything is allocated for
/// them, so a hostile length field costs nothing.
struct BinaryReader {
    /// The bytes; they outlive the reader (the caller owns them).
    private let bytes: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    private(set) var position: Int

    /// A reader at the start of `bytes`.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
        self.position = 0
    }

    /// The number of bytes not yet read.
    var remaining: Int { bytes.count - position }

    /// Whether every byte has been read.
    var isAtEnd: Bool { position == bytes.count }

    /// A failure at `position` (default: the next byte).
    func failure(_ reason: String, at position: Int? = nil) -> BinaryReadFailure {
        BinaryReadFailure(position: position ?? self.position, reason: reason)
    }

    private func unexpectedEnd(_ what: String, needing count: Int, at start: Int) -> BinaryReadFailure {
        failure(
            "unexpected end of file: \(what) needs \(count) byte(s), \(bytes.count - start) remain (the file is truncated)",
            at: start)
    }

    // MARK: Fixed-size values

    /// One byte.
    @inline(__always)
    mutating func byte(_ what: @autoclosure () -> String = "a byte") throws(BinaryReadFailure) -> UInt8 {
        guard position < bytes.count else { throw unexpectedEnd(what(), needing: 1, at: position) }
        let value = bytes[position]  // position < bytes.count: checked above
        position += 1
        return value
    }

    /// A type tag; a byte that is no tag is a "bad tag" failure.
    @inline(__always)
    mutating func tag(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> BinaryTag {
        let start = position
        let raw = try byte(what())
        guard let tag = BinaryTag(rawValue: raw) else {
            throw failure("bad tag 0x\(String(raw, radix: 16)) for \(what()) (no such type tag)", at: start)
        }
        return tag
    }

    /// A little-endian unsigned integer of `T`'s size.
    @inline(__always)
    mutating func fixed<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ what: @autoclosure () -> String) throws(BinaryReadFailure) -> T {
        let size = MemoryLayout<T>.size
        guard size <= remaining else { throw unexpectedEnd(what(), needing: size, at: position) }
        // position + size <= bytes.count: checked above; loadUnaligned has no alignment needs.
        let value = UnsafeRawBufferPointer(bytes).loadUnaligned(fromByteOffset: position, as: T.self)
        position += size
        return T(littleEndian: value)
    }

    /// A double stored as its 8-byte little-endian bit pattern.
    @inline(__always)
    mutating func double(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> Double {
        Double(bitPattern: try fixed(UInt64.self, what()))
    }

    // MARK: Varints

    /// An unsigned LEB128 varint (7 bits per byte, low groups first, high bit = more follows),
    /// at most 10 bytes; a longer one or one above `UInt64.max` is a failure.
    @inline(__always)
    mutating func varint(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> UInt64 {
        if position < bytes.count, bytes[position] < 0x80 {  // the one-byte case, most values
            let value = UInt64(bytes[position])
            position += 1
            return value
        }
        return try longVarint(what())
    }

    private mutating func longVarint(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        var next = position
        while true {
            guard next < bytes.count else {
                throw failure("unexpected end of file inside a varint (\(what())); the file is truncated", at: start)
            }
            let byte = bytes[next]  // next < bytes.count: checked above
            next += 1
            if shift == 63 && byte > 1 {
                throw failure("malformed varint for \(what()): it does not fit in 64 bits", at: start)
            }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 {
                position = next
                return result
            }
            shift += 7
        }
    }

    /// A zigzag-encoded signed varint (0, -1, 1, -2, … are 0, 1, 2, 3, …).
    @inline(__always)
    mutating func signedVarint(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> Int64 {
        let raw = try varint(what())
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// A count or length of things that take at least `minimumSize` bytes each: more than the
    /// remaining bytes can hold is a failure, so whatever the caller allocates for the count is
    /// bounded by the file's size.
    @inline(__always)
    mutating func count(_ what: @autoclosure () -> String, minimumSize: Int = 1) throws(BinaryReadFailure) -> Int {
        let start = position
        let value = try varint(what())
        let limit = remaining / max(1, minimumSize)
        guard value <= UInt64(limit) else {
            throw failure(
                "\(what()) says \(value), but only \(remaining) byte(s) remain (the file is truncated or corrupted)",
                at: start)
        }
        return Int(value)  // value <= limit <= Int.max: checked above
    }

    /// An index that must be below `limit`; anything else is a "bad index" failure.
    @inline(__always)
    mutating func index(below limit: Int, _ what: @autoclosure () -> String) throws(BinaryReadFailure) -> Int {
        let start = position
        let value = try varint(what())
        guard value < UInt64(limit) else {
            throw failure("bad index \(value) for \(what()): there are only \(limit)", at: start)
        }
        return Int(value)  // value < limit: checked above
    }

    // MARK: Runs of bytes

    /// The next `count` bytes (a view into the buffer, valid while the buffer lives).
    @inline(__always)
    mutating func bytes(_ count: Int, _ what: @autoclosure () -> String) throws(BinaryReadFailure) -> UnsafeBufferPointer<UInt8> {
        guard count >= 0, count <= remaining else { throw unexpectedEnd(what(), needing: count, at: position) }
        // position..<position + count lies inside the buffer: checked above.
        let slice = UnsafeBufferPointer(rebasing: bytes[position..<(position + count)])
        position += count
        return slice
    }

    /// A varint length and that many bytes.
    @inline(__always)
    mutating func lengthPrefixedBytes(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> UnsafeBufferPointer<UInt8> {
        let length = try count("the length of \(what())")
        return try bytes(length, what())
    }

    /// A varint length and that many bytes of UTF-8; invalid UTF-8 is a failure at the string.
    @inline(__always)
    mutating func string(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> String {
        let start = position
        let raw = try lengthPrefixedBytes(what())
        guard let text = Self.text(raw) else {
            throw failure("\(what()) is not valid UTF-8", at: start)
        }
        return text
    }

    /// A varint length and that many bytes, copied.
    mutating func data(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> Data {
        let raw = try lengthPrefixedBytes(what())
        return raw.isEmpty ? Data() : Data(buffer: raw)
    }

    /// 16 bytes as a UUID.
    mutating func uuid(_ what: @autoclosure () -> String) throws(BinaryReadFailure) -> UUID {
        let raw = try bytes(16, what())
        // raw.count == 16: bytes(16, …) returned exactly 16 bytes.
        return UUID(uuid: (
            raw[0], raw[1], raw[2], raw[3], raw[4], raw[5], raw[6], raw[7],
            raw[8], raw[9], raw[10], raw[11], raw[12], raw[13], raw[14], raw[15]))
    }

    /// The string that UTF-8 bytes spell, or nil when they are not valid UTF-8 (ASCII checked
    /// eight bytes at a time, see `UTF8Text`).
    static func text(_ raw: UnsafeBufferPointer<UInt8>) -> String? { UTF8Text.string(raw) }
}
