import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import AtomicBinaryStore

/// Hand-built files whose checksums are right but whose content lies: huge counts and lengths,
/// bad tags, out-of-range indexes, unknown names, values of the wrong type, invalid UTF-8,
/// duplicate references, deep nesting. Each must fail with a StoreError naming the file and a
/// byte offset — without crashing and without allocating what a length field claims.
@Suite("Hostile files")
struct HostileFileTests {
    typealias Part = @Sendable (BinaryWriter) -> Void

    /// A League data section (one Team "Crew", one Player "Pat" in it), any part replaceable.
    static func section(
        nextReference: UInt64 = 3,
        strings: [String] = ["Team", "Player", "name", "players", "team"],
        stringCount: UInt64? = nil,
        blockCount: UInt64 = 2,
        teamEntity: UInt64 = 0,
        teamNodeCount: UInt64 = 1,
        teamReference: Part = { $0.tag(.int); $0.signedVarint(1) },
        playerReference: Part = { $0.tag(.int); $0.signedVarint(2) },
        teamColumns: [(name: UInt64, kind: UInt8)] = [(2, 0), (3, 2)],
        teamName: Part = { $0.tag(.string); $0.string("Crew") },
        teamPlayers: Part = { $0.tag(.toMany); $0.varint(1); $0.varint(1) },
        playerColumns: [(name: UInt64, kind: UInt8)] = [(2, 0), (4, 1)],
        playerName: Part = { $0.tag(.string); $0.string("Pat") },
        playerTeam: Part = { $0.tag(.toOne); $0.varint(0) },
        trailing: [UInt8] = []
    ) -> [UInt8] {
        let w = BinaryWriter(capacity: 256)
        w.varint(nextReference)
        w.varint(stringCount ?? UInt64(strings.count))
        for string in strings { w.string(string) }
        w.varint(blockCount)
        w.varint(teamEntity)
        w.varint(teamNodeCount)
        teamReference(w)
        w.varint(1)  // Player
        w.varint(1)
        playerReference(w)
        w.varint(teamColumns.count)
        for column in teamColumns { w.varint(column.name); w.byte(column.kind) }
        w.varint(1)  // version
        teamName(w)
        teamPlayers(w)
        w.varint(playerColumns.count)
        for column in playerColumns { w.varint(column.name); w.byte(column.kind) }
        w.varint(1)
        playerName(w)
        playerTeam(w)
        trailing.withUnsafeBytes { w.bytes($0) }
        return Array(w.bytes)
    }

    static let storeUUID = UUID().uuidString

    /// A whole file around a data section, with correct checksums.
    static func file(
        data: [UInt8], metadata: [UInt8]? = nil, compressed: Bool = false, header change: (inout BinaryFileHeader) -> Void = { _ in }
    ) -> Data {
        let metadata = metadata ?? BinaryMetadataCodec.encode([
            MetadataKey.storeType: "Binary", MetadataKey.storeUUID: .string(storeUUID),
        ])
        var stored = data
        if compressed, case .success(let deflated) = data.withUnsafeBufferPointer({ Zlib.compress($0, level: 6) }) {
            stored = deflated
        }
        var header = BinaryFileHeader(
            compressed: compressed, metadataLength: UInt32(metadata.count), metadataChecksum: Zlib.crc32(metadata),
            dataChecksum: Zlib.crc32(stored), storedDataLength: UInt64(stored.count), dataLength: UInt64(data.count))
        change(&header)
        return Data(header.encoded + metadata + stored)
    }

    /// The error loading `bytes` as a League store gives (recorded when it loads).
    static func failure(_ bytes: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> StoreError? {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Hostile.store")
            try bytes.write(to: url)
            let error = storeError({ _ = try BinaryStore(model: Models.league, url: url) }, sourceLocation: sourceLocation)
            #expect(contents(of: url) == bytes, "the file is not modified", sourceLocation: sourceLocation)
            if let error {
                #expect(error.message.contains("Hostile.store"), sourceLocation: sourceLocation)
                #expect(error.fileURL?.lastPathComponent == "Hostile.store", sourceLocation: sourceLocation)
            }
            return error
        }
    }

