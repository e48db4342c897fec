import Foundation
import StoreTestSupport
import Testing

@testable import StoreCore

/// Store metadata read from hostile binary property lists: refused as not metadata, never a
/// crash. A set inside a binary property list made Foundation's parser crash the process while
/// bridging it (found by `fuzz-pipecsv`; the whole input is `Fuzz/Regressions/fuzz-pipecsv/
/// binary-plist-set`, which the test command runs through the harness).
@Suite struct BinaryPropertyListCheckTests {
    /// A binary property list of `{"k": <object 2>}` where object 2 is `middle` (its references
    /// point at object 3, the integer 1, or at any object given in `middle`).
    static func plist(middle: [UInt8], key: [UInt8] = [0x51, 0x6B]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for object in [[0xD1, 0x01, 0x02], key, middle, [0x10, 0x01]] {
            offsets.append(UInt8(bytes.count))
            bytes += object
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 1, 1]  // unused, sort version, offset size 1, reference size 1
        bytes += [0, 0, 0, 0, 0, 0, 0, 4]  // four objects
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // the top object is object 0
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(table)]
        return Data(bytes)
    }

    @Test func aWellFormedBinaryPropertyListIsMetadata() throws {
        let array = Self.plist(middle: [0xA1, 0x03])
        #expect(BinaryPropertyListCheck.isAcceptable(array))
        #expect(MetadataValue.metadata(fromPropertyList: array) == ["k": .array([.int(1)])])
        let written = try MetadataValue.propertyListData(["a": 1, "b": .array(["x", .bool(true)]), "c": .dictionary(["d": .double(2.5)])])
        #expect(BinaryPropertyListCheck.isAcceptable(written), "what this framework writes")
        #expect(MetadataValue.metadata(fromPropertyList: written)?["c"] == .dictionary(["d": .double(2.5)]))
    }

    @Test("A set, an ordered set or a UID is refused without parsing", arguments: [[0xC1, 0x03], [0xB1, 0x03], [0x80, 0x03]] as [[UInt8]])
    func kindsMetadataNeverHolds(_ middle: [UInt8]) {
        let data = Self.plist(middle: middle)
        #expect(!BinaryPropertyListCheck.isAcceptable(data))
        #expect(MetadataValue.metadata(fromPropertyList: data) == nil)
    }

    @Test func anArrayThatContainsItselfIsRefused() {
        #expect(!BinaryPropertyListCheck.isAcceptable(Self.plist(middle: [0xA1, 0x02])))
        #expect(!BinaryPropertyListCheck.isAcceptable(Self.plist(middle: [0xA2, 0x03, 0x00])), "through the top dictionary")
    }

    @Test func aKeyThatIsNotAStringIsRefused() {
        #expect(!BinaryPropertyListCheck.isAcceptable(Self.plist(middle: [0xA1, 0x03], key: [0x10, 0x07])))
    }

    @Test func referencesAndOffsetsOutsideTheFileAreRefused() {
        #expect(!BinaryPropertyListCheck.isAcceptable(Self.plist(middle: [0xA1, 0x09])), "a reference past the objects")
        #expect(!BinaryPropertyListCheck.isAcceptable(Self.plist(middle: [0xAF, 0x13, 0xFF, 0xFF])), "a count past the end")
        var damaged = [UInt8](Self.plist(middle: [0xA1, 0x03]))
        damaged[damaged.count - 1] = 0xF0  // the offset table past the end
        #expect(!BinaryPropertyListCheck.isAcceptable(Data(damaged)))
        #expect(!BinaryPropertyListCheck.isAcceptable(Data("bplist00".utf8)), "no trailer")
    }

    @Test func otherDataIsLeftToFoundation() {
        let xml = Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>a</key><integer>1</integer></dict></plist>".utf8)
        #expect(BinaryPropertyListCheck.isAcceptable(xml))
        #expect(MetadataValue.metadata(fromPropertyList: xml) == ["a": 1])
    }

    @Test func sharedReferencesThatExpandPastTheBudgetAreRefusedWithoutExpandingThem() {
        // 210 bytes standing for 2^41 objects: Foundation's conversion used to build them all,
        // holding the process in a loop that only ended when memory did.
        let bomb = HostilePropertyList.sharedArrays(depth: 40)
        #expect(bomb.count == 210)
        #expect(BinaryPropertyListCheck.verdict(bomb) == .tooLarge(budget: 100_000))
        let failure = storeError(within: 10) {
            do throws(MetadataValue.PropertyListFailure) {
                _ = try MetadataValue.decodeMetadata(fromPropertyList: bomb)
            } catch {
                throw StoreError(.persistentStoreOpen, error.reason)
            }
        }
        #expect(failure?.message.contains("expands to more than 100000 objects") == true, "\(String(describing: failure))")
        #expect(MetadataValue.metadata(fromPropertyList: bomb) == nil)
    }

    @Test func sharedReferencesWithinTheBudgetAreRead() throws {
        // 2^16 objects once expanded, under the budget of 100,000.
        let shared = HostilePropertyList.sharedArrays(depth: 15)
        #expect(BinaryPropertyListCheck.verdict(shared) == .acceptable)
        var expected: MetadataValue = .array([.int(1), .int(1)])
        for _ in 1..<15 { expected = .array([expected, expected]) }
        #expect(try MetadataValue.decodeMetadata(fromPropertyList: shared) == ["k": expected])
        // One more level passes the budget (2^17 objects).
        #expect(BinaryPropertyListCheck.verdict(HostilePropertyList.sharedArrays(depth: 16)) == .tooLarge(budget: 100_000))
    }

    @Test func theBudgetGrowsWithTheFileSoWhatFoundationWritesIsNeverRefused() throws {
        // 150,000 strings in one array (Foundation shares the one string among them): more
        // objects than the fixed budget, fewer than the file has bytes.
        let many = MetadataValue.array(Array(repeating: .string("same"), count: 150_000))
        let data = try MetadataValue.propertyListData(["many": many])
        #expect(BinaryPropertyListCheck.verdict(data) == .acceptable)
        #expect(try MetadataValue.decodeMetadata(fromPropertyList: data)["many"] == many)
    }

    @Test func aFailureSaysWhetherThePropertyListIsTooLargeOrNotMetadata() {
        #expect(throws: MetadataValue.PropertyListFailure(reason: "it is not a property-list dictionary", isTooLarge: false)) {
            try MetadataValue.decodeMetadata(fromPropertyList: Data("not a plist".utf8))
        }
        #expect(throws: MetadataValue.PropertyListFailure.self) {
            try MetadataValue.decodeMetadata(fromPropertyList: Self.plist(middle: [0xC1, 0x03]))
        }
    }
}
