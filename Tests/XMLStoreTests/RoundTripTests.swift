import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import XMLStore

/// Saves one AllTypes object with `attributes`, reopens the store with a new coordinator, and
/// returns the object as loaded (and the file's text).
func roundTrip(_ attributes: [String: StoreValue]) throws -> (node: StoreNode, text: String) {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("AllTypes.xml")
        let stack = try XMLStack(model: Models.allTypes, url: url)
        let id = try stack.newIDs("AllTypes")[0]
        try stack.save(inserted: [StoreNode(objectID: id, attributes: attributes, version: 0)])
        let reopened = try XMLStack(model: Models.allTypes, url: url)
        let nodes = try reopened.nodes("AllTypes")
        #expect(nodes.count == 1)
        let node = try #require(nodes.first)
        #expect(node.objectID == id)
        return (node, text(of: url))
    }
}

/// A value for every non-optional attribute.
func requiredValues() -> [String: StoreValue] {
    [
        "integer16": .int(Int64(Int16.max)), "integer32": .int(Int64(Int32.min)), "integer64": .int(Int64.max),
        "decimal": .decimal(Decimal(string: "12345678901234567890123456789012345678") ?? 0),
        "double": .double(.leastNonzeroMagnitude), "float": .double(Double(Float.leastNonzeroMagnitude)),
        "string": "", "boolean": true, "date": .date(Date(timeIntervalSinceReferenceDate: -1e9 - 0.123456789)),
        "binaryData": .data(Data()), "uuid": .uuid(UUID()),
        "uri": .uri(URL(string: "https://example.com/a%20b?q=1&r=2#frag") ?? URL(fileURLWithPath: "/")),
        "transformable": .data(Data([0, 1, 2, 255])),
        "objectID": .objectID(ObjectID(storeIdentifier: "S<1>", entityName: "AllTypes", reference: .string("a&b\"c"))),
    ]
}

@Suite("Round trips")
struct RoundTripTests {
    static let hostileStrings: [String] = [
        "", " ", "   spaces   ", "\t", "\n", "<", ">", "&", "&amp;", "&lt;x&gt;", "]]>", "<![CDATA[x]]>", "\"quoted\" 'single'",
        "<a href=\"x\">&amp;</a>", "line1\nline2\r\nline3\r", "\r", "🚀 👨‍👩‍👧‍👦 🇫🇷", "e\u{301} and <\u{301} and &\u{301}",
        "\u{0}nul", "bell\u{7} and escape\u{1B}", "\u{FFFE}\u{FFFF}", "\u{10FFFF}", "<!DOCTYPE x [<!ENTITY e \"boom\">]>&e;",
        "</attribute></object><object type=\"TEAM\" id=\"z1\">", "z1 z2", "<?xml version=\"1.0\"?>", "|=,\\", "\u{85}\u{2028}",
    ]

    @Test(arguments: hostileStrings)
    func hostileStringRoundTrips(_ string: String) throws {
        var values = requiredValues()
        values["string"] = .string(string)
        values["stringOptional"] = .string(string + "|" + string)
        let (node, text) = try roundTrip(values)
        #expect(node.attributes == values)
        // One object element: no value broke out of its element.
        #expect(text.components(separatedBy: "<object ").count == 2)
    }

    @Test func charactersXMLCannotCarryAreWrittenInBase64AndMarked() throws {
        var values = requiredValues()
        values["string"] = "a\u{0}b"
        let (node, text) = try roundTrip(values)
        #expect(node.attributes["string"] == "a\u{0}b")
        #expect(text.contains("<attribute name=\"string\" type=\"string\" encoding=\"base64\">\(Data("a\u{0}b".utf8).base64EncodedString())</attribute>"))
        #expect(text.contains("<attribute name=\"stringoptional\"") == false)
    }

