import Foundation

/// Binary property lists that are small but stand for enormous values, for the tests that
/// check every reader of store metadata refuses them.
public enum HostilePropertyList {
    /// `{"k": a1}` where each of `depth` arrays holds the next one twice (`a1 = [a2, a2]`, …,
    /// the last one `[1, 1]`): 3 + `depth` objects in a file of 4 × `depth` + 50 bytes that
    /// stands for 2^(`depth` + 1) objects once its references are expanded (`depth` 40: 210 bytes).
    public static func sharedArrays(depth: Int) -> Data {
        precondition(depth >= 1 && depth + 3 <= 255, "one-byte references")
        var objects: [[UInt8]] = [[0xD1, 0x01, 0x02], [0x51, 0x6B]]  // {"k": object 2}, "k"
        for level in 0..<depth {
            let next = UInt8(2 + level + 1)
            objects.append([0xA2, next, next])
        }
        objects.append([0x10, 0x01])  // the integer 1
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in objects {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        precondition(bytes.count <= 255, "one-byte offsets")
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, sort version, offset size 1, reference size 1
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // the top object is object 0
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(bytes)
    }
}
