import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import PipeCSVStore

/// League plus an entity with one attribute per kind of parser.
let malformedModel: ObjectModel = {
    do {
        return try ObjectModel(
            entities: Models.league.entities + [
                Entity("Stats") {
                    Attribute("count", .integer16)
                    Attribute("when", .date)
                    Attribute("ratio", .double)
                    Attribute("flag", .boolean)
                    Attribute("blob", .binaryData)
                    Attribute("id", .uuid)
                    Attribute("price", .decimal)
                }
            ])
    } catch {
        Issue.record("invalid model: \(error)")
        return Models.league
    }
}()

/// The metadata file the original format wrote.
let customStoreMetadata = Data(
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict>
    <key>NSStoreType</key><string>CustomStore</string>
    <key>NSStoreUUID</key><string>11111111-2222-3333-4444-555555555555</string>
    </dict></plist>
    """.utf8)

/// Adds a store over `data` (with the original's metadata file unless `metadata` is nil) and
/// returns the error; checks that neither file changed and no other file appeared.
func loadError(
    _ data: [UInt8], metadata: Data? = customStoreMetadata, options: StoreOptions = [:],
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> StoreError? {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("Bad.txt")
        try Data(data).write(to: url)
        let metadataURL = PipeCSVStore.metadataURL(forStoreAt: url)
        if let metadata { try metadata.write(to: metadataURL) }
        let error = storeError({ _ = try PipeStore(model: malformedModel, url: url, options: options) }, sourceLocation: sourceLocation)
        #expect(contents(of: url) == Data(data), "the data file was modified", sourceLocation: sourceLocation)
        if let metadata {
            #expect(contents(of: metadataURL) == metadata, "the metadata file was modified", sourceLocation: sourceLocation)
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(files == (metadata == nil ? ["Bad.txt"] : ["Bad.plist", "Bad.txt"]), sourceLocation: sourceLocation)
        return error
    }
}

struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let data: [UInt8]
    let line: Int
    let fragment: String

    init(_ name: String, _ text: String, line: Int, _ fragment: String) {
        self.init(name, Array(text.utf8), line: line, fragment)
    }

    init(_ name: String, _ data: [UInt8], line: Int, _ fragment: String) {
        self.name = name
        self.data = data
        self.line = line
        self.fragment = fragment
    }

    var testDescription: String { name }
}

@Suite("Malformed input")
struct MalformedInputTests {
    static let cases: [MalformedCase] = [
        MalformedCase("unknown entity", "Team|t1|name=A\nCoach|c1|name=B\n", line: 2, "unknown entity \"Coach\""),
        MalformedCase("too few fields", "Team|t1|name=A\n\nTeam\n", line: 3, "fewer than two fields"),
        MalformedCase("field without =", "Team|t1|name\n", line: 1, "is not key=value"),
        MalformedCase("unknown property", "Team|t1|mascot=Lion\n", line: 1, "has no property \"mascot\""),
        MalformedCase("property twice", "Team|t1|name=A|name=B\n", line: 1, "appears twice"),
        MalformedCase("empty reference", "Team||name=A\n", line: 1, "has no reference object"),
        MalformedCase("dangling reference", "Team|t1\nPlayer|p1|team=t9\n", line: 2, "dangling"),
        MalformedCase("duplicate reference", "Team|x|name=A\nPlayer|x|firstName=B\n", line: 2, "duplicate reference object \"x\""),
        MalformedCase("wrong destination entity", "Player|p1|team=p2\nPlayer|p2\n", line: 1, "a Player (line 2)"),
        MalformedCase("to-one with two references", "Team|t1\nTeam|t2\nPlayer|p1|team=t1,t2\n", line: 3, "holds 2 references"),
        MalformedCase("integer that does not parse", "Stats|s1|count=abc\n", line: 1, "not a valid integer16"),
        MalformedCase("integer out of range", "Stats|s1|count=70000\n", line: 1, "not a valid integer16"),
        MalformedCase("date that does not parse", "Stats|s1|when=yesterday\n", line: 1, "not a valid date"),
        MalformedCase("double that does not parse", "Stats|s1|ratio=1.5x\n", line: 1, "not a valid double"),
        MalformedCase("boolean that does not parse", "Stats|s1|flag=maybe\n", line: 1, "not a valid boolean"),
        MalformedCase("base64 that does not parse", "Stats|s1|blob=!!!\n", line: 1, "not a valid binaryData"),
        MalformedCase("UUID that does not parse", "Stats|s1|id=nope\n", line: 1, "not a valid uuid"),
        MalformedCase("decimal that does not parse", "Stats|s1|price=12abc\n", line: 1, "not a valid decimal"),
        MalformedCase(
            "invalid UTF-8", Array("Team|t1|name=A\nTeam|t2|name=".utf8) + [0x41, 0xFF, 0x42, 0x0A], line: 2,
            "not valid UTF-8 (byte 15 of the line)"),
    ]

    @Test(arguments: cases)
    func isAClearErrorNamingFileAndLine(_ malformed: MalformedCase) throws {
        let error = try #require(try loadError(malformed.data))
        #expect(error.code == .persistentStoreOpen)
        #expect(error.message.contains("Bad.txt, line \(malformed.line):"), "\(error.message)")
        #expect(error.message.contains(malformed.fragment), "\(error.message)")
        #expect(error.fileURL?.lastPathComponent == "Bad.txt")
    }

    @Test func lenientModeSkipsWhatTheOriginalSkippedAndNothingElse() throws {
        let text = "Team|t1|name=A\nCoach|c1|name=B\nJunk\n\nPlayer|p1|team=t1\n"
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Lenient.txt")
            try Data(text.utf8).write(to: url)
            try customStoreMetadata.write(to: PipeCSVStore.metadataURL(forStoreAt: url))
            let pipe = try PipeStore(model: malformedModel, url: url, options: [PipeCSVStore.lenientParsingOption: true])
            #expect(try pipe.nodes("Team").count == 1)
            #expect(try pipe.nodes("Player").first?.toOne["team"] == pipe.nodes("Team").first?.objectID)
        }
        let strict = try #require(try loadError(Array(text.utf8)))
        #expect(strict.message.contains("line 2: unknown entity"))
        let dangling = try #require(try loadError(Array("Coach|c\nPlayer|p1|team=t1\n".utf8), options: [PipeCSVStore.lenientParsingOption: true]))
        #expect(dangling.message.contains("line 2: relationship team refers to \"t1\""))
    }

    @Test func aFileTheOriginalWroteReadsTheSameUnderTheEscapingRules() throws {
        // No backslash: `=` inside a value and `(null)` behave as the original read them.
        let text = "Team|t1|name=A=B|uniformColor=(null)|players=(null)\n"
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Original.txt")
            try Data(text.utf8).write(to: url)
            let pipe = try PipeStore(model: malformedModel, url: url)
            let team = try #require(try pipe.nodes("Team").first)
            #expect(team.attributes == ["name": "A=B"])
            #expect(team.toMany["players"] == [])
            #expect(team.objectID.referenceObject == .string("t1"))
        }
    }

    // MARK: Framed files (written by this store)

    /// A file this store wrote: two teams and a player.
    static func framedFile() throws -> [UInt8] {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Framed.txt")
            let pipe = try PipeStore(model: malformedModel, url: url)
            let ids = try pipe.newIDs("Team", count: 2) + pipe.newIDs("Player")
            try pipe.save(inserted: [
                StoreNode(objectID: ids[0], attributes: ["name": "Crew"], toMany: ["players": [ids[2]]], version: 0),
                StoreNode(objectID: ids[1], attributes: ["name": "Fire"], version: 0),
                StoreNode(objectID: ids[2], attributes: ["firstName": "Pat"], toOne: ["team": ids[0]], version: 0),
            ])
            return Array(contents(of: url))
        }
    }

    @Test func aTruncatedFileIsDetected() throws {
        let file = try Self.framedFile()
        let lines = file.split(separator: 0x0A, omittingEmptySubsequences: false)
        #expect(lines.count == 6)  // header, 3 records, end line, ""
        let midLine = try #require(try loadError(Array(file.dropLast(10)), metadata: nil))
        #expect(midLine.message.contains("truncated"), "\(midLine.message)")
        let lastLineGone = Array(file.prefix(file.count - lines[4].count - 1))
        let missingEnd = try #require(try loadError(lastLineGone, metadata: nil))
        #expect(missingEnd.message.contains("line 4: the file is truncated: its end line (#PipeCSV-end) is missing"), "\(missingEnd.message)")
    }

    @Test func aFlippedByteIsAChecksumError() throws {
        var file = try Self.framedFile()
        let pat = Array("=Pat|".utf8)
        let position = try #require((0..<(file.count - pat.count)).first { Array(file[$0..<$0 + pat.count]) == pat })
        file[position + 1] ^= 0x20  // "Pat" becomes "pat": still a valid line

        let error = try #require(try loadError(file, metadata: nil))
        #expect(error.code == .persistentStoreOpen)
        #expect(error.message.contains("checksum mismatch"), "\(error.message)")
        #expect(error.message.contains("line 5"), "\(error.message)")
    }

    @Test func aMissingRecordWithAValidChecksumIsDetected() throws {
        let file = try Self.framedFile()
        var lines = file.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        lines.remove(at: 2)  // a record (Fire, or Pat's team: either way one line fewer)
        var body: [UInt8] = []
        for line in lines.prefix(lines.count - 2) { body += line + [0x0A] }
        var checksum = CRC32()
        checksum.update(body)
        let trailer = PipeCSVFileLayout.trailerLine(records: 3, checksum: checksum)
        let error = try #require(try loadError(body + trailer, metadata: nil))
        #expect(error.message.contains("the end line says 3 records, the file holds 2") || error.message.contains("dangling"), "\(error.message)")
    }

    @Test func aDamagedHeaderIsAClearError() throws {
        var file = try Self.framedFile()
        let position = try #require(file.firstIndex(of: UInt8(ascii: "=")).map { $0 + 1 })  // format=<digit>
        file[position] = UInt8(ascii: "9")
        let newer = try #require(try loadError(file, metadata: nil))
        #expect(newer.message.contains("line 1: the header line cannot be read: it has format version 9"), "\(newer.message)")
    }
}

extension MalformedInputTests {
    /// Random damage to a file (byte flips, separators and backslashes inserted, cuts) never
    /// crashes the reader: every load succeeds or throws a StoreError naming the file.
    @Test(arguments: [false, true])
    func randomDamageIsAlwaysAStoreErrorNeverACrash(framed: Bool) throws {
        var file = try Self.framedFile()
        if !framed {
            // Without the frame the checksum cannot catch the damage: the line parser must.
            var lines = file.split(separator: 0x0A).map(Array.init)
            lines.removeFirst()
            lines.removeLast()
            file = lines.flatMap { $0 + [0x0A] }
        }
        var generator = SplitMix64(seed: framed ? 1 : 2)
        let interesting: [UInt8] = Array("|=,\\\n()null#".utf8) + [0x00, 0xC3, 0xFF, 0x80]
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Fuzz.txt")
            if !framed { try customStoreMetadata.write(to: PipeCSVStore.metadataURL(forStoreAt: url)) }
            var loaded = 0
            var failed = 0
            for _ in 0..<300 {
                var damaged = file
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let position = Int.random(in: 0..<damaged.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: damaged[position] ^= UInt8.random(in: 1...255, using: &generator)
                    case 1: damaged.insert(interesting.randomElement(using: &generator) ?? 0, at: position)
                    case 2: damaged.removeSubrange(position..<min(damaged.count, position + Int.random(in: 1...20, using: &generator)))
                    default: damaged[position] = interesting.randomElement(using: &generator) ?? 0
                    }
                    if damaged.isEmpty { damaged = [0x7C] }
                }
                // A byte overwritten with its own value is no damage.
                if damaged == file { continue }
                try Data(damaged).write(to: url)
                do {
                    _ = try PipeStore(model: malformedModel, url: url)
                    loaded += 1
                } catch let error as StoreError {
                    failed += 1
                    #expect(error.message.contains("Fuzz."), "\(error.message)")
                } catch {
                    Issue.record("not a StoreError: \(error)")
                }
                #expect(contents(of: url) == Data(damaged))
            }
            #expect(failed > 0)
            if framed { #expect(loaded == 0, "the checksum let damage through") }
        }
    }
}