    @Test func everyAttributeTypeRoundTripsWithExtremeValues() throws {
        var values = requiredValues()
        values["integer16Optional"] = .int(Int64(Int16.min))
        values["integer32Optional"] = .int(Int64(Int32.max))
        values["integer64Optional"] = .int(Int64.min)
        values["decimalOptional"] = .decimal(Decimal(string: "-1234567890123456789.0123456789012345678") ?? 0)
        values["doubleOptional"] = .double(-0.0)
        values["floatOptional"] = .double(Double(Float(0.1)))
        values["stringOptional"] = "optional"
        values["booleanOptional"] = false
        values["dateOptional"] = .date(Date(timeIntervalSinceReferenceDate: -0.000001))
        values["binaryDataOptional"] = .data(Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))
        values["uuidOptional"] = .uuid(UUID())
        values["uriOptional"] = .uri(URL(fileURLWithPath: "/tmp/a b/c<d>&.txt"))
        values["transformableOptional"] = .data(Data())
        values["objectIDOptional"] = .objectID(ObjectID(storeIdentifier: "S", entityName: "AllTypes", reference: .int(7)))
        #expect(Set(values.keys) == Set(Models.allTypes.attributes(of: "AllTypes").map(\.name)))
        let (node, text) = try roundTrip(values)
        #expect(node.attributes == values)
        guard case .double(let negativeZero)? = node.attributes["doubleOptional"] else {
            Issue.record("doubleOptional is not a double")
            return
        }
        #expect(negativeZero.sign == .minus)
        // Core Data's type codes.
        for (name, code) in [
            ("integer16", "int16"), ("integer32", "int32"), ("integer64", "int64"), ("decimal", "decimal"), ("double", "double"),
            ("float", "float"), ("string", "string"), ("boolean", "bool"), ("date", "date"), ("binarydata", "binary"),
            ("transformable", "transformable"), ("uuid", "uuid"), ("uri", "uri"), ("objectid", "objectid"),
        ] {
            #expect(text.contains("<attribute name=\"\(name)\" type=\"\(code)\">"), "\(name) is written as \(code)")
        }
        #expect(text.contains("<attribute name=\"integer64\" type=\"int64\">9223372036854775807</attribute>"))
        #expect(text.contains("<attribute name=\"boolean\" type=\"bool\">1</attribute>"))
        #expect(text.contains("<attribute name=\"date\" type=\"date\">-1000000000.12345683574676513672</attribute>"))
    }

    @Test func nilForEveryOptionalAttributeIsNoElement() throws {
        let values = requiredValues()
        let (node, text) = try roundTrip(values)
        #expect(node.attributes == values)
        for attribute in Models.allTypes.attributes(of: "AllTypes") where attribute.isOptional {
            #expect(!node.attributes.keys.contains(attribute.name))
            #expect(!text.contains("name=\"\(attribute.name.lowercased())\""))
        }
    }

    static let doubles: [Double] = [
        0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        .greatestFiniteMagnitude, 0.1, 1.0 / 3.0, -123.456e-300, 9_007_199_254_740_992,
    ]

    /// Doubles in the writer's form are read from the bytes (``NumberText/plainDouble(_:)``) and
    /// give what the general path gives.
    @Test func doublesReadFromTheBytesAgreeWithTheGeneralPath() {
        var generator = SystemRandomNumberGenerator()
        var texts = ["0", "-0", "-0.0", "1", "123.456", "9007199254740993", "0.1", "00012.50", " 1", "1e5", "336046917.00164198875427246094"]
        for _ in 0..<2_000 {
            let value = Double.random(in: -1e9...1e9, using: &generator)
            texts += [value.description, ((value * 100).rounded() / 100).description]
        }
        for text in texts {
            #expect(XMLValueCodec.decode(Array(text.utf8), as: .double) == XMLValueCodec.decode(text, as: .double), "\(text)")
        }
    }

    @Test(arguments: doubles)
    func doubleRoundTripsBitForBit(_ value: Double) throws {
        var values = requiredValues()
        values["doubleOptional"] = .double(value)
        values["floatOptional"] = .double(Double(Float(value)))
        let (node, _) = try roundTrip(values)
        guard case .double(let double)? = node.attributes["doubleOptional"],
            case .double(let float)? = node.attributes["floatOptional"]
        else {
            Issue.record("missing doubles")
            return
        }
        #expect(double.bitPattern == value.bitPattern || (value.isNaN && double.isNaN))
        #expect(float.bitPattern == Double(Float(value)).bitPattern || (value.isNaN && float.isNaN))
    }

    static let dates: [Double] = [
        0, -0.5, -1.25, 1e-7, -1e-7, 0.000001, -1e9 - 0.123456789, 333_757_117, 336_046_917.001_641_988_754_272_460_94,
        7.25e8 + 0.1, 123_456_789.123_456_79, Date.distantPast.timeIntervalSinceReferenceDate,
        Date.distantFuture.timeIntervalSinceReferenceDate, -63_114_076_800.5, 1e12 + 0.5, -1e12 - 0.75,
        -978_307_200.001, .leastNonzeroMagnitude, -.greatestFiniteMagnitude,
    ]

    @Test(arguments: dates)
    func dateRoundTripsBitForBit(_ seconds: Double) throws {
        var values = requiredValues()
        values["dateOptional"] = .date(Date(timeIntervalSinceReferenceDate: seconds))
        let (node, _) = try roundTrip(values)
        guard case .date(let date)? = node.attributes["dateOptional"] else {
            Issue.record("missing date")
            return
        }
        #expect(date.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern)
    }

    @Test func relationshipsOfEveryKindRoundTrip() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Shapes.xml")
            let stack = try XMLStack(model: Models.shapes, url: url)
            let polygon = try stack.newIDs("Polygon")[0]
            let circle = try stack.newIDs("Circle")[0]
            let vertices = try stack.newIDs("Vertex", count: 4)
            let canvases = try stack.newIDs("Canvas", count: 2)
            let order = [vertices[2], vertices[0], vertices[3], vertices[1]]
            var inserted = [
                StoreNode(objectID: polygon, attributes: ["color": "red"], toMany: ["vertices": order], version: 0),
                StoreNode(objectID: circle, attributes: ["color": "blue", "radius": .double(8)], version: 0),
                StoreNode(objectID: canvases[0], toOne: ["favorite": circle], version: 0),
                StoreNode(objectID: canvases[1], version: 0),
            ]
            for (index, vertex) in vertices.enumerated() {
                inserted.append(StoreNode(objectID: vertex, attributes: ["index": .int(Int64(index))], toOne: ["polygon": polygon], version: 0))
            }
            try stack.save(inserted: inserted)
            let reopened = try XMLStack(model: Models.shapes, url: url)
            let shapes = try reopened.nodes("Shape")
            #expect(Set(shapes.map(\.entityName)) == ["Circle", "Polygon"])
            #expect(shapes.first { $0.objectID == polygon }?.toMany["vertices"] == order)
            let loadedCanvases = try reopened.nodes("Canvas")
            #expect(loadedCanvases.first { $0.objectID == canvases[0] }?.toOne["favorite"] == circle)
            #expect(loadedCanvases.first { $0.objectID == canvases[1] }?.toOne.isEmpty == true)
            #expect(try reopened.nodes("Vertex").allSatisfy { $0.toOne["polygon"] == polygon })
            let text = text(of: url)
            #expect(text.contains("<relationship name=\"favorite\" type=\"1/1\" destination=\"SHAPE\"></relationship>"))
            #expect(text.contains("<relationship name=\"vertices\" type=\"3/0\" destination=\"VERTEX\" idrefs=\"\(order.map { "z\($0.referenceObject?.description ?? "")" }.joined(separator: " "))\"></relationship>"))
        }
    }
}

