import Foundation

/// A binary property list (`bplist00`) read into a flat table of objects, bounds-checked,
/// without Foundation.
///
/// Foundation's `PropertyListSerialization` cannot be given untrusted binary property lists
/// (see `BinaryPropertyListCheck`), and a keyed archive needs what it does not give: the UIDs
/// (`0x8n` objects) and the shared references between objects. So every object is read once,
/// in place, and a container holds the indexes of its members instead of the members: a
/// property list whose objects refer to each other in a cycle, or share one object from many
/// places, costs no more than its size to read, and whoever walks it decides how far to go.
///
/// Every malformed input is a ``Failure`` naming the object and what was wrong: a short or
/// inconsistent trailer, offsets or references outside the file, lengths running past the end,
/// unknown markers, invalid UTF-8 or UTF-16, more objects than ``Limits/maximumObjects``.
struct BinaryPropertyList {
    /// One object of the table; containers refer to other objects by their index.
    enum Object: Equatable {
        case null
        case bool(Bool)
        case int(Int64)
        case real(Double)
        /// Seconds since 2001-01-01 (`NSDate`'s reference date).
        case date(Double)
        case data(Data)
        case string(String)
        /// A keyed archive's reference (`CF$UID`) to an object of its `$objects` array.
        case uid(Int)
        case array([Int])
        case set([Int])
        /// Keys and values, pairwise.
        case dictionary(keys: [Int], values: [Int])
    }

    /// Why the bytes are not a binary property list this reader accepts.
    struct Failure: Error, Equatable {
        /// What was wrong, as a clause ("object 12 runs past the end of the data").
        let reason: String
    }

    /// The bounds a property list must keep.
    struct Limits {
        /// The most objects the table may hold.
        var maximumObjects = 1_000_000
    }

    /// Every object, in the order of the offset table.
    let objects: [Object]
    /// The index of the top object.
    let top: Int

