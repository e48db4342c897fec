import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import PipeCSVStore

/// Saves one AllTypes object with `attributes`, reopens the store with a new coordinator, and
/// returns the object as loaded (and the data file's text).
func roundTrip(_ attributes: [String: StoreValue]) throws -> (node: StoreNode, text: String) {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent("AllTypes.txt")
        let pipe = try PipeStore(model: Models.allTypes, url: url)
        let id = try pipe.newIDs("AllTypes")[0]
        try pipe.save(inserted: [StoreNode(objectID: id, attributes: attributes, version: 0)])
        let reopened = try PipeStore(model: Models.allTypes, url: url)
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
        "decimal": .decimal(Decimal(string: "12345678901234567890123456789012345678")!),
        "double": .double(.leastNonzeroMagnitude), "float": .double(Double(Float.leastNonzeroMagnitude)),
        "string": "", "boolean": true, "date": .date(Date(timeIntervalSinceReferenceDate: -1e9 - 0.123456789)),
        "binaryData": .data(Data()), "uuid": .uuid(UUID()), "uri": .uri(URL(string: "https://example.com/a%20b?q=1&r=2#frag")!),
        "transformable": .data(Data([0, 1, 2, 255])),
        "objectID": .objectID(ObjectID(storeIdentifier: "S|1", entityName: "AllTypes", reference: .string("a,b=c"))),
    ]
}

@Suite("Round trips")
struct RoundTripTests {
    static let hostileStrings: [String] = [
        "", "|", "=", ",", "\\", "\\\\|", "say \"hi\" and 'bye'", "<a href=\"x\">&amp;</a>",
        "line1\nline2\r\nline3\r", "🚀 👨‍👩‍👧‍👦 🇫🇷", "e\u{301} and |\u{301} and =\u{301}", "(null)", "\\(null)",
        "\\n is not a newline", "ends with a backslash\\", "a|b=c,d\\e\nf", "\u{0}nul and \t tab",
        "#PipeCSV|format=1|metadata=fake", "Team|3BBC1923|name=Injected", "   spaces   ",
    ]

    @Test(arguments: hostileStrings)
    func hostileStringRoundTrips(_ string: String) throws {
        var values = requiredValues()
        values["string"] = .string(string)
        values["stringOptional"] = .string(string + "|" + string)
        values["objectIDOptional"] = .objectID(ObjectID(storeIdentifier: "S" + string, entityName: "AllTypes", reference: .string(string)))
        let (node, text) = try roundTrip(values)
        #expect(node.attributes == values)
        // One record between the header and the end line: no value broke its line.
        #expect(text.split(separator: "\n", omittingEmptySubsequences: false).count == 4)
    }

    @Test func everyAttributeTypeRoundTripsWithExtremeValues() throws {
        var values = requiredValues()
        values["integer16Optional"] = .int(Int64(Int16.min))
        values["integer32Optional"] = .int(Int64(Int32.max))
        values["integer64Optional"] = .int(Int64.min)
        values["decimalOptional"] = .decimal(Decimal(string: "-1234567890123456789.0123456789012345678")!)
        values["doubleOptional"] = .double(-0.0)
        values["floatOptional"] = .double(Double(Float(0.1)))
        values["stringOptional"] = "optional"
        values["booleanOptional"] = false
        values["dateOptional"] = .date(Date(timeIntervalSinceReferenceDate: -0.000001))
        values["binaryDataOptional"] = .data(Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }))
        values["uuidOptional"] = .uuid(UUID())
        values["uriOptional"] = .uri(URL(fileURLWithPath: "/tmp/a b/c|d.txt"))
        values["transformableOptional"] = .data(Data())
        values["objectIDOptional"] = .objectID(ObjectID(storeIdentifier: "S", entityName: "AllTypes", reference: .int(7)))
        #expect(Set(values.keys) == Set(Models.allTypes.attributes(of: "AllTypes").map(\.name)))
        let (node, _) = try roundTrip(values)
        #expect(node.attributes == values)
        guard case .double(let negativeZero)? = node.attributes["doubleOptional"] else {
            Issue.record("doubleOptional is not a double")
            return
        }
        #expect(negativeZero.sign == .minus)
    }

    @Test func nilForEveryOptionalAttribute() throws {
        let values = requiredValues()
        let (node, text) = try roundTrip(values)
        #expect(node.attributes == values)
        for attribute in Models.allTypes.attributes(of: "AllTypes") where attribute.isOptional {
            #expect(!node.attributes.keys.contains(attribute.name))
            #expect(text.contains("|\(attribute.name)=(null)"))
        }
    }

    static let doubles: [Double] = [
        0, -0.0, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        .greatestFiniteMagnitude, 0.1, 1.0 / 3.0, -123.456e-300, 9_007_199_254_740_992,
    ]

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
        0, -0.5, -1.25, 1e-7, -1e-7, 0.000001, -1e9 - 0.123456789, 333_757_117, 333_757_117.25,
        7.25e8 + 0.1, 123_456_789.123_456_79, Date.distantPast.timeIntervalSinceReferenceDate,
        Date.distantFuture.timeIntervalSinceReferenceDate, -63_114_076_800.5, 1e12 + 0.5, -1e12 - 0.75,
        -978_307_200.001, .leastNonzeroMagnitude,
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
        #expect(date.timeIntervalSinceReferenceDate.bitPattern == seconds.bitPattern || (seconds == 0 && date.timeIntervalSinceReferenceDate == 0))
    }
}