@Suite("Value text")
struct ValueTextTests {
    @Test func datesAreSecondsSince2001WithCoreDatasTwentyDigits() throws {
        #expect(XMLValueCodec.dateText(336_046_917.001_641_988_754_272_460_94) == "336046917.00164198875427246094")
        #expect(XMLValueCodec.dateText(0) == "0.00000000000000000000")
        #expect(XMLValueCodec.dateText(-0.5) == "-0.50000000000000000000")
        // 20 digits do not read back the Double next to 1e-7: more are written.
        let tiny = (1e-7).nextUp
        let small = XMLValueCodec.dateText(tiny)
        #expect(small.count > 22 && Double(small) == tiny)
        #expect(XMLValueCodec.decode("336046917.00164198875427246094", as: .date) == .date(Date(timeIntervalSinceReferenceDate: 336_046_917.001_641_988_754_272_460_94)))
    }

    @Test func numbersAndTheirLimits() throws {
        #expect(try XMLValueCodec.encode(.double(0.1), as: .double).text == "0.1")
        #expect(try XMLValueCodec.encode(.double(Double(Float(0.1))), as: .float).text == "0.1")
        #expect(try XMLValueCodec.encode(.bool(false), as: .boolean).text == "0")
        let absent: StoreValue? = .none
        #expect(XMLValueCodec.decode("12abc", as: .decimal) == absent)
        #expect(XMLValueCodec.decode("70000", as: .integer16) == absent)
        #expect(XMLValueCodec.decode("2147483648", as: .integer32) == absent)
        #expect(XMLValueCodec.decode("9223372036854775808", as: .integer64) == absent)
        #expect(XMLValueCodec.decode(" 42\n", as: .integer64) == .int(42))
        #expect(XMLValueCodec.decode("YES", as: .boolean) == .bool(true))
        #expect(XMLValueCodec.decode("2", as: .boolean) == absent)
        #expect(XMLValueCodec.decode("AAEC\n/w==", as: .binaryData) == .data(Data([0, 1, 2, 255])))
        #expect(XMLValueCodec.decode("not base64!", as: .binaryData) == absent)
        #expect(throws: XMLValueCodec.EncodingFailure.self) { try XMLValueCodec.encode(.string("x"), as: .integer64) }
    }

