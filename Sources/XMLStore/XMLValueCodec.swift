import Foundation
import StoreCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Attribute values as the text of Core Data's XML `attribute` elements, by type code:
///
/// | model type | code | text |
/// |---|---|---|
/// | Integer 16/32/64 | `int16` `int32` `int64` | decimal |
/// | Decimal | `decimal` | `Decimal`'s full-precision text (`NaN`) |
/// | Double | `double` | shortest round-trip form (`0.1`, `5e-324`, `-0.0`, `inf`, `nan`) |
/// | Float | `float` | `Float`'s shortest form |
/// | Boolean | `bool` | `1` / `0` (`YES`, `NO`, `true`, `false` are read too) |
/// | Date | `date` | seconds since 2001 with 20 fractional digits, as Core Data writes them (`336046917.00164198875427246094`); more digits for the rare values 20 cannot round-trip |
/// | String | `string` | the string; base64 of its UTF-8 with `encoding="base64"` when it holds characters XML 1.0 cannot carry |
/// | Binary | `binary` | base64 |
/// | Transformable | `transformable` | base64 of the transformed data |
/// | UUID | `uuid` | canonical text |
/// | URI | `uri` | absolute string |
/// | Object ID | `objectid` | the ID's URI (this framework's addition) |
enum XMLValueCodec {
    /// A reason why a value cannot be written.
    struct EncodingFailure: Error {
        let reason: String
    }

    /// Core Data's type code for an attribute type.
    static func typeCode(of type: AttributeType) -> String {
        switch type {
        case .integer16: return "int16"
        case .integer32: return "int32"
        case .integer64: return "int64"
        case .decimal: return "decimal"
        case .double: return "double"
        case .float: return "float"
        case .string: return "string"
        case .boolean: return "bool"
        case .date: return "date"
        case .binaryData: return "binary"
        case .transformable: return "transformable"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .objectID: return "objectid"
        }
    }

    /// Every type code this format knows.
    static let typeCodes: Set<String> = Set(AttributeType.allCases.map(typeCode(of:)))

    /// The value of the `encoding` attribute of a string written in base64.
    static let base64Encoding = "base64"

    /// The text of a non-nil value of an attribute of `type`, and whether it is a string
    /// written in base64 because XML cannot carry it.
    static func encode(_ value: StoreValue, as type: AttributeType) throws(EncodingFailure) -> (text: String, isBase64: Bool) {
        guard let value = type.coerce(value) else {
            throw EncodingFailure(reason: "a \(value.typeName) value (\(value)) is not a \(type.rawValue)")
        }
        switch value {
        case .null: return ("", false)  // not reached: nil is written as no element by the caller
        case .bool(let v): return (v ? "1" : "0", false)
        case .int(let v): return (String(v), false)
        case .double(let v):
            if type == .float, v.isNaN || Double(Float(v)) == v { return (Float(v).description, false) }
            return (v.description, false)
        case .decimal(let v): return (v.isNaN ? "NaN" : v.description, false)
        case .string(let v):
            if isXMLText(v) { return (v, false) }
            return (Data(v.utf8).base64EncodedString(), true)
        case .date(let v): return (dateText(v.timeIntervalSinceReferenceDate), false)
        case .data(let v): return (v.base64EncodedString(), false)
        case .uuid(let v): return (v.uuidString, false)
        case .uri(let v): return (v.absoluteString, false)
        case .objectID(let v): return (v.uriRepresentation.absoluteString, false)
        }
    }