    @Test(arguments: [false, true])
    func theHandBuiltBaselineLoads(compressed: Bool) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Baseline.store")
            try Self.file(data: Self.section(), compressed: compressed).write(to: url)
            let store = try BinaryStore(model: Models.league, url: url)
            let team = try #require(try store.nodes("Team").first)
            let player = try #require(try store.nodes("Player").first)
            #expect(team.attributes == ["name": "Crew"])
            #expect(team.toMany["players"] == [player.objectID])
            #expect(player.toOne["team"] == team.objectID)
            #expect(player.toMany["friends"] == [], "a to-many the file lacks is empty")
            #expect(store.store.identifier == Self.storeUUID)
            #expect(try store.newIDs("Team")[0].referenceObject == .int(3))
        }
    }

    /// (name, data section, what the message must say)
    static let damagedSections: [(String, [UInt8], String)] = [
        ("huge string count", section(stringCount: 1 << 62), "the number of strings says"),
        ("huge node count", section(teamNodeCount: UInt64.max >> 1), "the number of Team nodes says"),
        ("huge to-many count", section(teamPlayers: { $0.tag(.toMany); $0.varint(UInt64(1) << 60) }), "destinations of players"),
        ("huge string length", section(playerName: { $0.tag(.string); $0.varint(UInt64(1) << 40) }), "the length of attribute name of Player node 1 says 1099511627776"),
        ("varint longer than 64 bits", section(playerName: { w in w.tag(.string); for _ in 0..<10 { w.byte(0xFF) }; w.byte(1) }), "malformed varint"),
        ("unknown tag", section(playerName: { $0.byte(0x7F) }), "bad tag 0x7f"),
        ("wrong tag for the type", section(playerName: { $0.tag(.int); $0.signedVarint(5) }), "bad tag 0x3 (int) for attribute name"),
        ("to-one index out of range", section(playerTeam: { $0.tag(.toOne); $0.varint(2) }), "bad index 2"),
        ("to-many index out of range", section(teamPlayers: { $0.tag(.toMany); $0.varint(1); $0.varint(99) }), "bad index 99"),
        ("to-one to the wrong entity", section(playerTeam: { $0.tag(.toOne); $0.varint(1) }), "that node is not a Team"),
        ("entity name index out of range", section(teamEntity: 40), "bad index 40"),
        ("unknown entity", section(strings: ["Ghost", "Player", "name", "players", "team"]), "unknown entity \"Ghost\""),
        ("unknown property", section(strings: ["Team", "Player", "name", "players", "tean"]), "no stored property \"tean\""),
        ("column of the wrong kind", section(playerColumns: [(2, 0), (4, 2)]), "has kind 2"),
        ("column twice", section(teamColumns: [(2, 0), (2, 0)]), "appears twice"),
        ("invalid UTF-8 in a value", section(playerName: { w in w.tag(.string); w.varint(3); w.byte(0x61); w.byte(0xC3); w.byte(0x28) }), "not valid UTF-8"),
        ("invalid UTF-8 in a name", section(strings: ["Team", "Player", "name", "players", "te\u{FFFD}m"]), "no stored property"),
        ("a reference of a bad kind", section(teamReference: { $0.tag(.double); $0.double(1) }), "a reference object is an int, a string or a uuid"),
        ("bytes after the last record", section(trailing: [0]), "unexpected byte(s) after the last record"),
        ("cut inside a record", Array(section().dropLast(2)), "unexpected end of file"),
        ("next reference zero", section(nextReference: 0), "out of range"),
        ("entity block twice", section(teamEntity: 1), "has two blocks"),
    ]

    @Test(arguments: damagedSections.indices)
    func aLyingDataSectionFailsWithItsOffset(_ index: Int) throws {
        let (name, data, expected) = Self.damagedSections[index]
        for compressed in [false, true] {
            let error = try Self.failure(Self.file(data: data, compressed: compressed))
            #expect(error?.code == .persistentStoreOpen, "\(name)")
            #expect(error?.message.contains(expected) == true, "\(name): \(error?.message ?? "")")
            #expect(error?.message.contains("byte ") == true, "\(name): \(error?.message ?? "")")
        }
    }

    @Test func duplicateReferenceObjectsAreNamed() throws {
        // Two Teams with the same reference object.
        let data = Self.section(
            teamNodeCount: 2,
            teamReference: { w in w.tag(.int); w.signedVarint(1); w.tag(.int); w.signedVarint(1) },
            teamName: { $0.tag(.string); $0.string("A") },
            teamPlayers: { w in
                w.tag(.toMany); w.varint(0)  // the first Team's players, then the second Team's record
                w.varint(1); w.tag(.string); w.string("B"); w.tag(.toMany); w.varint(1); w.varint(2)
            })
        let error = try Self.failure(Self.file(data: data))
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("duplicate reference objects") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("Team 1 appears twice") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("byte ") == true, "\(error?.message ?? "")")
    }

    @Test func wrongValuesForTheirTypesAreRefused() throws {
        let model = Models.allTypes
        let cases: [(AttributeType, Part, String)] = [
            (.integer16, { $0.tag(.int); $0.signedVarint(40_000) }, "does not fit"),
            (.integer32, { $0.tag(.int); $0.signedVarint(Int64(Int32.min) - 1) }, "does not fit"),
            (.float, { $0.tag(.double); $0.double(0.1) }, "is not a float"),
            (.decimal, { $0.tag(.decimal); $0.string("1.5x") }, "is not a decimal"),
            (.decimal, { $0.tag(.decimal); $0.string("--1") }, "is not a decimal"),
            (.uri, { $0.tag(.uri); $0.string("") }, "is not a URI"),
            (.objectID, { $0.tag(.objectID); $0.string("https://example.com") }, "is not an object ID"),
            (.boolean, { $0.tag(.int); $0.signedVarint(1) }, "bad tag"),
            (.uuid, { $0.tag(.uuid); $0.byte(1) }, "unexpected end of file"),
        ]
        for (type, value, expected) in cases {
            let w = BinaryWriter(capacity: 64)
            w.varint(2)
            w.varint(2)
            w.string("AllTypes")
            w.string(type.rawValue + "Optional")
            w.varint(1)
            w.varint(0)
            w.varint(1)
            w.tag(.int)
            w.signedVarint(1)
            w.varint(1)
            w.varint(1)
            w.byte(0)
            w.varint(1)
            value(w)
            let bytes = Self.file(data: Array(w.bytes))
            try withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("Hostile.store")
                try bytes.write(to: url)
                let coordinator = PersistentStoreCoordinator(model: model, registry: binaryRegistry)
                let error = storeError { try coordinator.addPersistentStore(type: "Binary", at: url) }
                #expect(error?.message.contains(expected) == true, "\(type): \(error?.message ?? "")")
                #expect(error?.propertyName == type.rawValue + "Optional" || expected.contains("end of file"), "\(type)")
            }
        }
    }

    @Test func deeplyNestedMetadataIsRefusedWithoutExhaustingTheStack() throws {
        let w = BinaryWriter(capacity: 1 << 20)
        w.tag(.dictionary)
        w.varint(1)
        w.string("deep")
        for _ in 0..<100_000 {
            w.tag(.array)
            w.varint(1)
        }
        w.tag(.true)
        let error = try Self.failure(Self.file(data: Self.section(), metadata: Array(w.bytes)))
        #expect(error?.message.contains("nests deeper than") == true, "\(error?.message ?? "")")
    }

    @Test func metadataThatLiesIsRefused() throws {
        let notADictionary = BinaryWriter(capacity: 16)
        notADictionary.tag(.string)
        notADictionary.string("Binary")
        let hugeDictionary = BinaryWriter(capacity: 16)
        hugeDictionary.tag(.dictionary)
        hugeDictionary.varint(UInt64.max)
        let otherType = BinaryMetadataCodec.encode([MetadataKey.storeType: "XML", MetadataKey.storeUUID: "x"])
        for (metadata, expected, code) in [
            (Array(notADictionary.bytes), "not a dictionary", StoreError.Code.persistentStoreOpen),
            (Array(hugeDictionary.bytes), "says", .persistentStoreOpen),
            (otherType, "not Binary", .persistentStoreTypeMismatch),
        ] {
            let error = try Self.failure(Self.file(data: Self.section(), metadata: metadata))
            #expect(error?.code == code)
            #expect(error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
    }

    @Test func headersThatLieAreRefused() throws {
        let data = Self.section()
        let cases: [(String, (inout BinaryFileHeader) -> Void, Bool, String)] = [
            ("newer version", { $0.version = 2 }, false, "format version 2"),
            ("unknown flag", { $0.flags = 0x8000 }, false, "unknown flags"),
            ("lengths differ uncompressed", { $0.dataLength += 1 }, false, "lengths differ"),
            ("inflated length beyond deflate's ratio", { $0.dataLength = $0.storedDataLength * 2000 }, true, "more than deflate can produce"),
            ("inflated length too short", { $0.dataLength -= 1 }, true, "cannot be inflated"),
            ("inflated length too long", { $0.dataLength += 1 }, true, "cannot be inflated"),
            ("stored length beyond the file", { $0.storedDataLength = .max }, false, "the file is truncated or has extra bytes"),
        ]
        for (name, change, compressed, expected) in cases {
            let error = try Self.failure(Self.file(data: data, compressed: compressed, header: change))
            #expect(error?.code == .persistentStoreOpen, "\(name)")
            #expect(error?.message.contains(expected) == true, "\(name): \(error?.message ?? "")")
        }
    }

    /// A deflate bomb: a small deflated section whose header declares 100 MiB once inflated
    /// (within deflate's own ratio, so the header alone does not refuse it). The declared size
    /// is refused against the default limit before anything is inflated.
    @Test func aDeflateBombIsRefusedBeforeInflating() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<200_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let bomb = Self.file(data: Self.section(trailing: noise), compressed: true) { $0.dataLength = 100 << 20 }
        let error = try Self.failure(bomb)
        #expect(error?.code == .persistentStoreOpen)
        #expect(error?.message.contains("declares 104857600 bytes once inflated") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("nothing was inflated") == true)
        #expect(error?.message.contains(AtomicBinaryStore.maximumInflatedSizeOption) == true)
    }

    /// The limit is the caller's: below a file's declared size it refuses the file untouched,
    /// above it the same file loads; a limit that is not a positive integer is an option error.
    @Test func theInflatedSizeLimitIsAnOption() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Limited.store")
            let bytes = Self.file(data: Self.section(), compressed: true)
            try bytes.write(to: url)
            let refused = storeError {
                _ = try BinaryStore(model: Models.league, url: url, options: [AtomicBinaryStore.maximumInflatedSizeOption: .int(16)])
            }
            #expect(refused?.code == .persistentStoreOpen)
            #expect(refused?.message.contains("more than the limit of 16 bytes") == true, "\(refused?.message ?? "")")
            #expect(contents(of: url) == bytes, "the file is not modified")
            let loaded = try BinaryStore(model: Models.league, url: url, options: [AtomicBinaryStore.maximumInflatedSizeOption: .int(1 << 20)])
            #expect(try loaded.nodes("Team").count == 1)
            let invalid = storeError {
                _ = try BinaryStore(model: Models.league, url: url, options: [AtomicBinaryStore.maximumInflatedSizeOption: .int(0)])
            }
            #expect(invalid?.code == .persistentStoreOperation)
        }
    }

    @Test func filesOfOtherTypesAreATypeMismatchAndUntouched() throws {
        let others: [Data] = [
            Data("SQLite format 3\u{0}".utf8) + Data(count: 100), Data("<?xml version=\"1.0\"?><database/>".utf8),
            Data("#PipeCSV|format=1|metadata=\n".utf8), Data([0x00, 0x01, 0x02]), Data("{}".utf8),
        ]
        for bytes in others {
            let error = try Self.failure(bytes)
            #expect(error?.code == .persistentStoreTypeMismatch, "\(error?.message ?? "")")
        }
        // A prefix of the magic is a truncated Binary store, not another type.
        let truncated = try Self.failure(Data(BinaryFileHeader.magic.prefix(5)))
        #expect(truncated?.code == .persistentStoreOpen)
    }
}