    @Test func propertyListDatesKeepCoreDatasFormAndEveryFraction() throws {
        // 2011-07-30 22:18:37 UTC is 1312064317 s after 1970.
        let seconds = 1_312_064_317.0 - 978_307_200
        #expect(XMLPropertyList.dateText(Date(timeIntervalSinceReferenceDate: seconds)) == "2011-07-30T22:18:37Z")
        #expect(XMLPropertyList.dateText(Date(timeIntervalSinceReferenceDate: seconds + 0.25)) == "2011-07-30T22:18:37.25Z")
        #expect(XMLPropertyList.dateText(Date(timeIntervalSinceReferenceDate: -0.25)) == "2000-12-31T23:59:59.75Z")
        #expect(XMLPropertyList.dateText(Date(timeIntervalSince1970: -1)) == "1969-12-31T23:59:59Z")
        #expect(XMLPropertyList.dateText(Date(timeIntervalSinceReferenceDate: .infinity)) == nil)
        for value in [seconds, seconds + 0.1, -1e9 - 0.123456789, 1e-7, Date.distantPast.timeIntervalSinceReferenceDate] {
            let date = Date(timeIntervalSinceReferenceDate: value)
            let text = try #require(XMLPropertyList.dateText(date))
            #expect(XMLPropertyList.parseDate(Substring(text))?.timeIntervalSinceReferenceDate.bitPattern == value.bitPattern, "\(text)")
        }
        for invalid in ["2011-07-30 22:18:37Z", "2011-13-30T22:18:37Z", "2011-07-30T22:18:37", "2011-07-30T22:18:37.Z", "yesterday", ""] {
            #expect(XMLPropertyList.parseDate(Substring(invalid)) == nil, "\(invalid)")
        }
    }
}
