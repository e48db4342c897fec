import CSQLite
import Foundation
import StoreCore

/// The SQL functions compiled predicates call, registered on every connection. Each calls the
/// same code the in-memory evaluator uses (``ComparisonPredicate/Options/fold(_:)`` and
/// ``PatternMatcher``), so SQLite and the other stores agree on `[c]`, `[d]`, `LIKE`,
/// `MATCHES` and the string tests.
///
/// | function | result |
/// |---|---|
/// | `ps_fold(text, flags)` | the text folded as `[c]` (1), `[d]` (2) or both fold it |
/// | `ps_beginswith(text, prefix)` | 1 when `text` starts with `prefix` (Unicode scalars) |
/// | `ps_endswith(text, suffix)` | 1 when `text` ends with `suffix` |
/// | `ps_contains(text, part)` | 1 when `text` contains `part` |
/// | `ps_like(text, pattern)` | 1 when `text` matches a `*`/`?` pattern |
/// | `ps_matches(text, regex, flags)` | 1 when the whole `text` matches the regular expression |
///
/// Text arguments that are not TEXT (NULL, numbers) make the tests 0 and `ps_fold` NULL.
enum SQLiteFunctions {
    /// Registers every function on `connection`.
    static func register(on connection: SQLiteConnection) throws {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        func add(_ name: String, _ arguments: Int32, _ function: @escaping @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void) throws {
            let rc = sqlite3_create_function_v2(connection.handle, name, arguments, flags, nil, function, nil, nil, nil)
            try connection.check(rc, "registering the SQL function \(name)")
        }
        try add("ps_fold", 2) { context, _, arguments in
            guard let text = SQLiteFunctions.text(arguments, 0) else {
                sqlite3_result_null(context)
                return
            }
            let options = ComparisonPredicate.Options(rawValue: Int(sqlite3_value_int64(arguments?[1])))
            SQLiteFunctions.result(context, options.fold(text))
        }
        try add("ps_beginswith", 2) { context, _, arguments in
            SQLiteFunctions.test(context, arguments) { PatternMatcher.hasPrefix($0, $1) }
        }
        try add("ps_endswith", 2) { context, _, arguments in
            SQLiteFunctions.test(context, arguments) { PatternMatcher.hasSuffix($0, $1) }
        }
        try add("ps_contains", 2) { context, _, arguments in
            SQLiteFunctions.test(context, arguments) { PatternMatcher.contains($0, $1) }
        }
        try add("ps_like", 2) { context, _, arguments in
            SQLiteFunctions.test(context, arguments) { PatternMatcher.like($0, pattern: $1) }
        }
        try add("ps_matches", 3) { context, _, arguments in
            guard let text = SQLiteFunctions.text(arguments, 0), let pattern = SQLiteFunctions.text(arguments, 1) else {
                sqlite3_result_int64(context, 0)
                return
            }
            let options = ComparisonPredicate.Options(rawValue: Int(sqlite3_value_int64(arguments?[2])))
            // The compiled expression is kept with the (usually constant) pattern argument, so
            // it is compiled once per statement run rather than once per row.
            let expression: NSRegularExpression
            if let cached = sqlite3_get_auxdata(context, 1) {
                expression = Unmanaged<NSRegularExpression>.fromOpaque(cached).takeUnretainedValue()
            } else {
                do {
                    expression = try PatternMatcher.regularExpression(pattern, options: options)
                } catch {
                    sqlite3_result_error(context, "Invalid regular expression for MATCHES: \(pattern)", -1)
                    return
                }
                sqlite3_set_auxdata(context, 1, Unmanaged.passRetained(expression).toOpaque()) { pointer in
                    if let pointer { Unmanaged<NSRegularExpression>.fromOpaque(pointer).release() }
                }
            }
            sqlite3_result_int64(context, PatternMatcher.matches(text, expression, options: options) ? 1 : 0)
        }
    }

    /// Argument `index` as a string when it is TEXT.
    static func text(_ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ index: Int) -> String? {
        guard let value = arguments?[index], sqlite3_value_type(value) == SQLITE_TEXT,
            let pointer = sqlite3_value_text(value)
        else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Sets a text result.
    static func result(_ context: OpaquePointer?, _ text: String) {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        var text = text
        text.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { characters in
                if let base = characters.baseAddress, !characters.isEmpty {
                    sqlite3_result_text64(context, base, UInt64(characters.count), transient, UInt8(SQLITE_UTF8))
                } else {
                    sqlite3_result_text(context, "", 0, transient)
                }
            }
        }
    }

    /// A two-string test: 1 or 0, and 0 when either argument is not TEXT.
    static func test(
        _ context: OpaquePointer?, _ arguments: UnsafeMutablePointer<OpaquePointer?>?, _ body: (String, String) -> Bool
    ) {
        guard let text = Self.text(arguments, 0), let other = Self.text(arguments, 1) else {
            sqlite3_result_int64(context, 0)
            return
        }
        sqlite3_result_int64(context, body(text, other) ? 1 : 0)
    }
}
