import Foundation

/// A growable byte buffer that the Binary store encodes into: one allocation sized up front for
/// the whole section (doubling when the estimate was short), values stored straight into it —
/// no per-value allocation, no intermediate arrays. All integers are little-endian.
final class BinaryWriter {
    private var storage: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// The number of bytes written.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        storage = .allocate(capacity: self.capacity)
    }

    deinit { storage.deallocate() }

    /// The bytes written so far; valid until the next write or the writer's end.
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    /// Makes room for `extra` more bytes.
    @inline(__always)
    private func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: storage, count: count)  // count <= capacity <= newCapacity
        storage.deallocate()
        storage = grown
        capacity = newCapacity
    }

    /// Drops the bytes from `position` on.
    func truncate(to position: Int) {
        count = min(max(position, 0), count)
    }

    /// Appends one byte.
    @inline(__always)
    func byte(_ value: UInt8) {
        reserve(1)
        storage[count] = value  // count < capacity after reserve
        count += 1
    }

    /// Appends a type tag.
    @inline(__always)
    func tag(_ tag: BinaryTag) { byte(tag.rawValue) }

    /// Appends a fixed-size unsigned integer, little-endian.
    @inline(__always)
    func fixed<T: FixedWidthInteger & UnsignedInteger>(_ value: T) {
        let size = MemoryLayout<T>.size
        reserve(size)
        // count + size <= capacity after reserve; storeBytes has no alignment needs.
        UnsafeMutableRawPointer(storage + count).storeBytes(of: value.littleEndian, as: T.self)
        count += size
    }

    /// Appends a double as its 8-byte bit pattern.
    @inline(__always)
    func double(_ value: Double) { fixed(value.bitPattern) }

    /// Appends an unsigned LEB128 varint (1 to 10 bytes).
    @inline(__always)
    func varint(_ value: UInt64) {
        reserve(10)
        var rest = value
        var position = count
        while rest >= 0x80 {
            storage[position] = UInt8(truncatingIfNeeded: rest) | 0x80  // at most 10 bytes: reserved
            rest >>= 7
            position += 1
        }
        storage[position] = UInt8(truncatingIfNeeded: rest)
        count = position + 1
    }

    /// Appends a non-negative count or index as a varint.
    @inline(__always)
    func varint(_ value: Int) { varint(UInt64(truncatingIfNeeded: value)) }

    /// Appends a signed integer as a zigzag varint.
    @inline(__always)
    func signedVarint(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// Appends raw bytes.
    @inline(__always)
    func bytes(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, !raw.isEmpty else { return }
        reserve(raw.count)
        UnsafeMutableRawPointer(storage + count).copyMemory(from: source, byteCount: raw.count)  // room reserved
        count += raw.count
    }

    /// Appends a varint length and the bytes.
    @inline(__always)
    func lengthPrefixed(_ raw: UnsafeRawBufferPointer) {
        varint(raw.count)
        bytes(raw)
    }

    /// Appends a varint length and the string's UTF-8.
    @inline(__always)
    func string(_ value: String) {
        let done: Void? = value.utf8.withContiguousStorageIfAvailable { lengthPrefixed(UnsafeRawBufferPointer($0)) }
        if done == nil {
            var copy = value
            copy.withUTF8 { lengthPrefixed(UnsafeRawBufferPointer($0)) }
        }
    }

    /// Appends a varint length and the data's bytes.
    func data(_ value: Data) {
        value.withUnsafeBytes { lengthPrefixed($0) }
    }

    /// Appends a UUID's 16 bytes.
    func uuid(_ value: UUID) {
        withUnsafeBytes(of: value.uuid) { bytes($0) }
    }
}
