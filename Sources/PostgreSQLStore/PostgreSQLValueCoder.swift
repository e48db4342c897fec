import Foundation
import StoreCore

/// How values are bound to and read from the PostgreSQL store's columns (see
/// ``PostgreSQLSchema`` for the column types): bound as text (PostgreSQL converts it to the
/// column's or the cast's type), `bytea` as raw bytes; read from PostgreSQL's text form, or,
/// for the rows of fetches, from its binary form (``readBinary(_:_:_:as:)``: numbers,
/// dates, booleans and UUIDs as their bits, no text to parse; decimals selected as text).
///
/// Doubles are written in Swift's shortest form that reads back to the same bits, and
/// PostgreSQL prints them the same way (`extra_float_digits` 1, its default), so every double —
/// infinities, NaN and -0.0 included — round-trips exactly; dates are such doubles (seconds
/// since 2001-01-01). Decimals are `numeric`, exact.
enum PostgreSQLValueCoder {
    /// The parameter for a value (already coerced to the column's attribute type, or a constant
    /// of the shared compiler).
    static func parameter(_ value: StoreValue) -> PostgreSQLParameter {
        switch value {
        case .null: return .null
        case .bool(let v): return .text(v ? "true" : "false")
        case .int(let v): return .text(String(v))
        case .double(let v): return .text(text(of: v))
        case .decimal(let v): return .text(v.isNaN ? "NaN" : v.description)
        case .string(let v): return .text(storable(v))
        case .date(let v): return .text(text(of: v.timeIntervalSinceReferenceDate))
        case .data(let v): return .binary(v)
        case .uuid(let v): return .text(v.uuidString)
        case .uri(let v): return .text(v.absoluteString)
        case .objectID(let v): return .text(v.uriRepresentation.absoluteString)
        }
    }

    /// The character that stands for U+0000 in stored text: PostgreSQL's text cannot hold
    /// U+0000, so a string's NULs are stored as U+10FFFF (a noncharacter), and a string that
    /// holds U+10FFFF itself is refused when saved (``holdsNULStandIn(_:)``) rather than read
    /// back changed.
    static let nulStandIn: Unicode.Scalar = "\u{10FFFF}"

    /// Whether a string holds the stand-in for U+0000 (it cannot be stored unchanged).
    static func holdsNULStandIn(_ text: String) -> Bool { text.unicodeScalars.contains(nulStandIn) }

    /// The text as stored: U+0000 as ``nulStandIn``.
    static func storable(_ text: String) -> String {
        guard text.utf8.contains(0) else { return text }
        var result = ""
        result.unicodeScalars.append(contentsOf: text.unicodeScalars.map { $0 == "\u{0}" ? nulStandIn : $0 })
        return result
    }

    /// Whether text decoded from `bytes` would hold the stand-in for U+0000 (its UTF-8 form
    /// starts with 0xF4, which nothing else in this store's text usually holds).
    private static func mayHoldNULStandIn(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { bytes.contains(0xF4) }

    /// Stored text as the string it stands for.
    static func original(_ text: String) -> String {
        guard holdsNULStandIn(text) else { return text }
        var result = ""
        result.unicodeScalars.append(contentsOf: text.unicodeScalars.map { $0 == nulStandIn ? "\u{0}" : $0 })
        return result
    }

    /// A double as PostgreSQL reads it back to the same bits.
    static func text(of value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-Infinity" : "Infinity" }
        return "\(value)"
    }

    private static func double(_ text: String) -> Double? {
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default: return Double(text)
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// A binary field that is not a value of the type read (another length, a column of another
    /// type); the reader names the place (thrown typed: nothing allocated per field read).
    struct InvalidField: Error {}

    /// Reads a field of a binary-form result as a value of `type`; nil for NULL. The select list
    /// casts decimal columns to text (``selectExpression(_:type:)``).
    static func readBinary(_ result: PostgreSQLResult, _ row: Int, _ column: Int, as type: AttributeType) throws(InvalidField)
        -> StoreValue?
    {
        if result.isNull(row, column) { return nil }
        let value: StoreValue?
        switch type {
        case .integer16, .integer32, .integer64: value = result.binaryInteger(row, column).map(StoreValue.int)
        case .boolean: value = result.binaryBool(row, column).map(StoreValue.bool)
        case .double, .float: value = result.binaryDouble(row, column).map(StoreValue.double)
        case .date: value = result.binaryDouble(row, column).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .uuid: value = result.binaryUUID(row, column).map(StoreValue.uuid)
        case .binaryData, .transformable: value = result.binaryData(row, column).map(StoreValue.data)
        case .string:
            value = result.withBytes(row, column) { bytes -> StoreValue in
                let text = String(decoding: bytes, as: UTF8.self)
                return .string(mayHoldNULStandIn(bytes) ? original(text) : text)
            }
        case .decimal: value = result.binaryText(row, column).flatMap { Decimal(string: $0, locale: posix) }.map(StoreValue.decimal)
        case .uri: value = result.binaryText(row, column).flatMap { URL(string: $0) }.map(StoreValue.uri)
        case .objectID:
            value = result.binaryText(row, column).flatMap { URL(string: $0) }.flatMap(ObjectID.init(uriRepresentation:))
                .map(StoreValue.objectID)
        }
        guard let value else { throw InvalidField() }
        return value
    }

    /// The select-list expression of a column read in binary form: decimals as text (their
    /// binary form is PostgreSQL's base-10000 digits), everything else as it is.
    static func selectExpression(_ column: String, type: AttributeType?) -> String {
        type == .decimal ? column + "::text" : column
    }

    /// Reads a field as a value of `type`; nil for NULL. Throws 134080 naming `place` when the
    /// text cannot be a value of that type.
    static func read(_ result: PostgreSQLResult, _ row: Int, _ column: Int, as type: AttributeType, place: @autoclosure () -> String)
        throws -> StoreValue?
    {
        if result.isNull(row, column) { return nil }
        let value: StoreValue?
        switch type {
        case .binaryData, .transformable:
            value = result.bytes(row, column).map(StoreValue.data)
        default:
            guard let text = result.text(row, column) else { return nil }
            switch type {
            case .integer16, .integer32, .integer64: value = Int64(text).map(StoreValue.int)
            case .boolean: value = text == "t" ? .bool(true) : text == "f" ? .bool(false) : nil
            case .double, .float: value = double(text).map(StoreValue.double)
            case .decimal: value = Decimal(string: text, locale: posix).map(StoreValue.decimal)
            case .string: value = .string(original(text))
            case .date: value = double(text).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
            case .uuid: value = UUID(uuidString: text).map(StoreValue.uuid)
            case .uri: value = URL(string: text).map(StoreValue.uri)
            case .objectID: value = URL(string: text).flatMap(ObjectID.init(uriRepresentation:)).map(StoreValue.objectID)
            case .binaryData, .transformable: value = nil
            }
        }
        guard let value else {
            throw StoreError(.persistentStoreOpen, "\(place()) holds a value that is not a valid \(type.rawValue) value")
        }
        return value
    }
}