@Suite("Value text")
struct ValueTextTests {
    @Test func datesUseTheOriginalFormatWithAFractionOnlyWhenThereIsOne() throws {
        // 2011-07-30 22:18:37 UTC is 1312064317 s after 1970.
        let seconds = 1_312_064_317.0 - 978_307_200
        #expect(PipeCSVDateFormat.format(Date(timeIntervalSinceReferenceDate: seconds)) == "2011-07-30 22:18:37 +0000")
        #expect(PipeCSVDateFormat.format(Date(timeIntervalSinceReferenceDate: seconds + 0.25)) == "2011-07-30 22:18:37.25 +0000")
        #expect(PipeCSVDateFormat.format(Date(timeIntervalSinceReferenceDate: -0.25)) == "2000-12-31 23:59:59.75 +0000")
        #expect(PipeCSVDateFormat.format(Date(timeIntervalSince1970: -1)) == "1969-12-31 23:59:59 +0000")
        #expect(PipeCSVDateFormat.parse("2011-07-30 22:18:37 +0000") == Date(timeIntervalSinceReferenceDate: seconds))
        #expect(PipeCSVDateFormat.parse("2011-07-31 00:18:37 +0200") == Date(timeIntervalSinceReferenceDate: seconds))
        #expect(PipeCSVDateFormat.parse("2011-07-30 15:18:37 -07:00") == Date(timeIntervalSinceReferenceDate: seconds))
        #expect(PipeCSVDateFormat.format(Date(timeIntervalSinceReferenceDate: .infinity)) == nil)
        for invalid in ["2011-02-30 00:00:00 +0000", "2011-07-30 24:00:00 +0000", "2011-07-30 22:18:37", "yesterday",
            "2011-07-30 22:18:37. +0000", "2011-07-30T22:18:37Z", ""]
        {
            #expect(PipeCSVDateFormat.parse(invalid) == nil, "\(invalid)")
        }
    }

    @Test func numbersUseTheirShortestExactForm() throws {
        #expect(try PipeCSVValueCodec.encode(.double(0.1), as: .double) == "0.1")
        #expect(try PipeCSVValueCodec.encode(.double(Double(Float(0.1))), as: .float) == "0.1")
        #expect(try PipeCSVValueCodec.encode(.double(-0.0), as: .double) == "-0.0")
        #expect(try PipeCSVValueCodec.encode(.bool(true), as: .boolean) == "1")
        #expect(try PipeCSVValueCodec.encode(.int(Int64.min), as: .integer64) == "-9223372036854775808")
        // (StoreValue is ExpressibleByNilLiteral, so compare with .none, not nil.)
        let absent: StoreValue? = .none
        #expect(PipeCSVValueCodec.decode("12abc", as: .decimal) == absent)
        #expect(PipeCSVValueCodec.decode("1e200", as: .decimal) == absent)
        #expect(PipeCSVValueCodec.decode("70000", as: .integer16) == absent)
        #expect(PipeCSVValueCodec.decode(" 1", as: .integer64) == absent)
        #expect(PipeCSVValueCodec.decode("-32768", as: .integer16) == .int(-32768))
        #expect(PipeCSVValueCodec.decode("YES", as: .boolean) == .bool(true))
        #expect(throws: PipeCSVValueCodec.EncodingFailure.self) { try PipeCSVValueCodec.encode(.string("x"), as: .integer64) }
    }

    @Test func escapingReadsBackAndLeavesPlainTextAlone() {
        func escaped(_ text: String) -> String {
            var bytes: [UInt8] = []
            PipeCSVEscaping.append(escaped: text, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(escaped("Miami Heat") == "Miami Heat")
        #expect(escaped("a|b=c,d\\e\nf\rg") == "a\\|b\\=c\\,d\\\\e\\nf\\rg")
        #expect(escaped("(null)") == "\\(null)")
        let line = Array("a\\|b\\=c\\,d\\\\e\\nf\\rg\\(".utf8)
        #expect(String(decoding: PipeCSVEscaping.unescape(line, 0..<line.count), as: UTF8.self) == "a|b=c,d\\e\nf\rg(")
        let trailing = Array("x\\".utf8)
        #expect(PipeCSVEscaping.unescape(trailing, 0..<2) == trailing)
        let fields = Array("A|b\\|c|d=e\\=f".utf8)
        #expect(PipeCSVEscaping.split(fields, 0..<fields.count, at: UInt8(ascii: "|")).count == 3)
    }
}
