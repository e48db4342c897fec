/// A computed column of a dictionary fetch (Core Data's `NSExpressionDescription`): an aggregate
/// such as `sum:(age)` over the matching objects (or over each group), or an expression's value
/// per object, under a result key.
///
/// ```swift
/// var request = FetchRequest(entityName: "User")
/// request.resultType = .dictionaries
/// request.propertiesToFetch = [
///     .expression(ExpressionDescription(name: "total", function: .sum, keyPath: "age")),
///     .expression(ExpressionDescription(name: "mean", function: .average, keyPath: "age")),
/// ]
/// // → [["total": 17, "mean": 3.4]] for ages 1, 2, 3, 4, 7
/// ```
public struct ExpressionDescription: Sendable, Hashable, Codable {
    /// The key of the value in each result dictionary.
    public var name: String
    /// The aggregate function; nil for the expression's value per object.
    public var function: AggregateFunction?
    /// What the function applies to (usually a key path).
    public var expression: FetchExpression
    /// The attribute type of the result, when the caller wants it coerced (e.g. `.double` for
    /// an average of integers that should stay a double, `.integer64` to truncate it).
    public var resultType: AttributeType?

    /// The aggregate functions.
    public enum AggregateFunction: String, Sendable, Hashable, Codable, CaseIterable {
        /// `sum:` — the sum of the non-nil values (0 when there are none).
        case sum
        /// `count:` — the number of non-nil values.
        case count
        /// `min:` — the smallest non-nil value (absent when there are none).
        case min
        /// `max:` — the largest non-nil value (absent when there are none).
        case max
        /// `average:` — the mean of the non-nil values as a double (absent when there are none).
        case average
    }

    /// A description of an expression with an optional aggregate function.
    public init(name: String, function: AggregateFunction? = nil, expression: FetchExpression, resultType: AttributeType? = nil) {
        self.name = name
        self.function = function
        self.expression = expression
        self.resultType = resultType
    }

    /// A description of an aggregate (or, with no function, the value) of a key path.
    public init(name: String, function: AggregateFunction?, keyPath: String, resultType: AttributeType? = nil) {
        self.init(name: name, function: function, expression: .keyPath(keyPath), resultType: resultType)
    }
}
