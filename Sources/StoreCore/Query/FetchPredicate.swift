import Foundation

/// A predicate: the condition of a fetch (Core Data's `NSPredicate`), as a syntax tree.
///
/// Build one from a format string in Core Data's syntax, or in code:
///
/// ```swift
/// let p = try FetchPredicate(format: "age > %@ AND name BEGINSWITH[c] %@", 30, "A")
/// let q: FetchPredicate = .and([
///     .comparison(ComparisonPredicate(.keyPath("age"), .greaterThan, .constant(30))),
///     .comparison(ComparisonPredicate(.keyPath("name"), .beginsWith, .constant("A"), options: .caseInsensitive)),
/// ])
/// // p == q
/// ```
///
/// A predicate evaluates over managed objects, store nodes and dictionaries
/// (``evaluate(with:variables:now:)``); the SQLite store compiles it to SQL. `$variables` are
/// replaced by ``withSubstitutionVariables(_:)``. ``predicateFormat`` writes the format string
/// back (it parses to an equal predicate), and predicates are `Codable` as that string.
/// `docs/predicates.md` describes the dialect and its semantics.
public indirect enum FetchPredicate: Sendable, Hashable {
    /// `TRUEPREDICATE`: always true.
    case truePredicate
    /// `FALSEPREDICATE`: always false.
    case falsePredicate
    /// A comparison of two expressions.
    case comparison(ComparisonPredicate)
    /// `AND`: every sub-predicate holds (true when empty).
    case and([FetchPredicate])
    /// `OR`: some sub-predicate holds (false when empty).
    case or([FetchPredicate])
    /// `NOT`: the sub-predicate does not hold.
    case not(FetchPredicate)

    /// Parses a predicate format string, replacing `%@`, `%K`, `%d`, `%i`, `%ld`, `%f` (and
    /// `%%` for a literal percent sign) with `arguments` in order.
    ///
    /// - Throws: a ``StoreError`` (code 134060) whose message quotes the string with a caret at
    ///   the offending position and whose ``StoreError/position`` is its offset in Unicode scalars.
    public init(format: String, _ arguments: any PredicateArgument...) throws {
        try self.init(format: format, argumentArray: arguments)
    }

    /// Parses a predicate format string with its arguments given as an array.
    public init(format: String, argumentArray arguments: [any PredicateArgument]) throws {
        var parser = try PredicateParser(format: format, arguments: arguments)
        self = try parser.parsePredicateToEnd()
    }

    /// `lhs AND rhs`, flattening nested `AND`s.
    public static func and(_ lhs: FetchPredicate, _ rhs: FetchPredicate) -> FetchPredicate {
        var parts: [FetchPredicate] = []
        for side in [lhs, rhs] {
            if case .and(let inner) = side { parts += inner } else { parts.append(side) }
        }
        return .and(parts)
    }

    /// `lhs OR rhs`, flattening nested `OR`s.
    public static func or(_ lhs: FetchPredicate, _ rhs: FetchPredicate) -> FetchPredicate {
        var parts: [FetchPredicate] = []
        for side in [lhs, rhs] {
            if case .or(let inner) = side { parts += inner } else { parts.append(side) }
        }
        return .or(parts)
    }

    /// The predicate with its `$variables` replaced by values (Core Data's
    /// `withSubstitutionVariables`). Variables bound by a `SUBQUERY` are left alone; variables
    /// missing from `variables` stay, and evaluating them fails with a clear error.
    ///
    /// ```swift
    /// let template = try FetchPredicate(format: "name == $NAME AND age > $AGE")
    /// let p = template.withSubstitutionVariables(["NAME": "Maggie", "AGE": 40])
    /// ```
    public func withSubstitutionVariables(_ variables: [String: any PredicateArgument]) -> FetchPredicate {
        substituting(variables.mapValues(\.predicateExpression), bound: [])
    }

    /// The names of the `$variables` still to substitute, in order of first appearance.
    public var freeVariables: [String] {
        var names: [String] = []
        collectFreeVariables(bound: [], into: &names)
        return names
    }

    /// The predicate with expressions replaced, outermost first: where `transform` returns an
    /// expression it replaces the one given (and is not applied inside it); where it returns nil
    /// the expression's parts are visited.
    func replacingExpressions(_ transform: (FetchExpression) throws -> FetchExpression?) rethrows -> FetchPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(var comparison):
            comparison.lhs = try comparison.lhs.replacing(transform)
            comparison.rhs = try comparison.rhs.replacing(transform)
            return .comparison(comparison)
        case .and(let parts): return .and(try parts.map { try $0.replacingExpressions(transform) })
        case .or(let parts): return .or(try parts.map { try $0.replacingExpressions(transform) })
        case .not(let inner): return .not(try inner.replacingExpressions(transform))
        }
    }

    func substituting(_ variables: [String: FetchExpression], bound: Set<String>) -> FetchPredicate {
        switch self {
        case .truePredicate, .falsePredicate: return self
        case .comparison(var comparison):
            comparison.lhs = comparison.lhs.substituting(variables, bound: bound)
            comparison.rhs = comparison.rhs.substituting(variables, bound: bound)
            return .comparison(comparison)
        case .and(let parts): return .and(parts.map { $0.substituting(variables, bound: bound) })
        case .or(let parts): return .or(parts.map { $0.substituting(variables, bound: bound) })
        case .not(let inner): return .not(inner.substituting(variables, bound: bound))
        }
    }

    func collectFreeVariables(bound: Set<String>, into names: inout [String]) {
        switch self {
        case .truePredicate, .falsePredicate: break
        case .comparison(let comparison):
            comparison.lhs.collectFreeVariables(bound: bound, into: &names)
            comparison.rhs.collectFreeVariables(bound: bound, into: &names)
        case .and(let parts), .or(let parts):
            for part in parts { part.collectFreeVariables(bound: bound, into: &names) }
        case .not(let inner): inner.collectFreeVariables(bound: bound, into: &names)
        }
    }

    /// Every comparison in the predicate, including those inside subqueries, depth first.
    public var comparisons: [ComparisonPredicate] {
        var found: [ComparisonPredicate] = []
        func visit(_ predicate: FetchPredicate) {
            switch predicate {
            case .truePredicate, .falsePredicate: break
            case .comparison(let comparison):
                found.append(comparison)
                visitExpression(comparison.lhs)
                visitExpression(comparison.rhs)
            case .and(let parts), .or(let parts): parts.forEach(visit)
            case .not(let inner): visit(inner)
            }
        }
        func visitExpression(_ expression: FetchExpression) {
            switch expression {
            case .constant, .evaluatedObject, .variable, .now: break
            case .collection(let items): items.forEach(visitExpression)
            case .keyPath(let base, _): visitExpression(base)
            case .subquery(let collection, _, let predicate):
                visitExpression(collection)
                visit(predicate)
            case .arithmetic(_, let lhs, let rhs):
                visitExpression(lhs)
                visitExpression(rhs)
            }
        }
        visit(self)
        return found
    }
}

extension FetchPredicate: CustomStringConvertible {
    /// The format string (``predicateFormat``).
    public var description: String { predicateFormat }

    /// The predicate as a format string that parses back to an equal predicate. Constants
    /// without a literal form are written as casts: `CAST(123.5, "NSDate")` (seconds since
    /// 2001), `CAST("…", "NSData")` (base64), `CAST("…", "NSUUID")`, `CAST("…", "NSURL")`,
    /// `CAST("…", "NSDecimalNumber")`, `CAST("x-coredata://…", "ObjectID")`.
    public var predicateFormat: String { PredicateFormatter.format(self) }
}

extension FetchPredicate: Codable {
    /// Decodes a predicate from its format string.
    public init(from decoder: any Decoder) throws {
        let format = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(format: format)
        } catch let error as StoreError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error))
        }
    }

    /// Encodes the predicate as its format string (``predicateFormat``).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(predicateFormat)
    }
}
