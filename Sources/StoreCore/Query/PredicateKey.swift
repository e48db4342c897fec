/// A typed key for building predicates in Swift without format strings. The value type makes
/// the compiler check what a key is compared with.
///
/// ```swift
/// enum UserKeys {
///     static let name = PredicateKey<String?>("name")
///     static let age = PredicateKey<Int64>("age")
///     static let team = PredicateKey<Team?>("team")
///     static let postTitles = PredicateKey<String>("posts.title")
/// }
/// let p = UserKeys.age > 30 && UserKeys.name.beginsWith("A", options: .caseInsensitive)
///     || UserKeys.postTitles.any.contains("swift") && !(UserKeys.team == nil)
/// // p == FetchPredicate(format: "(age > 30 AND name BEGINSWITH[c] 'A') OR (ANY posts.title CONTAINS 'swift' AND NOT team == nil)")
/// ```
///
/// Declare optional value types (`String?`, `Team?`) for keys compared with `nil`.
/// A typed subclass can publish its keys as static members next to its properties
/// (`static let name = PredicateKey<String?>("name")` beside `@Field("name") var name`).
public struct PredicateKey<Value>: Sendable, CustomStringConvertible {
    /// The key path (`"team.name"`, `"posts.@count"`).
    public let keyPath: String
    /// The modifier comparisons with this key use (`ANY`, `ALL`, `NONE`).
    public let modifier: ComparisonPredicate.Modifier

    /// A key for a key path.
    public init(_ keyPath: String) {
        self.keyPath = keyPath
        self.modifier = .direct
    }

    private init(_ keyPath: String, modifier: ComparisonPredicate.Modifier) {
        self.keyPath = keyPath
        self.modifier = modifier
    }

    /// The key path as an expression.
    public var expression: FetchExpression { .keyPath(keyPath) }

    /// The key path.
    public var description: String { keyPath }

    /// The key with `ANY`: some element of the to-many key path satisfies the comparison.
    public var any: PredicateKey { PredicateKey(keyPath, modifier: .any) }
    /// The key with `ALL`: every element satisfies the comparison.
    public var all: PredicateKey { PredicateKey(keyPath, modifier: .all) }
    /// The key with `NONE`: no element satisfies the comparison.
    public var none: PredicateKey { PredicateKey(keyPath, modifier: .none) }

    /// A key path continued by another key (`team.appending(teamName)` is `team.name`).
    public func appending<Next>(_ next: PredicateKey<Next>) -> PredicateKey<Next> {
        PredicateKey<Next>(keyPath + "." + next.keyPath, modifier: modifier)
    }

    /// The number of objects of a to-many key path (`posts.@count`).
    public var count: PredicateKey<Int64> { PredicateKey<Int64>(keyPath + ".@count") }

    func compare(_ op: ComparisonPredicate.Operator, _ rhs: FetchExpression, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        .comparison(ComparisonPredicate(expression, op, rhs, options: options, modifier: modifier))
    }
}

/// The string value types of ``PredicateKey`` (`String` and `String?`), which get the string
/// operators.
public protocol PredicateStringValue {}
extension String: PredicateStringValue {}
extension Optional: PredicateStringValue where Wrapped == String {}

extension PredicateKey where Value: PredicateArgument {
    /// `key == value`.
    public static func == (key: PredicateKey, value: Value) -> FetchPredicate { key.compare(.equalTo, value.predicateExpression) }
    /// `key != value`.
    public static func != (key: PredicateKey, value: Value) -> FetchPredicate { key.compare(.notEqualTo, value.predicateExpression) }
    /// `key < value`.
    public static func < (key: PredicateKey, value: Value) -> FetchPredicate { key.compare(.lessThan, value.predicateExpression) }
    /// `key <= value`.
    public static func <= (key: PredicateKey, value: Value) -> FetchPredicate { key.compare(.lessThanOrEqualTo, value.predicateExpression) }
    /// `key > value`.
    public static func > (key: PredicateKey, value: Value) -> FetchPredicate { key.compare(.greaterThan, value.predicateExpression) }
    /// `key >= value`.
    public static func >= (key: PredicateKey, value: Value) -> FetchPredicate { key.compare(.greaterThanOrEqualTo, value.predicateExpression) }

    /// `key IN {values}`.
    public func `in`(_ values: [Value]) -> FetchPredicate { compare(.in, values.predicateExpression) }
    /// `key BETWEEN {low, high}` (inclusive).
    public func between(_ low: Value, _ high: Value) -> FetchPredicate {
        compare(.between, .collection([low.predicateExpression, high.predicateExpression]))
    }
}

extension PredicateKey {
    /// `key == other` for two key paths of the same type.
    public static func == (key: PredicateKey, other: PredicateKey) -> FetchPredicate { key.compare(.equalTo, other.expression) }
    /// `key != other`.
    public static func != (key: PredicateKey, other: PredicateKey) -> FetchPredicate { key.compare(.notEqualTo, other.expression) }
    /// `key < other`.
    public static func < (key: PredicateKey, other: PredicateKey) -> FetchPredicate { key.compare(.lessThan, other.expression) }
    /// `key <= other`.
    public static func <= (key: PredicateKey, other: PredicateKey) -> FetchPredicate { key.compare(.lessThanOrEqualTo, other.expression) }
    /// `key > other`.
    public static func > (key: PredicateKey, other: PredicateKey) -> FetchPredicate { key.compare(.greaterThan, other.expression) }
    /// `key >= other`.
    public static func >= (key: PredicateKey, other: PredicateKey) -> FetchPredicate { key.compare(.greaterThanOrEqualTo, other.expression) }
}

extension PredicateKey where Value: PredicateStringValue {
    /// `key BEGINSWITH[options] prefix`.
    public func beginsWith(_ prefix: String, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        compare(.beginsWith, .constant(.string(prefix)), options: options)
    }
    /// `key ENDSWITH[options] suffix`.
    public func endsWith(_ suffix: String, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        compare(.endsWith, .constant(.string(suffix)), options: options)
    }
    /// `key CONTAINS[options] part`.
    public func contains(_ part: String, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        compare(.contains, .constant(.string(part)), options: options)
    }
    /// `key LIKE[options] pattern` (`*` and `?` wildcards).
    public func like(_ pattern: String, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        compare(.like, .constant(.string(pattern)), options: options)
    }
    /// `key MATCHES[options] regex` (whole string).
    public func matches(_ regularExpression: String, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        compare(.matches, .constant(.string(regularExpression)), options: options)
    }
    /// `key ==[options] value` with string options (`[c]`, `[d]`).
    public func equals(_ value: String, options: ComparisonPredicate.Options) -> FetchPredicate {
        compare(.equalTo, .constant(.string(value)), options: options)
    }
}

extension FetchPredicate {
    /// `lhs AND rhs`.
    public static func && (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .and(lhs, rhs) }
    /// `lhs OR rhs`.
    public static func || (lhs: FetchPredicate, rhs: FetchPredicate) -> FetchPredicate { .or(lhs, rhs) }
    /// `NOT predicate`.
    public static prefix func ! (predicate: FetchPredicate) -> FetchPredicate { .not(predicate) }
}
