import Foundation

/// One side of a comparison in a ``FetchPredicate`` (Core Data's `NSExpression`): a constant, a
/// key path, a variable, the evaluated object, a collection, a subquery, arithmetic or `now()`.
///
/// Key paths are rooted: `team.name` is `.keyPath(.evaluatedObject, [.key("team"), .key("name")])`,
/// `$x.age` inside a subquery is `.keyPath(.variable("x"), [.key("age")])`, and
/// `SUBQUERY(…).@count` is `.keyPath(.subquery(…), [.collectionOperator(.count)])`. A collection
/// operator applies to the collection its left-hand components produce, and the components after
/// it are applied to each element first: `employees.@avg.age` averages the employees' ages.
///
/// ```swift
/// let path = FetchExpression.keyPath("team.name")
/// let sum: FetchExpression = .keyPath(.evaluatedObject, [.key("posts"), .collectionOperator(.count)])
/// ```
public indirect enum FetchExpression: Sendable, Hashable {
    /// A constant value (`'text'`, `42`, `YES`, `nil`, an object ID given as `%@`).
    case constant(StoreValue)
    /// A collection of expressions (`{1, 2, 3}`, or an array given as `%@`).
    case collection([FetchExpression])
    /// The object being evaluated (`SELF`).
    case evaluatedObject
    /// A `$variable`: bound by a subquery, or replaced by
    /// ``FetchPredicate/withSubstitutionVariables(_:)``.
    case variable(String)
    /// A key path applied to a base expression (usually ``evaluatedObject``).
    case keyPath(FetchExpression, [KeyPathComponent])
    /// `SUBQUERY(collection, $variable, predicate)`: the elements of `collection` for which
    /// `predicate` holds with `$variable` bound to the element.
    case subquery(collection: FetchExpression, variable: String, predicate: FetchPredicate)
    /// `lhs + rhs`, `lhs - rhs`, `lhs * rhs`, `lhs / rhs` on numbers, and on dates (a date plus or
    /// minus seconds; a date minus a date in seconds).
    case arithmetic(ArithmeticOperator, FetchExpression, FetchExpression)
    /// `now()`: the current date, read once per fetch so every object sees the same instant.
    case now

    /// One step of a key path.
    public enum KeyPathComponent: Sendable, Hashable, Codable {
        /// A property name (attribute or relationship).
        case key(String)
        /// A collection operator: `@count`, `@sum`, `@avg`, `@min`, `@max`.
        case collectionOperator(CollectionOperator)
    }

    /// The collection operators of key paths.
    public enum CollectionOperator: String, Sendable, Hashable, Codable, CaseIterable {
        /// `@count`: the number of elements (0 for nil).
        case count
        /// `@sum`: the sum of the numbers (0 for an empty collection).
        case sum
        /// `@avg`: the arithmetic mean (nil for an empty collection).
        case avg
        /// `@min`: the smallest value (nil for an empty collection).
        case min
        /// `@max`: the largest value (nil for an empty collection).
        case max
    }

    /// The arithmetic operators.
    public enum ArithmeticOperator: String, Sendable, Hashable, Codable, CaseIterable {
        /// `+`
        case add = "+"
        /// `-`
        case subtract = "-"
        /// `*`
        case multiply = "*"
        /// `/` (always a floating-point division).
        case divide = "/"
    }

    /// A key path on the evaluated object from its dotted form: `"team.name"`,
    /// `"posts.@count"`, `"employees.@avg.age"`. A component starting with `@` must name a
    /// collection operator; any other component is a property name.
    public static func keyPath(_ path: String) -> FetchExpression {
        .keyPath(.evaluatedObject, KeyPathComponent.components(of: path))
    }

    /// The dotted key path when this is a key path on the evaluated object (`"team.name"`), else nil.
    public var keyPathString: String? {
        guard case .keyPath(.evaluatedObject, let components) = self else { return nil }
        return KeyPathComponent.string(of: components)
    }

    /// The expression with every unbound `$variable` named in `variables` replaced by its
    /// value. Variables bound by an enclosing subquery are left alone.
    public func substituting(_ variables: [String: FetchExpression]) -> FetchExpression {
        substituting(variables, bound: [])
    }

    func substituting(_ variables: [String: FetchExpression], bound: Set<String>) -> FetchExpression {
        switch self {
        case .constant, .evaluatedObject, .now: return self
        case .variable(let name):
            guard !bound.contains(name), let value = variables[name] else { return self }
            return value
        case .collection(let items): return .collection(items.map { $0.substituting(variables, bound: bound) })
        case .keyPath(let base, let components): return .keyPath(base.substituting(variables, bound: bound), components)
        case .subquery(let collection, let variable, let predicate):
            var inner = bound
            inner.insert(variable)
            return .subquery(
                collection: collection.substituting(variables, bound: bound), variable: variable,
                predicate: predicate.substituting(variables, bound: inner))
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(op, lhs.substituting(variables, bound: bound), rhs.substituting(variables, bound: bound))
        }
    }

    /// The expression with parts replaced (see ``FetchPredicate/replacingExpressions(_:)``).
    func replacing(_ transform: (FetchExpression) throws -> FetchExpression?) rethrows -> FetchExpression {
        if let replaced = try transform(self) { return replaced }
        switch self {
        case .constant, .evaluatedObject, .now, .variable: return self
        case .collection(let items): return .collection(try items.map { try $0.replacing(transform) })
        case .keyPath(let base, let components): return .keyPath(try base.replacing(transform), components)
        case .subquery(let collection, let variable, let predicate):
            return .subquery(
                collection: try collection.replacing(transform), variable: variable,
                predicate: try predicate.replacingExpressions(transform))
        case .arithmetic(let op, let lhs, let rhs):
            return .arithmetic(op, try lhs.replacing(transform), try rhs.replacing(transform))
        }
    }

    /// The names of the `$variables` not bound by a subquery, in order of first appearance.
    public var freeVariables: [String] {
        var names: [String] = []
        collectFreeVariables(bound: [], into: &names)
        return names
    }

    func collectFreeVariables(bound: Set<String>, into names: inout [String]) {
        switch self {
        case .constant, .evaluatedObject, .now: break
        case .variable(let name): if !bound.contains(name) && !names.contains(name) { names.append(name) }
        case .collection(let items): for item in items { item.collectFreeVariables(bound: bound, into: &names) }
        case .keyPath(let base, _): base.collectFreeVariables(bound: bound, into: &names)
        case .subquery(let collection, let variable, let predicate):
            collection.collectFreeVariables(bound: bound, into: &names)
            var inner = bound
            inner.insert(variable)
            predicate.collectFreeVariables(bound: inner, into: &names)
        case .arithmetic(_, let lhs, let rhs):
            lhs.collectFreeVariables(bound: bound, into: &names)
            rhs.collectFreeVariables(bound: bound, into: &names)
        }
    }
}

