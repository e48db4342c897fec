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
///   objects, so shared references cannot make the check expensive).
///
/// XML property lists are left to Foundation (its XML property-list reader did not crash under
/// fuzzing).
enum BinaryPropertyListCheck {
    /// Whether `data` is a binary property list this check accepts; true for data that is not
    /// a binary property list at all (Foundation decides about those).
    static func isAcceptable(_ data: Data) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 8, bytes[0..<8].elementsEqual("bplist00".utf8) else { return true }
        return check(bytes)
    }

    private static func check(_ bytes: [UInt8]) -> Bool {
        let trailerSize = 32
        guard bytes.count >= 8 + trailerSize + 1 else { return false }
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
        else { return false }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            guard let offset = integer(bytes, at: tableOffset + index * offsetSize, size: offsetSize),
                offset >= 8, offset < tableOffset
            else { return false }
            offsets.append(offset)
        }
        // The references of each container, read once; nil for objects that hold none.
        var children: [[Int]?] = Array(repeating: nil, count: objectCount)
        for index in 0..<objectCount {
            let offset = offsets[index]
            let marker = bytes[offset]
            switch marker >> 4 {
            case 0x0:
                guard [0x00, 0x08, 0x09, 0x0F].contains(marker) else { return false }
            case 0x1, 0x2, 0x3, 0x4, 0x5, 0x6:
                break
            case 0xA, 0xD:
                guard let (count, start) = containerCount(bytes, at: offset, limit: tableOffset) else { return false }
                let references = marker >> 4 == 0xD ? count * 2 : count
                guard references <= (tableOffset - start) / referenceSize else { return false }
                var refs: [Int] = []
                refs.reserveCapacity(references)
                for position in 0..<references {
                    guard let ref = integer(bytes, at: start + position * referenceSize, size: referenceSize), ref < objectCount
                    else { return false }
                    refs.append(ref)
                }
                children[index] = refs
            default:
                // Sets, ordered sets, UIDs and unassigned markers: never metadata.
                return false
            }
        }
        // Dictionary keys are strings.
        for index in 0..<objectCount where bytes[offsets[index]] >> 4 == 0xD {
            guard let refs = children[index] else { return false }
            for key in refs.prefix(refs.count / 2) where ![0x5, 0x6].contains(bytes[offsets[key]] >> 4) { return false }
        }
        return isAcyclic(children, from: topObject)
    }

    /// Whether no container reachable from `root` reaches itself (an iterative depth-first walk
    /// that visits each object once).
    private static func isAcyclic(_ children: [[Int]?], from root: Int) -> Bool {
        // 0: not seen, 1: on the current path, 2: done.
        var state = [UInt8](repeating: 0, count: children.count)
        var stack: [(object: Int, next: Int)] = [(root, 0)]
        state[root] = 1
        while let top = stack.last {
            let refs = children[top.object] ?? []
            if top.next < refs.count {
                stack[stack.count - 1].next += 1
                let child = refs[top.next]
                switch state[child] {
                case 1: return false
                case 0 where children[child] != nil:
                    state[child] = 1
                    stack.append((child, 0))
                default: break
                }
            } else {
                state[top.object] = 2
                stack.removeLast()
            }
        }
        return true
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
