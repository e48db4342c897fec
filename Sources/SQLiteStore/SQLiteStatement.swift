import CSQLite
import Foundation
import StoreCore

/// A prepared statement: typed binds, stepping, and typed column reads straight from SQLite's
/// buffers (no intermediate row objects).
///
/// Parameter and column indexes follow SQLite: parameters from 1, columns from 0.
final class SQLiteStatement {
    /// The `sqlite3_stmt*` handle.
    private(set) var handle: OpaquePointer?
    /// The SQL text, for messages.
    let sql: String
    private unowned let connection: SQLiteConnection
    /// Whether the connection handed this cached statement out since it last reset them.
    var isHandedOut = false
    /// What each run of the statement is reported to (SQL, duration, rows, and at `trace` the
    /// bound values); nil when nothing is observed, which leaves one nil check per step.
    var observer: StoreInstrumentation? {
        didSet { recordsValues = observer?.tracesValues == true }
    }
    /// Whether binds are written down for the log (`trace`).
    private var recordsValues = false
    // The run's state is read on every step of an observed statement (each row of a fetch), so
    // it is kept in plain integers: an optional `ContinuousClock.Instant` (a type of another
    // module, copied through its value witnesses) and the runtime's exclusivity checks cost
    // about 400 instructions a row. A statement is used by one connection's thread at a time and
    // no accessor hands these out inout, so no two accesses can overlap.

    /// Whether a run is being timed (its first step was observed and it has not ended).
    @exclusivity(unchecked) private var isTimingRun = false
    /// When the current run started (its first step), in monotonic nanoseconds.
    @exclusivity(unchecked) private var runStartNanoseconds: UInt64 = 0
    /// Rows the current run returned so far.
    @exclusivity(unchecked) private var rowsRead = 0
    /// The bound values as they read in the log, by parameter index (only at `trace`).
    private var boundValues: [Int32: String] = [:]

    init(handle: OpaquePointer, connection: SQLiteConnection, sql: String) {
        self.handle = handle
        self.connection = connection
        self.sql = sql
    }

    deinit { finalize() }