extension FetchExpression.KeyPathComponent {
    /// Splits a dotted key path into components (`"@avg"` becomes a collection operator; an
    /// `@name` that is not an operator stays a key, which validation then rejects).
    public static func components(of path: String) -> [FetchExpression.KeyPathComponent] {
        path.split(separator: ".", omittingEmptySubsequences: false).map { part in
            if part.hasPrefix("@"), let op = FetchExpression.CollectionOperator(rawValue: String(part.dropFirst()).lowercased()) {
                return .collectionOperator(op)
            }
            return .key(String(part))
        }
    }

    /// The dotted form of components (`"employees.@avg.age"`).
    public static func string(of components: [FetchExpression.KeyPathComponent]) -> String {
        components.map { component in
            switch component {
            case .key(let name): return name
            case .collectionOperator(let op): return "@" + op.rawValue
            }
        }.joined(separator: ".")
    }
}

extension FetchExpression: CustomStringConvertible {
    /// The expression in format-string syntax (``predicateFormat``).
    public var description: String { predicateFormat }

    /// The expression in format-string syntax; ``init(format:_:)`` parses it back to an equal
    /// expression.
    public var predicateFormat: String { PredicateFormatter.format(self) }

    /// Parses an expression in format-string syntax (`"team.name"`, `"age + 1"`,
    /// `"SUBQUERY(posts, $p, $p.title BEGINSWITH 'x').@count"`), replacing `%@`-style
    /// arguments as ``FetchPredicate/init(format:_:)`` does.
    public init(format: String, _ arguments: any PredicateArgument...) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parseExpressionToEnd()
    }
}

extension FetchExpression: Codable {
    /// Decodes an expression from its format string.
    public init(from decoder: any Decoder) throws {
        let format = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(format: format)
        } catch let error as StoreError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
        }
    }

    /// Encodes the expression as its format string (``predicateFormat``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(predicateFormat)
    }
}
