import Foundation
import StoreCore
import StoreTestSupport
import Testing
import XMLStore

/// A store file around `objects` (which start on line 11), in Core Data's layout.
func storeDocument(_ objects: String, metadata: String = "<metadata></metadata>") -> String {
    """
    <?xml version="1.0"?>
    <!DOCTYPE database SYSTEM "file:///System/Library/DTDs/CoreData.dtd">

    <database>
        <databaseInfo>
            <version>134481920</version>
            <UUID>0C7C2B1A-57C0-4C5E-9E0C-4D3B3C1E2F10</UUID>
            <nextObjectID>10</nextObjectID>
            \(metadata)
        </databaseInfo>
    \(objects)
    </database>

    """
}

/// A valid Team (z1, line 11–14) and Player (z2, line 15–19).
let validObjects = """
        <object type="TEAM" id="z1">
            <attribute name="name" type="string">Crew</attribute>
            <relationship name="players" type="0/0" destination="PLAYER" idrefs="z2"></relationship>
        </object>
        <object type="PLAYER" id="z2">
            <attribute name="firstname" type="string">Jordan</attribute>
            <attribute name="lastname" type="string">Gordon</attribute>
            <relationship name="team" type="1/1" destination="TEAM" idrefs="z1"></relationship>
        </object>
    """

/// A file that must not load: its text, the model, and what the error must say.
struct MalformedCase: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let line: Int
    let fragment: String
    var code: StoreError.Code = .persistentStoreOpen
    var shapes = false

    var testDescription: String { name }
}

/// Writes `text` to a fresh store file, adds it, and returns the error (the file is checked to
/// be unchanged).
func loadError(_ text: String, model: ObjectModel = Models.league, sourceLocation: SourceLocation = #_sourceLocation) throws -> (StoreError?, URL) {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("Bad.xml")
        try write(text, to: url)
        let before = contents(of: url)
        let error = storeError({ _ = try XMLStack(model: model, url: url) }, sourceLocation: sourceLocation)
        #expect(contents(of: url) == before, "the file was modified", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Bad.xml"], sourceLocation: sourceLocation)
        return (error, url)
    }
}

