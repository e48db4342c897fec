import CLibPQ
import Foundation

/// The rows of one statement (libpq's `PGresult`, freed with this value), in text form: each
/// field is nil for SQL NULL or its text, as PostgreSQL prints the column's type.
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

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