    /// Releases the statement; further use is a no-op that returns no rows.
    func finalize() {
        if let handle { sqlite3_finalize(handle) }
        handle = nil
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bound bytes before the bind call returns. The C
    /// macro is `((sqlite3_destructor_type)-1)`, which Swift does not import.
    private static var transient: sqlite3_destructor_type { unsafeBitCast(-1, to: sqlite3_destructor_type.self) }

    /// Resets the statement for another run and clears its bindings.
    func reset() {
        if isTimingRun { finishRun() }
        if recordsValues { boundValues.removeAll(keepingCapacity: true) }
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Binding

    /// The number of parameters.
    var parameterCount: Int32 { sqlite3_bind_parameter_count(handle) }

    /// Binds NULL.
    func bindNull(at index: Int32) {
        if recordsValues { boundValues[index] = "NULL" }
        sqlite3_bind_null(handle, index)
    }

    /// Binds an integer.
    func bind(int64 value: Int64, at index: Int32) {
        if recordsValues { boundValues[index] = String(value) }
        sqlite3_bind_int64(handle, index, value)
    }

    /// Binds a double (NaN must not reach here: SQLite turns it into NULL).
    func bind(double value: Double, at index: Int32) {
        if recordsValues { boundValues[index] = String(value) }
        sqlite3_bind_double(handle, index, value)
    }

    /// Binds text, copying its UTF-8 bytes without an intermediate allocation for native strings.
    func bind(text value: String, at index: Int32) {
        if recordsValues { boundValues[index] = StoreInstrumentation.describe(text: value) }
        // A native string's bytes are read where they are (no copy of the string to make it
        // contiguous, which `withUTF8` needs a variable for: a retain and a release per text).
        let bound: Void? = value.utf8.withContiguousStorageIfAvailable { bind(utf8: $0, at: index) }
        if bound == nil {
            var value = value
            value.withUTF8 { bind(utf8: $0, at: index) }
        }
    }

    /// Binds UTF-8 bytes as text (SQLite copies them).
    private func bind(utf8 buffer: UnsafeBufferPointer<UInt8>, at index: Int32) {
        // A non-nil pointer even for "", so SQLite stores an empty string rather than NULL.
        let base = buffer.baseAddress.map { UnsafeRawPointer($0) } ?? UnsafeRawPointer(bitPattern: 1)
        _ = sqlite3_bind_text64(
            handle, index, base?.assumingMemoryBound(to: CChar.self), UInt64(buffer.count), Self.transient,
            UInt8(SQLITE_UTF8))
    }

    /// Binds bytes; empty data is a zero-length blob, not NULL.
    func bind(blob value: Data, at index: Int32) {
        if recordsValues { boundValues[index] = "<\(value.count) bytes>" }
        if value.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
            return
        }
        value.withUnsafeBytes { buffer in
            _ = sqlite3_bind_blob64(handle, index, buffer.baseAddress, UInt64(buffer.count), Self.transient)
        }
    }

    /// Binds raw bytes.
    func bind(bytes buffer: UnsafeRawBufferPointer, at index: Int32) {
        if recordsValues { boundValues[index] = "<\(buffer.count) bytes>" }
        if buffer.isEmpty {
            sqlite3_bind_zeroblob(handle, index, 0)
        } else {
            sqlite3_bind_blob64(handle, index, buffer.baseAddress, UInt64(buffer.count), Self.transient)
        }
    }

    // MARK: Stepping

    /// Steps once: true when a row is available, false when the statement is done. A statement
    /// that is done or failed is reset at once: an active statement keeps its read transaction
    /// open, which blocks journal-mode changes and WAL checkpoints.
    @discardableResult
    func step() throws -> Bool {
        if observer != nil { return try observedStep() }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(handle)
            return false
        default:
            let error = connection.error(rc, "running \(sql)")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// ``step()`` that times the run and reports it when it ends (done, failed, or reset early).
    private func observedStep() throws -> Bool {
        if !isTimingRun {
            isTimingRun = true
            runStartNanoseconds = DispatchTime.now().uptimeNanoseconds
            rowsRead = 0
        }
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW:
            rowsRead += 1
            return true
        case SQLITE_DONE:
            finishRun()
            sqlite3_reset(handle)
            return false
        default:
            finishRun()
            let error = connection.error(rc, "running \(sql)")
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Reports the run that just ended: rows returned, or rows changed for a statement that
    /// returns none.
    private func finishRun() {
        guard isTimingRun, let observer else { return }
        isTimingRun = false
        let elapsed = DispatchTime.now().uptimeNanoseconds &- runStartNanoseconds
        let duration = Duration.nanoseconds(Int64(clamping: elapsed))
        // Both read only when the statement is logged (not for a fast one timed for the
        // slow-statement threshold alone).
        observer.statement(
            sql, duration: duration, rows: columnCount > 0 ? rowsRead : connection.changes,
            values: recordsValues ? boundValues.sorted { $0.key < $1.key }.map(\.value) : nil)
    }

    /// Steps to completion (statements that return no rows).
    func run() throws {
        while try step() {}
    }

    // MARK: Columns

    /// The number of result columns.
    var columnCount: Int32 { sqlite3_column_count(handle) }

    /// The storage class of a column in the current row (`SQLITE_INTEGER`, …).
    func columnType(at index: Int32) -> Int32 { sqlite3_column_type(handle, index) }

    /// Whether a column of the current row is NULL.
    func isNull(at index: Int32) -> Bool { sqlite3_column_type(handle, index) == SQLITE_NULL }

    /// A column as an integer.
    func int64(at index: Int32) -> Int64 { sqlite3_column_int64(handle, index) }

    /// A column as a double.
    func double(at index: Int32) -> Double { sqlite3_column_double(handle, index) }

    /// A column as text (UTF-8, embedded NULs kept).
    func text(at index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// A column as bytes.
    func data(at index: Int32) -> Data {
        guard let pointer = sqlite3_column_blob(handle, index) else { return Data() }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Data(bytes: pointer, count: count)
    }

    /// Calls `body` with a column's bytes without copying them.
    func withBytes<T>(at index: Int32, _ body: (UnsafeRawBufferPointer) throws -> T) rethrows -> T {
        let pointer = sqlite3_column_blob(handle, index)
        let count = Int(sqlite3_column_bytes(handle, index))
        return try body(UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count))
    }
}
