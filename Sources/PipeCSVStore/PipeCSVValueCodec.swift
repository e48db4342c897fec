import Foundation
import StoreCore

/// Attribute values as PipeCSV text, by attribute type:
/// - integers in decimal; decimal numbers as `Decimal`'s full-precision text (`NaN` for NaN);
/// - double in its shortest round-trip form (`0.1`, `5e-324`, `-0.0`, `inf`, `-inf`, `nan`),
///   float in `Float`'s shortest form (`0.1`, not `0.10000000149011612`);
/// - boolean `1` / `0` (`YES`/`NO`/`true`/`false` are read too);
/// - date as ``PipeCSVDateFormat`` describes;
/// - binary data and transformable values in base64 (the original could not store them), UUID
///   in its canonical text, URI as its absolute string, object ID as its URI.
///
/// The text is escaped when the line is written (``PipeCSVEscaping``); decoding gets unescaped
/// text.
enum PipeCSVValueCodec {
    /// A reason why a value cannot be written.
    struct EncodingFailure: Error {
        let reason: String
    }

    /// The text of a non-nil value of an attribute of `type`.
    static func encode(_ value: StoreValue, as type: AttributeType) throws(EncodingFailure) -> String {
        guard let value = type.coerce(value) else {
            throw EncodingFailure(reason: "a \(value.typeName) value (\(value)) is not a \(type.rawValue)")
        }
        switch value {
        case .null: return ""  // not reached: nil is written as (null) by the caller
        case .bool(let v): return v ? "1" : "0"
        case .int(let v): return String(v)
        case .double(let v):
            if type == .float, v.isNaN || Double(Float(v)) == v { return Float(v).description }
            return v.description
        case .decimal(let v): return v.isNaN ? "NaN" : v.description
        case .string(let v): return v
        case .date(let v):
            guard let text = PipeCSVDateFormat.format(v) else {
                throw EncodingFailure(reason: "the date \(v.timeIntervalSinceReferenceDate) (seconds since 2001) cannot be written as a calendar date")
            }
            return text
        case .data(let v): return v.base64EncodedString()
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        case .objectID(let v): return v.uriRepresentation.absoluteString
        }
    }

    /// The value of an attribute of `type` that `text` holds; nil when it does not parse.
    static func decode(_ text: String, as type: AttributeType) -> StoreValue? {
        switch type {
        case .integer16, .integer32, .integer64:
            guard NumberText.isInteger(Substring(text)), let v = Int64(text) else { return nil }
            return type.coerce(.int(v))
        case .decimal:
            if text == "NaN" { return .decimal(.nan) }
            // Decimal's parser gives NaN (or nil) for what it cannot hold, such as 1e200.
            guard NumberText.isDecimal(Substring(text)), let v = Decimal(string: text, locale: posix), !v.isNaN else { return nil }
            return .decimal(v)
        case .double:
            return Double(text).map(StoreValue.double)
        case .float:
            return Float(text).map { .double(Double($0)) }
        case .boolean:
            switch text.lowercased() {
            case "1", "yes", "true": return .bool(true)
            case "0", "no", "false": return .bool(false)
            default: return nil
            }
        case .string:
            return .string(text)
        case .date:
            return PipeCSVDateFormat.parse(text).map(StoreValue.date)
        case .binaryData, .transformable:
            return Data(base64Encoded: text).map(StoreValue.data)
        case .uuid:
            return UUID(uuidString: text).map(StoreValue.uuid)
        case .uri:
            guard !text.isEmpty else { return nil }
            return URL(string: text).map(StoreValue.uri)
        case .objectID:
            return URL(string: text).flatMap(ObjectID.init(uriRepresentation:)).map(StoreValue.objectID)
        }
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
}
