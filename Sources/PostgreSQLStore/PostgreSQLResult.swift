import CLibPQ
import Foundation

/// The rows of one statement (libpq's `PGresult`, freed with this value). Most statements ask
/// for the text form: each field is nil for SQL NULL or its text, as PostgreSQL prints the
/// column's type. Fetches of rows ask for the binary form (``PostgreSQLConnection/execute(_:_:binary:_:)``),
/// read with the `binary…` accessors: each checks the field's length, so a column of an
/// unexpected type is a value that is not valid, never a read past the field.
final class PostgreSQLResult {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    var rowCount: Int { Int(PQntuples(handle)) }

    /// The number of columns.
    var columnCount: Int { Int(PQnfields(handle)) }

    /// Rows changed by an INSERT, UPDATE or DELETE (0 for other statements).
    var affectedRows: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The type (PostgreSQL's OID) of a column of the result.
    func typeOID(_ column: Int) -> UInt32 { UInt32(PQftype(handle, Int32(column))) }

    /// Whether a field is SQL NULL.
    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(handle, Int32(row), Int32(column)) != 0 }

    /// A field's text; nil for SQL NULL.
    func text(_ row: Int, _ column: Int) -> String? {
        guard !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        return String(cString: value)
    }

    /// A field's bytes as PostgreSQL sent them (the text form); nil for SQL NULL.
    func withBytes<T>(_ row: Int, _ column: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> T) rethrows -> T? {
        guard !isNull(row, column), let value = PQgetvalue(handle, Int32(row), Int32(column)) else { return nil }
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        return try value.withMemoryRebound(to: UInt8.self, capacity: length) { try body(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// A field as a 64-bit integer; nil for SQL NULL or text that is not one.
    func int64(_ row: Int, _ column: Int) -> Int64? { text(row, column).flatMap { Int64($0) } }

    /// A `bytea` field's bytes (PostgreSQL's hex text form, `\x…`); nil for SQL NULL or text that
    /// is not that form.
    func bytes(_ row: Int, _ column: Int) -> Data? {
        withBytes(row, column) { text -> Data? in
            guard text.count >= 2, text[0] == UInt8(ascii: "\\"), text[1] == UInt8(ascii: "x"), text.count % 2 == 0 else { return nil }
            var data = Data(capacity: (text.count - 2) / 2)
            var index = 2
            while index < text.count {
                guard let high = Self.hexDigit(text[index]), let low = Self.hexDigit(text[index + 1]) else { return nil }
                data.append(high << 4 | low)
                index += 2
            }
            return data
        } ?? nil
    }

    // MARK: Binary form

    /// A binary `smallint`, `integer` or `bigint` field (2, 4 or 8 bytes, big-endian); nil for
    /// SQL NULL or another length.
    func binaryInteger(_ row: Int, _ column: Int) -> Int64? {
        withBytes(row, column) { bytes -> Int64? in
            let raw = UnsafeRawBufferPointer(bytes)
            switch bytes.count {
            case 8: return Int64(bitPattern: UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)))
            case 4: return Int64(Int32(bitPattern: UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self))))
            case 2: return Int64(Int16(bitPattern: UInt16(bigEndian: raw.loadUnaligned(as: UInt16.self))))
            default: return nil
            }
        } ?? nil
    }

    /// A binary `double precision` (8 bytes) or `real` (4 bytes) field; nil for SQL NULL or
    /// another length.
    func binaryDouble(_ row: Int, _ column: Int) -> Double? {
        withBytes(row, column) { bytes -> Double? in
            let raw = UnsafeRawBufferPointer(bytes)
            switch bytes.count {
            case 8: return Double(bitPattern: UInt64(bigEndian: raw.loadUnaligned(as: UInt64.self)))
            case 4: return Double(Float(bitPattern: UInt32(bigEndian: raw.loadUnaligned(as: UInt32.self))))
            default: return nil
            }
        } ?? nil
    }

    /// A binary `boolean` field (one byte); nil for SQL NULL or another length.
    func binaryBool(_ row: Int, _ column: Int) -> Bool? {
        withBytes(row, column) { bytes -> Bool? in bytes.count == 1 ? bytes[0] != 0 : nil } ?? nil
    }

    /// A binary `uuid` field (16 bytes); nil for SQL NULL or another length.
    func binaryUUID(_ row: Int, _ column: Int) -> UUID? {
        withBytes(row, column) { bytes -> UUID? in
            bytes.count == 16 ? UUID(uuid: UnsafeRawBufferPointer(bytes).loadUnaligned(as: uuid_t.self)) : nil
        } ?? nil
    }

    /// A binary text field (`text`, or any column cast to text): its UTF-8 bytes as a string
    /// (the connection's client encoding is UTF-8; a malformed sequence would be repaired, never
    /// trap); nil for SQL NULL.
    func binaryText(_ row: Int, _ column: Int) -> String? {
        withBytes(row, column) { String(decoding: $0, as: UTF8.self) }
    }

    /// A binary `bytea` field: its bytes as they are; nil for SQL NULL.
    func binaryData(_ row: Int, _ column: Int) -> Data? {
        withBytes(row, column) { Data($0) }
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
