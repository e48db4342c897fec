/// One column of a dictionary fetch: a property (an attribute, a to-one relationship given as
/// its object ID, or a key path through to-ones like `team.name`) or an
/// ``ExpressionDescription``.
///
/// ```swift
/// request.propertiesToFetch = ["name", "team", .expression(ExpressionDescription(name: "n", function: .count, keyPath: "age"))]
/// ```
public enum PropertyToFetch: Sendable, Hashable, Codable, ExpressibleByStringLiteral {
    /// A property or to-one key path; its key in the result is the key path.
    case property(String)
    /// A computed value under the description's name.
    case expression(ExpressionDescription)

    /// `"name"` is `.property("name")`.
    public init(stringLiteral value: String) { self = .property(value) }

    /// The key of this column in each result dictionary.
    public var resultKey: String {
        switch self {
        case .property(let keyPath): return keyPath
        case .expression(let description): return description.name
        }
    }

    /// Whether the column is an aggregate.
    public var isAggregate: Bool {
        if case .expression(let description) = self { return description.function != nil }
        return false
    }
}
