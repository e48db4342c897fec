import Foundation

/// A value bound to a statement's `$n`: SQL NULL, text (PostgreSQL converts it to the
/// parameter's type), or raw bytes (`bytea`, sent in binary form so nothing is escaped).
enum PostgreSQLParameter {
    /// SQL NULL.
    case null
    /// The value's text form.
    case text(String)
    /// Raw bytes.
    case binary(Data)
}
