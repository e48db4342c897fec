import CSQLite
import Foundation
import StoreCore

/// How attribute values are bound to and read from SQLite columns, Core Data-compatible where
/// Core Data has a representation:
///
/// | type | stored as |
/// |---|---|
/// | integers | INTEGER |
/// | boolean | INTEGER 0 / 1 |
/// | double, float | REAL; NaN and -0.0 as an 8-byte big-endian BLOB (SQLite turns NaN into NULL and -0.0 into 0) |
/// | decimal | INTEGER when integral, REAL when a double holds it exactly, else its text as a BLOB (a DECIMAL column would round text to 15 digits) |
/// | string, URI, object ID | TEXT (URI and object ID as their absolute string) |
/// | date | REAL, seconds since 2001-01-01 (Core Data's reference date) |
/// | binary data, transformable | BLOB |
/// | UUID | 16-byte BLOB |
enum SQLiteValueCoder {
    /// Binds an attribute value (already coerced to the attribute's type) or NULL.
    static func bind(_ value: StoreValue, to statement: SQLiteStatement, at index: Int32) {
        switch value {
        case .null: statement.bindNull(at: index)
        case .bool(let v): statement.bind(int64: v ? 1 : 0, at: index)
        case .int(let v): statement.bind(int64: v, at: index)
        case .double(let v): bind(double: v, to: statement, at: index)
        case .decimal(let v): bind(decimal: v, to: statement, at: index)
        case .string(let v): statement.bind(text: v, at: index)
        case .date(let v): statement.bind(double: v.timeIntervalSinceReferenceDate, at: index)
        case .data(let v): statement.bind(blob: v, at: index)
        case .uuid(let v):
            withUnsafeBytes(of: v.uuid) { statement.bind(bytes: $0, at: index) }
        case .uri(let v): statement.bind(text: v.absoluteString, at: index)
        case .objectID(let v): statement.bind(text: v.uriRepresentation.absoluteString, at: index)
        }
    }

    /// Binds a double; values SQLite cannot keep as REAL go in as their IEEE bits.
    static func bind(double value: Double, to statement: SQLiteStatement, at index: Int32) {
        if value.isNaN || (value == 0 && value.sign == .minus) {
            withUnsafeBytes(of: value.bitPattern.bigEndian) { statement.bind(bytes: $0, at: index) }
        } else {
            statement.bind(double: value, at: index)
        }
    }

    /// Binds a decimal as exactly as the column allows.
    static func bind(decimal value: Decimal, to statement: SQLiteStatement, at index: Int32) {
        let number = NSDecimalNumber(decimal: value)
        let integer = number.int64Value
        if Decimal(integer) == value {
            statement.bind(int64: integer, at: index)
            return
        }
        let double = number.doubleValue
        if double.isFinite, Decimal(string: "\(double)", locale: posix) == value {
            statement.bind(double: double, at: index)
            return
        }
        statement.bind(blob: Data(value.description.utf8), at: index)
    }

    private static let posix = Locale(identifier: "en_US_POSIX")

    /// Reads a column as a value of `type`; nil for NULL. Throws when the stored value cannot be
    /// a value of that type (a file written by something else); `describe` names the place.
    static func read(
        _ statement: SQLiteStatement, at index: Int32, as type: AttributeType, describe: () -> String
    ) throws -> StoreValue? {
        let storage = statement.columnType(at: index)
        if storage == SQLITE_NULL { return nil }
        func bad() -> StoreError {
            let kind: String
            switch storage {
            case SQLITE_INTEGER: kind = "an integer"
            case SQLITE_FLOAT: kind = "a real"
            case SQLITE_TEXT: kind = "text"
            default: kind = "a blob"
            }
            return StoreError(.persistentStoreOpen, "\(describe()) holds \(kind), which is not a valid \(type.rawValue) value")
        }
        switch type {
        case .integer16, .integer32, .integer64:
            switch storage {
            case SQLITE_INTEGER: return .int(statement.int64(at: index))
            case SQLITE_FLOAT:
                guard let exact = Int64(exactly: statement.double(at: index)) else { throw bad() }
                return .int(exact)
            default: throw bad()
            }
        case .boolean:
            switch storage {
            case SQLITE_INTEGER: return .bool(statement.int64(at: index) != 0)
            case SQLITE_FLOAT: return .bool(statement.double(at: index) != 0)
            default: throw bad()
            }
        case .double, .float:
            switch storage {
            case SQLITE_FLOAT, SQLITE_INTEGER: return .double(statement.double(at: index))
            case SQLITE_BLOB:
                let bits: UInt64? = statement.withBytes(at: index) { buffer in
                    guard buffer.count == 8 else { return nil }
                    return buffer.reduce(UInt64(0)) { ($0 << 8) | UInt64($1) }
                }
                guard let bits else { throw bad() }
                return .double(Double(bitPattern: bits))
            default:
                guard let value = Double(statement.text(at: index)) else { throw bad() }
                return .double(value)
            }
        case .decimal:
            switch storage {
            case SQLITE_INTEGER: return .decimal(Decimal(statement.int64(at: index)))
            case SQLITE_FLOAT:
                guard let value = Decimal(string: "\(statement.double(at: index))", locale: posix) else { throw bad() }
                return .decimal(value)
            default:
                let text = storage == SQLITE_TEXT ? statement.text(at: index) : String(decoding: statement.data(at: index), as: UTF8.self)
                guard let value = Decimal(string: text, locale: posix) else { throw bad() }
                return .decimal(value)
            }
        case .string:
            switch storage {
            case SQLITE_TEXT: return .string(statement.text(at: index))
            default: throw bad()
            }
        case .date:
            switch storage {
            case SQLITE_FLOAT, SQLITE_INTEGER: return .date(Date(timeIntervalSinceReferenceDate: statement.double(at: index)))
            default: throw bad()
            }
        case .binaryData, .transformable:
            switch storage {
            case SQLITE_BLOB, SQLITE_TEXT: return .data(statement.data(at: index))
            default: throw bad()
            }
        case .uuid:
            switch storage {
            case SQLITE_BLOB:
                let uuid: UUID? = statement.withBytes(at: index) { buffer in
                    guard buffer.count == 16 else { return nil }
                    var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                    withUnsafeMutableBytes(of: &raw) { $0.copyMemory(from: buffer) }
                    return UUID(uuid: raw)
                }
                guard let uuid else { throw bad() }
                return .uuid(uuid)
            case SQLITE_TEXT:
                guard let uuid = UUID(uuidString: statement.text(at: index)) else { throw bad() }
                return .uuid(uuid)
            default: throw bad()
            }
        case .uri:
            guard storage == SQLITE_TEXT, let url = URL(string: statement.text(at: index)) else { throw bad() }
            return .uri(url)
        case .objectID:
            guard storage == SQLITE_TEXT, let url = URL(string: statement.text(at: index)),
                let id = ObjectID(uriRepresentation: url)
            else { throw bad() }
            return .objectID(id)
        }
    }
}
