import Foundation

/// Checks the structure of a binary property list (`bplist00`) before Foundation parses it.
///
/// Store metadata arrives as property lists inside store files (SQLite's `Z_METADATA`, the
/// PipeCSV header, the Binary and XML stores' metadata), which are untrusted input. Foundation's
/// `PropertyListSerialization` on Linux crashes the process on some hostile binary property
/// lists: a set object (which metadata never holds) made it fault inside Swift's dynamic cast
/// while bridging the set (found by `fuzz-pipecsv`, regression input
/// `Fuzz/Regressions/fuzz-pipecsv/binary-plist-set`). So a binary property list is accepted
/// only when:
/// - its trailer is consistent (integer and reference sizes of 1–8 bytes, every offset and
///   reference inside the file and its object table);
/// - every object is of a kind metadata can hold: null, booleans, integers, reals, dates, data,
///   ASCII and UTF-16 strings, arrays and dictionaries (no sets, ordered sets or UIDs);
/// - every dictionary key is a string;
/// - no container contains itself, directly or through others (checked in one pass over the
///   objects, so shared references cannot make the check expensive);
/// - it is not too large once expanded. A binary property list may reference one object from
///   many places: 40 arrays nested in one another, each holding the next one twice, take 239
///   bytes yet stand for 2⁴⁰ objects, and Foundation's conversion to Swift values (and the
///   metadata conversion after it) builds every one of them, holding the process in a loop
///   that only ends when memory does. So the objects are counted as the conversion would meet
///   them, a shared object once per reference to it (in the same one pass, each object's count
///   computed once), and a property list of more than ``expansionBudget(forByteCount:)``
///   objects is refused. What Foundation writes never comes near it: it shares only strings,
///   numbers, dates and data, never arrays or dictionaries, so its property lists expand to at
///   most one object per byte.
///
/// XML property lists are left to Foundation (its XML property-list reader did not crash under
/// fuzzing).
enum BinaryPropertyListCheck {
    /// What the check found.
    enum Verdict: Equatable {
        /// Acceptable, or not a binary property list at all (Foundation decides about those).
        case acceptable
        /// Malformed, or holding something metadata never holds.
        case refused
        /// Well formed, but it stands for more objects than ``expansionBudget(forByteCount:)``
        /// once its shared references are expanded.
        case tooLarge(budget: Int)
    }

    /// The objects a property list of `byteCount` bytes may stand for once expanded: one per
    /// byte, and at least 100,000.
    static func expansionBudget(forByteCount byteCount: Int) -> Int { max(byteCount, 100_000) }

    /// Why a property list refused as ``Verdict/tooLarge(budget:)`` is refused, as a clause.
    static func tooLargeReason(budget: Int) -> String {
        "its property list expands to more than \(budget) objects (it references shared arrays or dictionaries so often that reading it would exhaust memory)"
    }

    /// Whether `data` is a binary property list this check accepts; true for data that is not
    /// a binary property list at all (Foundation decides about those).
    static func isAcceptable(_ data: Data) -> Bool { verdict(data) == .acceptable }

    /// What the check finds in `data`.
    static func verdict(_ data: Data) -> Verdict {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, bytes[0..<8].elementsEqual("bplist00".utf8) else { return .acceptable }
        return check(bytes)
    }