@Suite("Malformed input")
struct MalformedInputTests {
    static let cases: [MalformedCase] = [
        MalformedCase(
            name: "unclosed element", text: storeDocument(validObjects.replacingOccurrences(of: "Gordon</attribute>", with: "Gordon")),
            line: 19, fragment: "Opening and ending tag mismatch: attribute line 17 and object"),
        truncated(before: "Jordan"),
        truncated(before: "</object>\n    <object"),
        MalformedCase(
            name: "no end of database", text: storeDocument(validObjects).replacingOccurrences(of: "</database>", with: ""),
            line: 21, fragment: "malformed XML"),
        MalformedCase(
            name: "content after the root", text: storeDocument(validObjects) + "<database></database>\n", line: 21,
            fragment: "malformed XML"),
        MalformedCase(
            name: "invalid UTF-8", text: storeDocument(validObjects.replacingOccurrences(of: "Jordan", with: "Jor\u{FFFD}dan")),
            line: 16, fragment: "malformed XML"),
        MalformedCase(
            name: "unknown entity type", text: storeDocument(validObjects.replacingOccurrences(of: "\"PLAYER\" id", with: "\"COACH\" id")),
            line: 15, fragment: "unknown entity type \"COACH\""),
        MalformedCase(
            name: "unknown attribute", text: storeDocument(validObjects.replacingOccurrences(of: "\"lastname\"", with: "\"surname\"")),
            line: 17, fragment: "entity Player has no attribute \"surname\""),
        MalformedCase(
            name: "dangling idref", text: storeDocument(validObjects.replacingOccurrences(of: "idrefs=\"z2\"", with: "idrefs=\"z2 z99\"")),
            line: 13, fragment: "refers to z99, which no object of the file has"),
        MalformedCase(
            name: "duplicate id", text: storeDocument(validObjects.replacingOccurrences(of: "id=\"z2\"", with: "id=\"z1\"")),
            line: 15, fragment: "duplicate object id z1 (already used by the Team on line 11)"),
        MalformedCase(
            name: "id that is not z<number>", text: storeDocument(validObjects.replacingOccurrences(of: "id=\"z2\"", with: "id=\"p2\"")),
            line: 15, fragment: "id \"p2\" is not z<number>"),
        MalformedCase(
            name: "idref that is not z<number>", text: storeDocument(validObjects.replacingOccurrences(of: "idrefs=\"z1\"", with: "idrefs=\"team\"")),
            line: 18, fragment: "refers to \"team\", which is not an object id"),
        MalformedCase(
            name: "to-one with two destinations", text: storeDocument(validObjects.replacingOccurrences(of: "idrefs=\"z1\"", with: "idrefs=\"z1 z1\"")),
            line: 18, fragment: "to-one relationship team refers to 2 objects"),
        MalformedCase(
            name: "idref to the wrong entity", text: storeDocument(validObjects.replacingOccurrences(of: "idrefs=\"z1\"", with: "idrefs=\"z2\"")),
            line: 18, fragment: "a Player (line 15), but its destination is Team"),
        MalformedCase(
            name: "character XML does not allow",
            text: storeDocument(validObjects.replacingOccurrences(of: "<attribute name=\"name\" type=\"string\">Crew</attribute>", with: "<attribute name=\"name\" type=\"string\">Crew</attribute><attribute name=\"uniformcolor\" type=\"string\">&#x1;</attribute>")),
            line: 12, fragment: "malformed XML"),
        MalformedCase(
            name: "element inside a value",
            text: storeDocument(validObjects.replacingOccurrences(of: ">Crew<", with: "><b>Crew</b><")), line: 12,
            fragment: "unexpected element <b> in <attribute>"),
        MalformedCase(
            name: "unknown element in an object",
            text: storeDocument(validObjects.replacingOccurrences(of: "<attribute name=\"name\"", with: "<property name=\"name\"").replacingOccurrences(of: "Crew</attribute>", with: "Crew</property>")),
            line: 12, fragment: "unexpected element <property> in the TEAM z1"),
        MalformedCase(
            name: "text between objects", text: storeDocument("    stray text\n" + validObjects), line: 11, fragment: "unexpected text in <database>"),
        MalformedCase(
            name: "object without type", text: storeDocument(validObjects.replacingOccurrences(of: "type=\"TEAM\" ", with: "")),
            line: 11, fragment: "an <object> without a type attribute"),
        MalformedCase(
            name: "attribute in a relationship's place",
            text: storeDocument(validObjects.replacingOccurrences(of: "<relationship name=\"players\" type=\"0/0\" destination=\"PLAYER\" idrefs=\"z2\"></relationship>", with: "<attribute name=\"players\" type=\"string\">z2</attribute>")),
            line: 13, fragment: "players is a relationship of Team, not an attribute"),
        MalformedCase(
            name: "a property twice",
            text: storeDocument(validObjects.replacingOccurrences(of: "<attribute name=\"firstname\" type=\"string\">Jordan</attribute>", with: "<attribute name=\"firstname\" type=\"string\">Jordan</attribute><attribute name=\"FirstName\" type=\"string\">Jo</attribute>")),
            line: 16, fragment: "attribute firstName appears twice"),
        MalformedCase(
            name: "unknown attribute type code",
            text: storeDocument(validObjects.replacingOccurrences(of: "type=\"string\">Crew", with: "type=\"text\">Crew")), line: 12,
            fragment: "unknown type \"text\""),
        MalformedCase(
            name: "metadata value that does not parse",
            text: storeDocument(validObjects, metadata: "<metadata><plist version=\"1.0\"><dict><key>n</key><integer>twelve</integer></dict></plist></metadata>"),
            line: 9, fragment: "the metadata's <integer> \"twelve\" is not a 64-bit integer"),
        MalformedCase(
            name: "metadata that is not a dictionary",
            text: storeDocument(validObjects, metadata: "<metadata><plist version=\"1.0\"><array/></plist></metadata>"),
            line: 9, fragment: "the metadata is not a dictionary"),
        MalformedCase(
            name: "non-integer nextObjectID",
            text: storeDocument(validObjects).replacingOccurrences(of: "<nextObjectID>10<", with: "<nextObjectID>ten<"), line: 8,
            fragment: "nextObjectID \"ten\" is not an integer"),
        MalformedCase(
            name: "an instance of an abstract entity",
            text: storeDocument("    <object type=\"SHAPE\" id=\"z1\"></object>"), line: 11,
            fragment: "entity Shape is abstract", shapes: true),
        MalformedCase(
            name: "metadata of another store type",
            text: storeDocument(validObjects, metadata: "<metadata><plist version=\"1.0\"><dict><key>NSStoreType</key><string>SQLite</string></dict></plist></metadata>"),
            line: 0, fragment: "its metadata says it is a store of type SQLite", code: .persistentStoreTypeMismatch),
    ] + valueCases