    /// The value of an attribute of `type` that `text` holds; nil when it does not parse.
    /// `isBase64`: the element says `encoding="base64"` (strings only).
    static func decode(_ text: String, as type: AttributeType, isBase64: Bool = false) -> StoreValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            let text = trimmed(text)
            guard NumberText.isInteger(text), let v = Int64(text) else { return nil }
            return type.coerce(.int(v))
        case .decimal:
            let text = trimmed(text)
            if text == "NaN" { return .decimal(.nan) }
            // Decimal's parser gives NaN (or nil) for what it cannot hold, such as 1e200.
            guard NumberText.isDecimal(text), let v = Decimal(string: String(text), locale: posix), !v.isNaN else { return nil }
            return .decimal(v)
        case .double:
            return parseDouble(trimmed(text)).map(StoreValue.double)
        case .float:
            return parseFloat(trimmed(text)).map { .double(Double($0)) }
        case .boolean:
            switch trimmed(text).lowercased() {
            case "1", "yes", "true": return .bool(true)
            case "0", "no", "false": return .bool(false)
            default: return nil
            }
        case .string:
            guard isBase64 else { return .string(text) }
            return base64(text).flatMap { String(validating: $0, as: UTF8.self) }.map(StoreValue.string)
        case .date:
            return parseDouble(trimmed(text)).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .binaryData, .transformable:
            return base64(text).map(StoreValue.data)
        case .uuid:
            return UUID(uuidString: String(trimmed(text))).map(StoreValue.uuid)
        case .uri:
            let text = trimmed(text)
            guard !text.isEmpty else { return nil }
            return URL(string: String(text)).map(StoreValue.uri)
        case .objectID:
            return URL(string: String(trimmed(text))).flatMap(ObjectID.init(uriRepresentation:)).map(StoreValue.objectID)
        }
    }

    /// ``decode(_:as:isBase64:)`` for UTF-8 text, with fast paths for integers and booleans.
    static func decode(_ bytes: [UInt8], as type: AttributeType, isBase64: Bool = false) -> StoreValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard let value = integer(bytes) else { return nil }
            return type.coerce(.int(value))
        case .boolean where bytes.count == 1:
            if bytes[0] == UInt8(ascii: "1") { return .bool(true) }
            if bytes[0] == UInt8(ascii: "0") { return .bool(false) }
            return nil
        case .double:
            if let value = bytes.withUnsafeBufferPointer(NumberText.plainDouble) { return .double(value) }
            return decode(String(decoding: bytes, as: UTF8.self), as: type, isBase64: isBase64)
        case .date:
            if let value = bytes.withUnsafeBufferPointer(NumberText.plainDouble) { return .date(Date(timeIntervalSinceReferenceDate: value)) }
            return decode(String(decoding: bytes, as: UTF8.self), as: type, isBase64: isBase64)
        default:
            return decode(String(decoding: bytes, as: UTF8.self), as: type, isBase64: isBase64)
        }
    }

    /// `[+-]?[0-9]+` between optional XML whitespace, within Int64.
    static func integer(_ bytes: [UInt8]) -> Int64? {
        var start = 0
        var end = bytes.count
        while start < end, isXMLSpace(bytes[start]) { start += 1 }
        while end > start, isXMLSpace(bytes[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        var negative = false
        if bytes[start] == UInt8(ascii: "-") || bytes[start] == UInt8(ascii: "+") {
            negative = bytes[start] == UInt8(ascii: "-")
            start += 1
            guard start < end else { return nil }
        }
        // Accumulated negatively so that Int64.min fits.
        var value: Int64 = 0
        for index in start..<end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    // MARK: Dates

    /// Seconds since 2001 as Core Data writes them: 20 fractional digits
    /// (`336046917.00164198875427246094`). When 20 digits do not give the same `Double` back
    /// (values within a few microseconds of 2001-01-01), as many as it takes.
    static func dateText(_ seconds: Double) -> String {
        guard seconds.isFinite else { return seconds.description }
        for digits in [20, 30, 50, 100, 340, 1100] {
            let text = fixed(seconds, fractionDigits: digits)
            if Double(text) == seconds { return text }
        }
        return seconds.description  // not reached: 1,100 digits write every double exactly
    }

    /// `printf("%.*f")`.
    static func fixed(_ value: Double, fractionDigits: Int) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 1500) { buffer in
            let count = buffer.withMemoryRebound(to: CChar.self) { characters in
                withVaList([Int32(fractionDigits), value]) { arguments in
                    vsnprintf(characters.baseAddress, characters.count, "%.*f", arguments)
                }
            }
            guard count > 0, Int(count) < buffer.count else { return value.description }
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[0..<Int(count)]), as: UTF8.self)
        }
    }

    // MARK: Text checks

    /// Whether XML 1.0 can carry every character of `text` (no C0 controls other than tab,
    /// newline and carriage return; no U+FFFE, U+FFFF).
    static func isXMLText(_ text: String) -> Bool {
        var previous2: UInt8 = 0
        var previous1: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D { return false }
            // U+FFFE / U+FFFF are EF BF BE / EF BF BF in UTF-8.
            if (byte == 0xBE || byte == 0xBF) && previous1 == 0xBF && previous2 == 0xEF { return false }
            previous2 = previous1
            previous1 = byte
        }
        return true
    }

    /// XML whitespace (space, tab, newline, carriage return) removed from both ends.
    static func trimmed(_ text: String) -> Substring {
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { !isXMLSpace($0) }),
            let last = utf8.lastIndex(where: { !isXMLSpace($0) })
        else { return "" }
        return text[first...last]
    }

    @inline(__always)
    static func isXMLSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    /// Base64 text (line breaks and other XML whitespace anywhere are allowed) as bytes.
    static func base64(_ text: String) -> Data? {
        if !text.utf8.contains(where: isXMLSpace) { return Data(base64Encoded: text) }
        return Data(base64Encoded: String(decoding: text.utf8.filter { !isXMLSpace($0) }, as: UTF8.self))
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    private static func parseDouble(_ text: Substring) -> Double? {
        guard !text.isEmpty else { return nil }
        if let value = Double(text) { return value }
        switch text.lowercased() {
        case "+inf", "+infinity": return .infinity
        default: return nil
        }
    }

    private static func parseFloat(_ text: Substring) -> Float? {
        guard !text.isEmpty else { return nil }
        if let value = Float(text) { return value }
        switch text.lowercased() {
        case "+inf", "+infinity": return .infinity
        default: return nil
        }
    }
}
