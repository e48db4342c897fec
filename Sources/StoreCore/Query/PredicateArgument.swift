import Foundation

/// A value that can stand for a `%@` (or `%K`, `%d`, `%f`) in a predicate format string, or for
/// a `$variable` in ``FetchPredicate/withSubstitutionVariables(_:)``.
///
/// Every ``StoreValueConvertible`` type conforms (strings, numbers, booleans, dates, data, UUIDs,
/// URLs, ``ObjectID``, ``StoreValue``), as do arrays and sets of arguments (a collection, for
/// `IN` and `BETWEEN`), optionals (`nil` is `nil`) and ``FetchExpression`` itself. A managed
/// object conforms by returning its object ID as a constant:
///
/// ```swift
/// extension ManagedObject: PredicateArgument {
///     public var predicateExpression: FetchExpression { .constant(.objectID(objectID)) }
/// }
/// let p = try FetchPredicate(format: "team == %@ AND age IN %@", team, [30, 31])
/// ```
public protocol PredicateArgument {
    /// The expression the argument stands for (a constant or a collection of constants).
    var predicateExpression: FetchExpression { get }
}

extension PredicateArgument where Self: StoreValueConvertible {
    /// `.constant(storeValue)`.
    public var predicateExpression: FetchExpression { .constant(storeValue) }
}

extension String: PredicateArgument {}
extension Bool: PredicateArgument {}
extension Int: PredicateArgument {}
extension Int64: PredicateArgument {}
extension Int32: PredicateArgument {}
extension Int16: PredicateArgument {}
extension Double: PredicateArgument {}
extension Float: PredicateArgument {}
extension Decimal: PredicateArgument {}
extension Date: PredicateArgument {}
extension Data: PredicateArgument {}
extension UUID: PredicateArgument {}
extension URL: PredicateArgument {}
extension ObjectID: PredicateArgument {}
extension StoreValue: PredicateArgument {}

extension FetchExpression: PredicateArgument {
    /// The expression itself.
    public var predicateExpression: FetchExpression { self }
}

extension Array: PredicateArgument where Element: PredicateArgument {
    /// A collection of the elements' expressions.
    public var predicateExpression: FetchExpression { .collection(map(\.predicateExpression)) }
}

extension Set: PredicateArgument where Element: PredicateArgument {
    /// A collection of the elements' expressions (in the set's iteration order).
    public var predicateExpression: FetchExpression { .collection(map(\.predicateExpression)) }
}

extension Optional: PredicateArgument where Wrapped: PredicateArgument {
    /// The wrapped value's expression, or `nil`.
    public var predicateExpression: FetchExpression {
        switch self {
        case .some(let value): return value.predicateExpression
        case .none: return .constant(.null)
        }
    }
}