    /// The store file cut just before the first occurrence of `marker`; the error is on the
    /// last line.
    static func truncated(before marker: String) -> MalformedCase {
        let full = storeDocument(validObjects)
        let cut = full.range(of: marker).map { String(full[..<$0.lowerBound]) } ?? full
        return MalformedCase(
            name: "truncated before \(marker.debugDescription)", text: cut, line: cut.filter { $0 == "\n" }.count + 1,
            fragment: "malformed XML")
    }

    /// One value that does not parse for each attribute type that can fail.
    static let valueCases: [MalformedCase] = [
        ("integer16", "int16", "70000"), ("integer32", "int32", "12abc"), ("integer64", "int64", "9223372036854775808"),
        ("decimal", "decimal", "1.2.3"), ("double", "double", "one"), ("float", "float", "0x"), ("boolean", "bool", "maybe"),
        ("date", "date", "yesterday"), ("binaryData", "binary", "not base64!"), ("transformable", "transformable", "%%%"),
        ("uuid", "uuid", "not-a-uuid"), ("uri", "uri", ""), ("objectID", "objectid", "https://example.com/"),
    ].map { name, code, value in
        MalformedCase(
            name: "\(code) value \"\(value)\"",
            text: storeDocument("""
                    <object type="ALLTYPES" id="z1">
                        <attribute name="\(name.lowercased())" type="\(code)">\(value)</attribute>
                    </object>
                """), line: 12, fragment: "the value \"\(value)\" of attribute \(name) is not a valid \(code)")
    }

    @Test(arguments: cases)
    func isAClearErrorNamingFileAndLine(_ malformed: MalformedCase) throws {
        let model =
            malformed.name.contains(" value \"") ? Models.allTypes : malformed.shapes ? Models.shapes : Models.league
        let text = malformed.name == "invalid UTF-8" ? malformed.text : malformed.text
        var bytes = Data(text.utf8)
        if malformed.name == "invalid UTF-8", let range = bytes.range(of: Data("\u{FFFD}".utf8)) {
            bytes.replaceSubrange(range, with: [0xC3, 0x28])
        }
        let (error, url) = try withTemporaryDirectory { directory -> (StoreError?, URL) in
            let url = directory.appendingPathComponent("Bad.xml")
            try bytes.write(to: url)
            let error = storeError { _ = try XMLStack(model: model, url: url) }
            #expect(contents(of: url) == bytes, "the file was modified")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Bad.xml"])
            return (error, url)
        }
        let failure = try #require(error)
        #expect(failure.code == malformed.code, "\(failure)")
        #expect(failure.message.contains(url.path), "\(failure.message)")
        if malformed.line > 0 {
            #expect(failure.message.contains("line \(malformed.line):") || failure.message.contains("line \(malformed.line),"), "\(failure.message)")
        }
        #expect(failure.message.contains(malformed.fragment), "\(failure.message)")
        #expect(failure.fileURL == url)
    }

