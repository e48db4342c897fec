import Foundation

/// A store's own key for a row or node: SQLite's `Z_PK`, the XML store's `z<number>`, the
/// PipeCSV store's UUID string. Stable across save, reload and migration.
public enum ReferenceObject: Sendable, Hashable, Codable, CustomStringConvertible {
    /// An integer key.
    case int(Int64)
    /// An opaque string key (round-trips unchanged, even when it looks like a malformed UUID).
    case string(String)
    /// A UUID key.
    case uuid(UUID)

    /// The key as text: the number, the string, or the UUID string.
    public var description: String {
        switch self {
        case .int(let v): return String(v)
        case .string(let v): return v
        case .uuid(let v): return v.uuidString
        }
    }

    /// The form used in an object ID's URI: `p<int>`, `s<percent-escaped string>`, `u<UUID>`.
    var uriComponent: String {
        switch self {
        case .int(let v): return "p\(v)"
        case .string(let v): return "s" + ObjectID.escape(v)
        case .uuid(let v): return "u" + v.uuidString
        }
    }

    /// Parses ``uriComponent``.
    init?(uriComponent text: Substring) {
        guard let tag = text.first else { return nil }
        let rest = text.dropFirst()
        switch tag {
        case "p":
            guard let v = Int64(rest) else { return nil }
            self = .int(v)
        case "s":
            guard let v = ObjectID.unescape(rest) else { return nil }
            self = .string(v)
        case "u":
            guard let v = UUID(uuidString: String(rest)) else { return nil }
            self = .uuid(v)
        default: return nil
        }
    }
}