    private static func check(_ bytes: [UInt8]) -> Verdict {
        let trailerSize = 32
        guard bytes.count >= 8 + trailerSize + 1 else { return .refused }
        let trailer = bytes.count - trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
            let objectCount = integer(bytes, at: trailer + 8, size: 8),
            let topObject = integer(bytes, at: trailer + 16, size: 8),
            let tableOffset = integer(bytes, at: trailer + 24, size: 8),
            objectCount >= 1, objectCount <= bytes.count, topObject < objectCount,
            tableOffset >= 8, tableOffset <= trailer,
            objectCount <= (trailer - tableOffset) / offsetSize
        else { return .refused }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            guard let offset = integer(bytes, at: tableOffset + index * offsetSize, size: offsetSize),
                offset >= 8, offset < tableOffset
            else { return .refused }
            offsets.append(offset)
        }
        // The references of each container, read once; nil for objects that hold none.
        var children: [[Int]?] = Array(repeating: nil, count: objectCount)
        for index in 0..<objectCount {
            let offset = offsets[index]
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0:
                guard [0x00, 0x08, 0x09, 0x0F].contains(marker) else { return .refused }
            case 0x1, 0x2, 0x3, 0x4, 0x5, 0x6:
                break
            case 0xA, 0xD:
                guard let (count, start) = containerCount(bytes, at: offset, limit: tableOffset) else { return .refused }
                let references = marker >> 4 == 0xD ? count * 2 : count
                guard references <= (tableOffset - start) / referenceSize else { return .refused }
                var refs: [Int] = []
                refs.reserveCapacity(references)
                for position in 0..<references {
                    guard let ref = integer(bytes, at: start + position * referenceSize, size: referenceSize), ref < objectCount
                    else { return .refused }
                    refs.append(ref)
                }
                children[index] = refs
            default:
                // Sets, ordered sets, UIDs and unassigned markers: never metadata.
                return .refused
            }
        }
        // Dictionary keys are strings.
        for index in 0..<objectCount where bytes[offsets[index]] >> 4 == 0xD {
            guard let refs = children[index] else { return .refused }
            for key in refs.prefix(refs.count / 2) where ![0x5, 0x6].contains(bytes[offsets[key]] >> 4) { return .refused }
        }
        let budget = expansionBudget(forByteCount: bytes.count)
        guard let expanded = expandedCount(children, from: topObject, budget: budget) else { return .refused }
        return expanded > budget ? .tooLarge(budget: budget) : .acceptable
    }

    /// The number of objects the object `root` stands for once every reference is expanded (a
    /// shared object counted once per reference), or `budget + 1` when that is more than
    /// `budget`; nil when a container reachable from `root` reaches itself. An iterative
    /// depth-first walk that visits each object once: a container's count is the sum of its
    /// children's, computed when its last child is done.
    private static func expandedCount(_ children: [[Int]?], from root: Int, budget: Int) -> Int? {
        // 0: not seen, 1: on the current path, 2: done (its count in `counts`).
        var state = [UInt8](repeating: 0, count: children.count)
        var counts = [Int](repeating: 1, count: children.count)
        var stack: [(object: Int, next: Int)] = [(root, 0)]
        state[root] = 1
        while let top = stack.last {
            let refs = children[top.object] ?? []
            if top.next < refs.count {
                stack[stack.count - 1].next += 1
                let child = refs[top.next]
                switch state[child] {
                case 1: return nil
                case 0 where children[child] != nil:
                    state[child] = 1
                    stack.append((child, 0))
                default: break
                }
            } else {
                // Every child is done: capped sums cannot overflow.
                var count = 1
                for child in refs { count = min(count + counts[child], budget + 1) }
                counts[top.object] = count
                state[top.object] = 2
                stack.removeLast()
            }
        }
        return counts[root]
    }

    /// The element count of the array or dictionary at `offset` and where its references start.
    private static func containerCount(_ bytes: [UInt8], at offset: Int, limit: Int) -> (count: Int, start: Int)? {
        let low = Int(bytes[offset] & 0x0F)
        if low != 0x0F { return (low, offset + 1) }
        // A longer count follows as an integer object: 0x1n, then 2^n bytes.
        guard offset + 1 < limit, bytes[offset + 1] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard size <= 8, offset + 2 + size <= limit, let count = integer(bytes, at: offset + 2, size: size), count <= limit
        else { return nil }
        return (count, offset + 2 + size)
    }

    /// The big-endian unsigned integer of `size` bytes at `offset`; nil when it runs past the
    /// end or does not fit in `Int`.
    private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
        guard offset >= 0, size >= 1, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value <= UInt64(Int.max) ? Int(value) : nil
    }
}