    @Test func aValidFileLoads() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Good.xml")
            try write(storeDocument(validObjects), to: url)
            let stack = try XMLStack(model: Models.league, url: url)
            let players = try stack.nodes("Player")
            #expect(players.map { $0.attributes["firstName"] } == ["Jordan"])
            #expect(players.first?.toOne["team"]?.referenceObject == .int(1))
            #expect(try stack.nodes("Team").first?.toMany["players"] == players.map(\.objectID))
            #expect(stack.store.identifier == "0C7C2B1A-57C0-4C5E-9E0C-4D3B3C1E2F10")
        }
    }

    @Test func namesAreMatchedCaseInsensitively() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Mixed.xml")
            let mixed = validObjects.replacingOccurrences(of: "\"TEAM\" id", with: "\"Team\" id")
                .replacingOccurrences(of: "\"firstname\"", with: "\"firstName\"").replacingOccurrences(of: "\"lastname\"", with: "\"LASTNAME\"")
            try write(storeDocument(mixed), to: url)
            let stack = try XMLStack(model: Models.league, url: url)
            #expect(try stack.nodes("Player").first?.attributes == ["firstName": "Jordan", "lastName": "Gordon"])
            #expect(try stack.nodes("Team").count == 1)
        }
    }

    @Test func aModelWhoseNamesCollideWithoutCaseIsRejected() throws {
        let properties = Models.build {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("Name", .string)
            }
        }
        let entities = Models.build {
            Entity("Item") { Attribute("a", .string) }
            Entity("ITEM") { Attribute("b", .string) }
        }
        for (model, fragment) in [(properties, "properties name and Name of entity Person"), (entities, "entities Item and ITEM")] {
            try withTemporaryDirectory { directory in
                let url = directory.appendingPathComponent("Collide.xml")
                let error = storeError { _ = try XMLStack(model: model, url: url) }
                #expect(error?.code == .persistentStoreIncompatibleSchema)
                #expect(error?.message.contains(fragment) == true, "\(error?.message ?? "")")
                #expect(!FileManager.default.fileExists(atPath: url.path))
            }
        }
    }

    /// Lines past 65,535 (where libxml2's node line numbers stop) are still named exactly.
    @Test func errorsFarIntoALargeFileNameTheirLine() throws {
        var objects = ""
        let count = 20_000
        for number in 1...count {
            objects += "    <object type=\"TEAM\" id=\"z\(number)\">\n        <attribute name=\"name\" type=\"string\">T\(number)</attribute>\n"
            objects += "        <relationship name=\"players\" type=\"0/0\" destination=\"PLAYER\"></relationship>\n    </object>\n"
        }
        // Object n starts on line 11 + 4(n-1); the last one's relationship is on line 11 + 4(count-1) + 2.
        let bad = objects.replacingOccurrences(
            of: "destination=\"PLAYER\"></relationship>\n    </object>\n", with: "destination=\"PLAYER\" idrefs=\"z0\"></relationship>\n    </object>\n",
            options: .backwards, range: objects.index(objects.endIndex, offsetBy: -200)..<objects.endIndex)
        let (error, _) = try loadError(storeDocument(String(bad.dropLast())))
        let line = 11 + 4 * (count - 1) + 2
        #expect(line > 65_535)
        #expect(error?.message.contains("line \(line):") == true, "\(error?.message ?? "")")
    }
}

@Suite("Files of another type")
struct OtherTypeTests {
    static let files: [(String, [UInt8])] = [
        ("SQLite", Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 0, count: 100)),
        ("PipeCSV", Array("#PipeCSV|format=1|metadata=abc\nTeam|1|name=Crew\n".utf8)),
        ("JSON", Array("{\"entities\": []}".utf8)),
        ("binary", [0x50, 0x53, 0x42, 0x49, 0x4E, 0x00, 0x01, 0xFF, 0xFE, 0x00]),
        ("property list", Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><dict/></plist>\n".utf8)),
        ("XHTML", Array("<html><body>hello</body></html>".utf8)),
        ("whitespace", Array("  \n\t ".utf8)),
    ]

    @Test(arguments: files.map(\.0))
    func isATypeMismatchAndIsNotModified(_ kind: String) throws {
        let bytes = try #require(Self.files.first { $0.0 == kind }?.1)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Other.xml")
            try Data(bytes).write(to: url)
            let error = storeError { _ = try XMLStack(model: Models.league, url: url) }
            #expect(error?.code == .persistentStoreTypeMismatch, "\(error.map { "\($0)" } ?? "")")
            #expect(error?.message.contains(url.path) == true)
            let metadataError = storeError { _ = try XMLStore.metadata(forStoreAt: url, options: [:]) }
            #expect(metadataError?.code == .persistentStoreTypeMismatch)
            let setError = storeError { try XMLStore.setMetadata(["k": "v"], forStoreAt: url, options: [:]) }
            #expect(setError?.code == .persistentStoreTypeMismatch)
            #expect(contents(of: url) == Data(bytes))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Other.xml"])
        }
    }
}