    /// Reads `bytes` (which must start with `bplist00`).
    init(_ bytes: [UInt8], limits: Limits = Limits()) throws(Failure) {
        let trailerSize = 32
        guard bytes.count >= 8 + trailerSize + 1, bytes[0..<8].elementsEqual("bplist00".utf8) else {
            throw Failure(reason: bytes.starts(with: Array("bplist".utf8)) && bytes.count >= 8
                ? "it is not a version 00 binary property list, or too short for one"
                : "it is not a binary property list (no bplist00 header)")
        }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Failure(reason: "its trailer gives offset size \(offsetSize) and reference size \(referenceSize) (1 to 8 expected)")
        }
        guard let objectCount = Self.integer(bytes, at: trailer + 8, size: 8),
            let topObject = Self.integer(bytes, at: trailer + 16, size: 8),
            let tableOffset = Self.integer(bytes, at: trailer + 24, size: 8)
        else { throw Failure(reason: "its trailer holds a count or offset too large for this machine") }
        guard objectCount >= 1, topObject < objectCount else {
            throw Failure(reason: "its trailer declares \(objectCount) objects with the top object \(topObject)")
        }
        guard objectCount <= limits.maximumObjects else {
            throw Failure(reason: "it declares \(objectCount) objects, more than the limit of \(limits.maximumObjects)")
        }
        guard tableOffset >= 8, tableOffset <= trailer, objectCount <= (trailer - tableOffset) / offsetSize else {
            throw Failure(
                reason: "its trailer declares \(objectCount) objects with an offset table at byte \(tableOffset), which does not fit in its \(bytes.count) bytes")
        }
        let reader = ObjectReader(bytes: bytes, objectCount: objectCount, referenceSize: referenceSize, limit: tableOffset)
        var objects: [Object] = []
        objects.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            guard let offset = Self.integer(bytes, at: tableOffset + index * offsetSize, size: offsetSize),
                offset >= 8, offset < tableOffset
            else { throw Failure(reason: "the offset of object \(index) is outside the object data") }
            objects.append(try reader.object(index, at: offset))
        }
        self.objects = objects
        self.top = topObject
    }

    /// The big-endian unsigned integer of `size` bytes at `offset`; nil when it runs past the
    /// end or does not fit in `Int`.
    static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size >= 1, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }

    /// Reads one object at a time; knows where object data ends and how references are sized.
    private struct ObjectReader {
        let bytes: [UInt8]
        let objectCount: Int
        let referenceSize: Int
        /// The first byte after the object data (the offset table).
        let limit: Int

        func object(_ index: Int, at offset: Int) throws(Failure) -> Object {
            let marker = bytes[offset]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x00: return .null
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                default: throw failure(index, "has the unknown marker 0x\(String(marker, radix: 16))")
                }
            case 0x1:
                guard low <= 4 else { throw failure(index, "is an integer of 2^\(low) bytes") }
                let size = 1 << low
                let body = try span(index, from: offset + 1, count: size)
                // A 16-byte integer is a 64-bit value with 8 leading bytes (what CoreFoundation
                // writes for large unsigned values); those must be zero.
                let valueBytes = size == 16 ? body.dropFirst(8) : body[...]
                if size == 16, body.prefix(8).contains(where: { $0 != 0 }) {
                    throw failure(index, "is an integer too large for 64 bits")
                }
                var value: UInt64 = 0
                for byte in valueBytes { value = value << 8 | UInt64(byte) }
                // Sizes of 1, 2 and 4 bytes are unsigned; 8 bytes are two's complement.
                return .int(Int64(bitPattern: value))
            case 0x2:
                switch low {
                case 2:
                    let body = try span(index, from: offset + 1, count: 4)
                    return .real(Double(Float(bitPattern: UInt32(bigEndianBytes: body))))
                case 3:
                    return .real(Double(bitPattern: UInt64(bigEndianBytes: try span(index, from: offset + 1, count: 8))))
                default: throw failure(index, "is a real of 2^\(low) bytes")
                }
            case 0x3:
                guard marker == 0x33 else { throw failure(index, "has the unknown marker 0x\(String(marker, radix: 16))") }
                return .date(Double(bitPattern: UInt64(bigEndianBytes: try span(index, from: offset + 1, count: 8))))
            case 0x4:
                let (count, start) = try length(index, at: offset)
                return .data(Data(try span(index, from: start, count: count)))
            case 0x5:
                let (count, start) = try length(index, at: offset)
                let body = try span(index, from: start, count: count)
                guard body.allSatisfy({ $0 < 0x80 }) else { throw failure(index, "is an ASCII string with a byte above 0x7F") }
                return .string(String(decoding: body, as: UTF8.self))
            case 0x6:
                let (count, start) = try length(index, at: offset)
                guard count <= (limit - start) / 2 else { throw failure(index, "runs past the end of the object data") }
                let body = try span(index, from: start, count: count * 2)
                var units: [UInt16] = []
                units.reserveCapacity(count)
                for position in stride(from: 0, to: body.count, by: 2) {
                    units.append(UInt16(body[body.startIndex + position]) << 8 | UInt16(body[body.startIndex + position + 1]))
                }
                guard let string = String(validating: units, as: UTF16.self) else {
                    throw failure(index, "is a UTF-16 string with an unpaired surrogate")
                }
                return .string(string)
            case 0x7:
                let (count, start) = try length(index, at: offset)
                guard let string = String(validating: try span(index, from: start, count: count), as: UTF8.self) else {
                    throw failure(index, "is a UTF-8 string that is not valid UTF-8")
                }
                return .string(string)
            case 0x8:
                let body = try span(index, from: offset + 1, count: low + 1)
                guard low + 1 <= 4 else { throw failure(index, "is a UID of \(low + 1) bytes") }
                var value = 0
                for byte in body { value = value << 8 | Int(byte) }
                return .uid(value)
            case 0xA, 0xC:
                let (count, start) = try length(index, at: offset)
                let members = try references(index, from: start, count: count)
                return marker >> 4 == 0xA ? .array(members) : .set(members)
            case 0xD:
                let (count, start) = try length(index, at: offset)
                guard count <= Int.max / 2 else { throw failure(index, "declares \(count) entries") }
                let members = try references(index, from: start, count: count * 2)
                return .dictionary(keys: Array(members[0..<count]), values: Array(members[count...]))
            default:
                throw failure(index, "has the unknown marker 0x\(String(marker, radix: 16))")
            }
        }

        /// The count in the marker's low nibble, or the integer object after it (`0xF`), and
        /// where the body starts.
        private func length(_ index: Int, at offset: Int) throws(Failure) -> (count: Int, start: Int) {
            let low = Int(bytes[offset] & 0x0F)
            if low != 0x0F { return (low, offset + 1) }
            guard offset + 1 < limit, bytes[offset + 1] >> 4 == 0x1 else {
                throw failure(index, "has a length that is not an integer")
            }
            let size = 1 << Int(bytes[offset + 1] & 0x0F)
            guard size <= 8, let count = BinaryPropertyList.integer(bytes, at: offset + 2, size: size),
                offset + 2 + size <= limit
            else { throw failure(index, "has a length that runs past the end of the object data") }
            // No object can be longer than the data that holds it: a count beyond it is refused
            // before anything is allocated for it.
            guard count <= limit else {
                throw failure(index, "declares a length of \(count), more than the \(limit) bytes of object data")
            }
            return (count, offset + 2 + size)
        }

        private func span(_ index: Int, from start: Int, count: Int) throws(Failure) -> ArraySlice<UInt8> {
            guard count >= 0, start <= limit, count <= limit - start else {
                throw failure(index, "runs past the end of the object data")
            }
            return bytes[start..<start + count]
        }

        private func references(_ index: Int, from start: Int, count: Int) throws(Failure) -> [Int] {
            guard count <= (limit - start) / referenceSize else {
                throw failure(index, "declares \(count) members, which run past the end of the object data")
            }
            var members: [Int] = []
            members.reserveCapacity(count)
            for position in 0..<count {
                guard let reference = BinaryPropertyList.integer(bytes, at: start + position * referenceSize, size: referenceSize),
                    reference < objectCount
                else { throw failure(index, "refers to an object that does not exist") }
                members.append(reference)
            }
            return members
        }

        private func failure(_ index: Int, _ clause: String) -> Failure {
            Failure(reason: "object \(index) \(clause)")
        }
    }
}

extension UInt32 {
    /// The big-endian value of four bytes.
    fileprivate init(bigEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }
}

extension UInt64 {
    /// The big-endian value of eight bytes.
    fileprivate init(bigEndianBytes bytes: ArraySlice<UInt8>) {
        self = bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
