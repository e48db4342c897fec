import Foundation

/// A comparison of two expressions (Core Data's `NSComparisonPredicate`):
/// `[modifier] lhs operator[options] rhs`, such as `ANY tags.name LIKE[c] 'tag*'`.
///
/// ```swift
/// let adults = ComparisonPredicate(.keyPath("age"), .greaterThanOrEqualTo, .constant(18))
/// ```
public struct ComparisonPredicate: Sendable, Hashable {
    /// The left-hand expression (usually a key path).
    public var lhs: FetchExpression
    /// The operator.
    public var op: Operator
    /// The right-hand expression.
    public var rhs: FetchExpression
    /// String options: `[c]`, `[d]`, `[n]`, `[l]`.
    public var options: Options
    /// `ANY`, `ALL`, `NONE`, or none (``Modifier/direct``).
    public var modifier: Modifier
    /// Where the comparison came from in a format string; ignored by `==` and hashing.
    public var location: PredicateSourceLocation

    /// Creates a comparison.
    public init(
        _ lhs: FetchExpression, _ op: Operator, _ rhs: FetchExpression, options: Options = [],
        modifier: Modifier = .direct, location: PredicateSourceLocation = PredicateSourceLocation()
    ) {
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.options = options
        self.modifier = modifier
        self.location = location
    }

    /// The comparison operators.
    public enum Operator: String, Sendable, Hashable, Codable, CaseIterable {
        /// `==` or `=`.
        case equalTo = "=="
        /// `!=` or `<>`.
        case notEqualTo = "!="
        /// `<`.
        case lessThan = "<"
        /// `<=` or `=<`.
        case lessThanOrEqualTo = "<="
        /// `>`.
        case greaterThan = ">"
        /// `>=` or `=>`.
        case greaterThanOrEqualTo = ">="
        /// `BEGINSWITH`: the string starts with the right-hand string.
        case beginsWith = "BEGINSWITH"
        /// `ENDSWITH`: the string ends with the right-hand string.
        case endsWith = "ENDSWITH"
        /// `CONTAINS`: the string contains the right-hand string, or the collection contains the
        /// right-hand value.
        case contains = "CONTAINS"
        /// `LIKE`: the string matches a pattern with `*` (any run) and `?` (one character)
        /// wildcards; `\*` and `\?` match themselves.
        case like = "LIKE"
        /// `MATCHES`: the whole string matches an ICU regular expression.
        case matches = "MATCHES"
        /// `IN`: the value is an element of the right-hand collection (or a substring of a
        /// right-hand string).
        case `in` = "IN"
        /// `BETWEEN {low, high}`: `low <= value <= high`.
        case between = "BETWEEN"

        /// Whether the operator compares strings only (the string options apply to it).
        public var isStringOperator: Bool {
            switch self {
            case .beginsWith, .endsWith, .like, .matches: return true
            default: return false
            }
        }

        /// Whether the operator orders values (`<`, `<=`, `>`, `>=`, `BETWEEN`).
        public var isOrdering: Bool {
            switch self {
            case .lessThan, .lessThanOrEqualTo, .greaterThan, .greaterThanOrEqualTo, .between: return true
            default: return false
            }
        }
    }

    /// The string options of a comparison.
    public struct Options: OptionSet, Sendable, Hashable, Codable {
        /// The raw bits.
        public let rawValue: Int
        /// Wraps raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// `[c]`: case-insensitive (full Unicode case folding).
        public static let caseInsensitive = Options(rawValue: 1 << 0)
        /// `[d]`: diacritic-insensitive (`ą` equals `a`).
        public static let diacriticInsensitive = Options(rawValue: 1 << 1)
        /// `[n]`: the strings are already normalised; accepted and has no further effect.
        public static let normalized = Options(rawValue: 1 << 2)
        /// `[l]`: locale-sensitive; accepted and has no further effect (comparisons are
        /// locale-independent so that every store agrees).
        public static let localeSensitive = Options(rawValue: 1 << 3)

        /// The option letters as written in a format string (`"cd"`).
        public var letters: String {
            var text = ""
            if contains(.caseInsensitive) { text += "c" }
            if contains(.diacriticInsensitive) { text += "d" }
            if contains(.normalized) { text += "n" }
            if contains(.localeSensitive) { text += "l" }
            return text
        }

        /// Whether the options change how strings compare (`[c]` or `[d]`).
        public var folds: Bool { contains(.caseInsensitive) || contains(.diacriticInsensitive) }

        /// The string as the options compare it: case-folded for `[c]`, diacritics removed for
        /// `[d]`, then in Unicode normalisation form C. Without `[c]` or `[d]` the string is
        /// returned unchanged (plain comparisons are by Unicode scalars). Stores that compare
        /// strings themselves (SQL functions) call this so that they agree with the evaluator.
        public func fold(_ string: String) -> String {
            guard folds else { return string }
            var folding: String.CompareOptions = []
            if contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
            if contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
            var folded = string.folding(options: folding, locale: nil)
            if contains(.caseInsensitive) {
                // `folding(.caseInsensitive)` lowercases; lowercasing again catches the
                // few characters whose fold is not their lowercase form.
                folded = folded.lowercased()
            }
            return folded.precomposedStringWithCanonicalMapping
        }
    }

    /// How a comparison applies to a collection on its left.
    public enum Modifier: String, Sendable, Hashable, Codable, CaseIterable {
        /// No modifier. A collection on the left (a key path through a to-many relationship)
        /// is treated as ``any``.
        case direct = ""
        /// `ANY` / `SOME`: some element satisfies the comparison.
        case any = "ANY"
        /// `ALL`: every element satisfies it (true for an empty collection).
        case all = "ALL"
        /// `NONE`: no element satisfies it (true for an empty collection).
        case none = "NONE"
    }
}
