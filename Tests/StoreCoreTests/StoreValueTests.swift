import Foundation
import StoreCore
import Testing

@Suite struct StoreValueTests {
    func order(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult { StoreValue.compare(a, b) }

    @Test func orderingWithinEachType() {
        #expect(order(.bool(false), .bool(true)) == .orderedAscending)
        #expect(order(.int(.min), .int(.max)) == .orderedAscending)
        #expect(order(.double(-.infinity), .double(-0.0)) == .orderedAscending)
        #expect(order(.double(.nan), .double(-.infinity)) == .orderedAscending)
        #expect(order(.decimal(Decimal(string: "1.5") ?? 0), .decimal(2)) == .orderedAscending)
        #expect(order(.string("Z"), .string("a")) == .orderedAscending)  // Unicode scalar order
        #expect(order(.string("a"), .string("ab")) == .orderedAscending)
        #expect(order(.date(Date(timeIntervalSince1970: -5)), .date(Date(timeIntervalSince1970: 0))) == .orderedAscending)
        #expect(order(.data(Data([1, 2])), .data(Data([1, 3]))) == .orderedAscending)
        #expect(order(.data(Data([1])), .data(Data([1, 0]))) == .orderedAscending)
    }

    @Test func numbersCompareAcrossCases() {
        #expect(order(.int(2), .double(2.0)) == .orderedSame)
        #expect(order(.int(2), .double(2.5)) == .orderedAscending)
        #expect(order(.double(-2.5), .int(-2)) == .orderedAscending)
        #expect(order(.int(Int64.max), .double(9.3e18)) == .orderedAscending)
        #expect(order(.int(Int64.max), .double(Double(Int64.max))) == .orderedAscending)  // 2^63 > Int64.max
        #expect(order(.int(3), .decimal(Decimal(string: "3.1") ?? 0)) == .orderedAscending)
    }

    @Test func nullSortsFirstAndCasesHaveAFixedOrder() {
        #expect(order(.null, .bool(false)) == .orderedAscending)
        #expect(order(.null, .null) == .orderedSame)
        #expect(order(.int(1_000), .string("0")) == .orderedAscending)
        #expect(order(.string("z"), .date(Date(timeIntervalSince1970: 0))) == .orderedAscending)
    }

    @Test func equalityIsStructural() {
        #expect(StoreValue.int(1) != .double(1))
        #expect(StoreValue.double(.nan) == .double(.nan))
        #expect(StoreValue.double(0.0) == .double(-0.0))
        #expect(Set<StoreValue>([.double(.nan), .double(.nan), .int(1), .int(1)]).count == 2)
        #expect(StoreValue.string("é") == .string("e\u{301}"))  // Swift String equality is canonical
    }

    @Test(arguments: [
        StoreValue.null, .bool(true), .int(.min), .int(.max), .double(-0.0), .double(.infinity), .double(-.infinity),
        .double(.nan), .double(.leastNonzeroMagnitude), .decimal(Decimal(string: "12345678901234567890123456789012345678") ?? 0),
        .string(""), .string("a|b=c,\\ \"q\" <&> \n 😀 e\u{301}"), .date(Date(timeIntervalSinceReferenceDate: -1234.5678)),
        .data(Data()), .data(Data([0, 255, 7])), .uuid(UUID()), .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/")),
        .objectID(ObjectID(storeIdentifier: "S", entityName: "E", reference: .int(3))),
    ])
    func codableRoundTrip(_ value: StoreValue) throws {
        let data = try JSONEncoder().encode(value)
        let decoded = try JSONDecoder().decode(StoreValue.self, from: data)
        #expect(decoded == value)
        if case .double(let d) = value, case .double(let e) = decoded { #expect(d.sign == e.sign) }
    }

    @Test func attributeTypesCoerceStrictly() {
        #expect(AttributeType.integer16.coerce(.int(40_000)) == nil)
        #expect(AttributeType.integer16.coerce(.int(-32_768)) == .int(-32_768))
        #expect(AttributeType.float.coerce(.string("1.5")) == nil)
        #expect(AttributeType.float.coerce(.double(0.1)) == .double(Double(Float(0.1))))
        #expect(AttributeType.double.coerce(.int(3)) == .double(3))
        #expect(AttributeType.boolean.coerce(.int(2)) == nil)
        #expect(AttributeType.string.coerce(.int(2)) == nil)
        #expect(AttributeType.transformable.coerce(.data(Data([1]))) == .data(Data([1])))
        #expect(AttributeType.date.coerce(.null) == .null)
    }

    @Test func metadataRoundTripsThroughABinaryPlist() throws {
        let metadata: StoreMetadata = [
            "s": "text", "i": .int(-42), "d": .double(2.5), "b": .bool(true), "f": .bool(false),
            "t": .date(Date(timeIntervalSinceReferenceDate: 1000)), "x": .data(Data([1, 2, 3])),
            "a": .array(["one", .int(2)]), "m": .dictionary(["k": .bool(true), "n": .int(0)]),
        ]
        let data = try MetadataValue.propertyListData(metadata)
        #expect(MetadataValue.metadata(fromPropertyList: data) == metadata)
        #expect(MetadataValue.metadata(fromPropertyList: Data("not a plist".utf8)) == nil)
    }
}
