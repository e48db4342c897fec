import BenchmarkLibPQ
import Foundation

/// One libpq connection with the few calls the libpq side needs: statements prepared once, run
/// with text parameters, results read as text.
final class RawConnection {
    let connection: OpaquePointer
    let uri: String

    /// Connects to `uri` with the raw side's schema as the search path; nil with the message
    /// when that fails.
    init(_ uri: String) throws(RawError) {
        self.uri = uri
        guard let connection = PQconnectdb(uri) else { throw RawError("cannot connect to \(uri)") }
        self.connection = connection
        guard PQstatus(connection) == CONNECTION_OK else { throw RawError("cannot connect to \(uri): \(message)") }
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
    }

    deinit { PQfinish(connection) }

    /// libpq's last error message.
    var message: String { String(cString: PQerrorMessage(connection)).trimmingCharacters(in: .whitespacesAndNewlines) }

    /// Runs `sql` (several statements allowed, no parameters).
    func exec(_ sql: String) throws(RawError) {
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw RawError("\(sql): \(message)") }
    }

    /// Prepares `sql` as the statement `name`.
    func prepare(_ name: String, _ sql: String) throws(RawError) {
        let result = PQprepare(connection, name, sql, 0, nil)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { throw RawError("prepare \(sql): \(message)") }
    }

    /// Runs `sql` with text parameters; returns its rows as text, and the rows it changed.
    func query(_ sql: String, _ parameters: [String] = []) throws(RawError) -> (rows: [[String]], changed: Int) {
        try run(sql, parameters) { count, values in PQexecParams(connection, sql, count, nil, values, nil, nil, 0) }
    }

    /// Runs the prepared statement `name`; returns its rows as text, and the rows it changed.
    func execute(_ name: String, _ parameters: [String]) throws(RawError) -> (rows: [[String]], changed: Int) {
        try run(name, parameters) { count, values in PQexecPrepared(connection, name, count, values, nil, nil, 0) }
    }

    private func run(
        _ what: String, _ parameters: [String], _ call: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?
    ) throws(RawError) -> (rows: [[String]], changed: Int) {
        let copies = parameters.map { strdup($0) }
        defer { for pointer in copies { free(pointer) } }
        let result = copies.map { UnsafePointer($0) }.withUnsafeBufferPointer { buffer in
            call(Int32(parameters.count), buffer.baseAddress)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw RawError("\(what): \(message)") }
        var rows: [[String]] = []
        let columns = PQnfields(result)
        for row in 0..<PQntuples(result) {
            rows.append((0..<columns).map { column in PQgetvalue(result, row, column).map { String(cString: $0) } ?? "" })
        }
        return (rows, Int(String(cString: PQcmdTuples(result))) ?? 0)
    }
}

/// A failed libpq call, with the statement and libpq's message.
struct RawError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
