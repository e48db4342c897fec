import Foundation

/// Evaluates predicates and expressions over ``PredicateEvaluable`` objects with Core Data's
/// semantics (see `docs/predicates.md`).
///
/// One evaluator serves a whole fetch: `now()` is read once, when the evaluator is created, and
/// compiled `MATCHES` expressions are cached.
///
/// ```swift
/// let evaluator = PredicateEvaluator()
/// let adults = try people.filter { try evaluator.evaluate(predicate, with: $0) }
/// ```
public final class PredicateEvaluator {
    /// The instant `now()` stands for.
    public let now: Date
    /// Values of `$variables` not bound by a subquery.
    public let variables: [String: FetchExpression]
    private var regularExpressions: [String: NSRegularExpression] = [:]

    /// An intermediate value: a scalar, an object, or a collection.
    enum Operand {
        case value(StoreValue)
        case object(any PredicateEvaluable)
        case collection([Operand])

        static var null: Operand { .value(.null) }

        /// The operand as a comparable scalar: objects as their ID.
        var scalar: StoreValue? {
            switch self {
            case .value(let v): return v
            case .object(let o): return o.predicateObjectID.map(StoreValue.objectID)
            case .collection: return nil
            }
        }

        /// The operand as a collection: a collection's items, nothing for nil, else itself.
        var elements: [Operand] {
            switch self {
            case .collection(let items): return items
            case .value(.null): return []
            default: return [self]
            }
        }

        var isObject: Bool { if case .object = self { return true } else { return false } }
    }

    /// Creates an evaluator.
    /// - Parameters:
    ///   - now: the instant `now()` stands for (default: the current date).
    ///   - variables: values for `$variables` (an alternative to
    ///     ``FetchPredicate/withSubstitutionVariables(_:)``).
    public init(now: Date = Date(), variables: [String: any PredicateArgument] = [:]) {
        self.now = now
        self.variables = variables.mapValues(\.predicateExpression)
    }

    // MARK: Public entry points

    /// Whether `predicate` holds for `object`.
    ///
    /// - Throws: a ``StoreError`` for a `$variable` without a value, an invalid `MATCHES`
    ///   pattern, `BETWEEN` without two bounds, or arithmetic on values that are not numbers or
    ///   dates.
    public func evaluate(_ predicate: FetchPredicate, with object: any PredicateEvaluable) throws -> Bool {
        try evaluate(predicate, object: object, bindings: [:])
    }

    /// The value of an expression for `object` as a scalar: attributes as they are, objects as
    /// their ID, `nil` (`.null`) for nothing. Collections (a key path through a to-many
    /// relationship) throw: use a collection operator.
    public func value(of expression: FetchExpression, with object: any PredicateEvaluable) throws -> StoreValue {
        let operand = try value(expression, object: object, bindings: [:])
        guard let scalar = operand.scalar else {
            throw StoreError(.coreData, "\(expression) is a collection (a key path through a to-many relationship), not a single value")
        }
        return scalar
    }

    /// The values of an expression for `object` as a flat list: the elements of a collection,
    /// nothing for nil, else the single value. Objects are given as their ID.
    public func values(of expression: FetchExpression, with object: any PredicateEvaluable) throws -> [StoreValue] {
        try value(expression, object: object, bindings: [:]).elements.flatMap { element -> [StoreValue] in
            if case .collection(let inner) = element { return inner.compactMap(\.scalar) }
            return element.scalar.map { [$0] } ?? []
        }
    }

    /// The value of an expression for `object` as a constant expression: a scalar as
    /// `.constant`, an object as its ID, a collection as `.collection` of constants.
    public func constant(of expression: FetchExpression, with object: any PredicateEvaluable) throws -> FetchExpression {
        func constant(_ operand: Operand) -> FetchExpression {
            switch operand {
            case .collection(let items): return .collection(items.map(constant))
            default: return .constant(operand.scalar ?? .null)
            }
        }
        return constant(try value(expression, object: object, bindings: [:]))
    }

    // MARK: Predicates

    func evaluate(_ predicate: FetchPredicate, object: any PredicateEvaluable, bindings: [String: Operand]) throws -> Bool {
        switch predicate {
        case .truePredicate: return true
        case .falsePredicate: return false
        case .and(let parts):
            for part in parts where try !evaluate(part, object: object, bindings: bindings) { return false }
            return true
        case .or(let parts):
            for part in parts where try evaluate(part, object: object, bindings: bindings) { return true }
            return false
        case .not(let inner): return try !evaluate(inner, object: object, bindings: bindings)
        case .comparison(let comparison): return try evaluate(comparison, object: object, bindings: bindings)
        }
    }

    private func evaluate(_ c: ComparisonPredicate, object: any PredicateEvaluable, bindings: [String: Operand]) throws -> Bool {
        let lhs = try value(c.lhs, object: object, bindings: bindings)
        let rhs = try value(c.rhs, object: object, bindings: bindings)
        let regex = try c.op == .matches ? regularExpression(for: rhs, options: c.options) : nil
        switch c.modifier {
        case .any:
            for element in lhs.elements where try compare(element, c, rhs, regex) { return true }
            return false
        case .all:
            for element in lhs.elements where try !compare(element, c, rhs, regex) { return false }
            return true
        case .none:
            for element in lhs.elements where try compare(element, c, rhs, regex) { return false }
            return true
        case .direct:
            if case .collection(let items) = lhs, !Self.comparesWholeCollection(c, items) {
                // A key path through a to-many relationship without a modifier means ANY.
                for element in items where try compare(element, c, rhs, regex) { return true }
                return false
            }
            return try compare(lhs, c, rhs, regex)
        }
    }

    /// `CONTAINS` with a collection of objects or a literal collection on the left tests
    /// membership; every other collection on the left is an implicit `ANY`.
    private static func comparesWholeCollection(_ c: ComparisonPredicate, _ items: [Operand]) -> Bool {
        guard c.op == .contains else { return false }
        switch c.lhs {
        case .collection, .constant: return true
        default: return items.contains(where: \.isObject)
        }
    }

    private func regularExpression(for pattern: Operand, options: ComparisonPredicate.Options) throws -> NSRegularExpression? {
        guard case .value(.string(let text)) = pattern else { return nil }
        let key = options.letters + ":" + text
        if let cached = regularExpressions[key] { return cached }
        let compiled = try PatternMatcher.regularExpression(text, options: options)
        regularExpressions[key] = compiled
        return compiled
    }

    private func compare(_ lhs: Operand, _ c: ComparisonPredicate, _ rhs: Operand, _ regex: NSRegularExpression?) throws -> Bool {
        let options = c.options
        switch c.op {
        case .equalTo: return Self.equal(lhs, rhs, options)
        case .notEqualTo: return !Self.equal(lhs, rhs, options)
        case .lessThan: return Self.order(lhs, rhs, options) == .orderedAscending
        case .lessThanOrEqualTo: return Self.order(lhs, rhs, options).map { $0 != .orderedDescending } ?? false
        case .greaterThan: return Self.order(lhs, rhs, options) == .orderedDescending
        case .greaterThanOrEqualTo: return Self.order(lhs, rhs, options).map { $0 != .orderedAscending } ?? false
        case .between:
            guard case .collection(let bounds) = rhs, bounds.count == 2 else {
                throw StoreError(.coreData, "BETWEEN needs exactly two bounds {low, high}, found \(Self.describe(rhs))")
            }
            guard let low = Self.order(lhs, bounds[0], options), let high = Self.order(lhs, bounds[1], options) else { return false }
            return low != .orderedAscending && high != .orderedDescending
        case .in:
            switch rhs {
            case .collection(let items): return items.contains { Self.equal(lhs, $0, options) }
            case .value(.string(let text)):
                guard case .value(.string(let part)) = lhs else { return false }
                return PatternMatcher.contains(options.fold(text), options.fold(part))
            default: return Self.equal(lhs, rhs, options)
            }
        case .contains:
            switch lhs {
            case .collection(let items): return items.contains { Self.equal($0, rhs, options) }
            case .value(.string(let text)):
                guard case .value(.string(let part)) = rhs else { return false }
                return PatternMatcher.contains(options.fold(text), options.fold(part))
            default: return false
            }
        case .beginsWith, .endsWith, .like, .matches:
            guard case .value(.string(let text)) = lhs, case .value(.string(let pattern)) = rhs else { return false }
            switch c.op {
            case .beginsWith: return PatternMatcher.hasPrefix(options.fold(text), options.fold(pattern))
            case .endsWith: return PatternMatcher.hasSuffix(options.fold(text), options.fold(pattern))
            case .like: return PatternMatcher.like(options.fold(text), pattern: options.fold(pattern))
            default:
                guard let regex else { return false }
                return PatternMatcher.matches(text, regex, options: options)
            }
        }
    }

    // MARK: Value comparison

    /// Equality with predicate semantics: nil equals only nil; numbers and booleans compare
    /// numerically; strings by Unicode scalars (after folding for `[c]`/`[d]`); objects by ID;
    /// collections element by element.
    static func equal(_ lhs: Operand, _ rhs: Operand, _ options: ComparisonPredicate.Options) -> Bool {
        if case .collection(let a) = lhs, case .collection(let b) = rhs {
            return a.count == b.count && zip(a, b).allSatisfy { equal($0, $1, options) }
        }
        guard let a = lhs.scalar, let b = rhs.scalar else { return false }
        return equalValues(a, b, options)
    }

    /// Equality of two scalars with predicate semantics (the equality `==` uses between predicate operands).
    public static func equalValues(_ a: StoreValue, _ b: StoreValue, _ options: ComparisonPredicate.Options = []) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case (.null, _), (_, .null): return false
        case (.string(let x), .string(let y)):
            return StoreValue.compareScalars(options.fold(x), options.fold(y)) == .orderedSame
        default:
            if let x = numeric(a), let y = numeric(b) { return StoreValue.compare(x, y) == .orderedSame }
            return a == b
        }
    }

    /// Ordering with predicate semantics: nil when either side is nil or the two cannot be
    /// ordered (a string and a number); numbers and booleans numerically, strings by Unicode
    /// scalars after folding, dates as instants.
    public static func orderValues(_ a: StoreValue, _ b: StoreValue, _ options: ComparisonPredicate.Options = []) -> ComparisonResult? {
        switch (a, b) {
        case (.null, _), (_, .null): return nil
        case (.string(let x), .string(let y)): return StoreValue.compareScalars(options.fold(x), options.fold(y))
        case (.date, .date), (.data, .data), (.uuid, .uuid), (.uri, .uri), (.objectID, .objectID):
            return StoreValue.compare(a, b)
        default:
            guard let x = numeric(a), let y = numeric(b) else { return nil }
            return StoreValue.compare(x, y)
        }
    }

    static func order(_ lhs: Operand, _ rhs: Operand, _ options: ComparisonPredicate.Options) -> ComparisonResult? {
        guard let a = lhs.scalar, let b = rhs.scalar else { return nil }
        return orderValues(a, b, options)
    }

    /// A number as a number case (`YES` is 1), nil for anything else.
    private static func numeric(_ value: StoreValue) -> StoreValue? {
        switch value {
        case .int, .double, .decimal: return value
        case .bool(let v): return .int(v ? 1 : 0)
        default: return nil
        }
    }

    private static func describe(_ operand: Operand) -> String {
        switch operand {
        case .value(let v): return v.description
        case .object(let o): return o.predicateObjectID.map { "object \($0)" } ?? "an object"
        case .collection(let items): return "a collection of \(items.count)"
        }
    }

    // MARK: Expressions

    func value(_ expression: FetchExpression, object: any PredicateEvaluable, bindings: [String: Operand]) throws -> Operand {
        switch expression {
        case .constant(let v): return .value(v)
        case .collection(let items): return .collection(try items.map { try value($0, object: object, bindings: bindings) })
        case .evaluatedObject: return .object(object)
        case .now: return .value(.date(now))
        case .variable(let name):
            if let bound = bindings[name] { return bound }
            if let substituted = variables[name] { return try value(substituted, object: object, bindings: bindings) }
            throw StoreError(
                .coreData,
                "The predicate variable $\(name) has no value; give it with withSubstitutionVariables([\"\(name)\": …])")
        case .keyPath(let base, let components):
            return try follow(components[...], from: try value(base, object: object, bindings: bindings))
        case .subquery(let collection, let variable, let predicate):
            let source = try value(collection, object: object, bindings: bindings)
            var selected: [Operand] = []
            var inner = bindings
            for element in source.elements {
                inner[variable] = element
                let subject: any PredicateEvaluable
                if case .object(let o) = element { subject = o } else { subject = object }
                if try evaluate(predicate, object: subject, bindings: inner) { selected.append(element) }
            }
            return .collection(selected)
        case .arithmetic(let op, let lhs, let rhs):
            let a = try value(lhs, object: object, bindings: bindings)
            let b = try value(rhs, object: object, bindings: bindings)
            guard let x = a.scalar, let y = b.scalar else {
                throw StoreError(.coreData, "Cannot apply \(op.rawValue) to \(Self.describe(a)) and \(Self.describe(b))")
            }
            return .value(try Self.arithmetic(op, x, y))
        }
    }

    /// Follows key-path components from an operand: keys through objects (flattening through
    /// to-many relationships), collection operators over what the remaining components give
    /// for each element.
    private func follow(_ components: ArraySlice<FetchExpression.KeyPathComponent>, from operand: Operand) throws -> Operand {
        guard let first = components.first else { return operand }
        let rest = components.dropFirst()
        switch first {
        case .key(let key):
            return try follow(rest, from: try step(key, from: operand))
        case .collectionOperator(let op):
            var values: [StoreValue] = []
            var count = 0
            for element in operand.elements {
                let result = try follow(rest, from: element)
                for item in result.elements {
                    count += 1
                    if let scalar = item.scalar { values.append(scalar) }
                }
            }
            return .value(try Self.aggregate(op, values, count: count))
        }
    }

    private func step(_ key: String, from operand: Operand) throws -> Operand {
        switch operand {
        case .object(let o):
            switch try o.predicateValue(forKey: key) {
            case .value(let v): return .value(v)
            case .object(let related?): return .object(related)
            case .object(nil): return .null
            case .objects(let related): return .collection(related.map(Operand.object))
            }
        case .collection(let items):
            var flattened: [Operand] = []
            for item in items {
                let next = try step(key, from: item)
                if case .collection(let inner) = next { flattened += inner } else { flattened.append(next) }
            }
            return .collection(flattened)
        case .value:
            return .null
        }
    }

    /// A collection operator over the non-nil values (`count` counts every element).
    static func aggregate(_ op: FetchExpression.CollectionOperator, _ values: [StoreValue], count: Int) throws -> StoreValue {
        switch op {
        case .count: return .int(Int64(count))
        case .sum:
            var total: StoreValue = .int(0)
            for v in values where !v.isNull { total = try arithmetic(.add, total, v) }
            return total
        case .avg:
            let present = values.filter { !$0.isNull }
            guard !present.isEmpty else { return .null }
            var total: StoreValue = .int(0)
            for v in present { total = try arithmetic(.add, total, v) }
            if case .decimal(let d) = total { return .decimal(d / Decimal(present.count)) }
            guard let sum = total.doubleValue else { return .null }
            return .double(sum / Double(present.count))
        case .min, .max:
            var best: StoreValue?
            for v in values where !v.isNull {
                guard let current = best else {
                    best = v
                    continue
                }
                let order = orderValues(v, current) ?? StoreValue.compare(v, current)
                if (op == .min && order == .orderedAscending) || (op == .max && order == .orderedDescending) { best = v }
            }
            return best ?? .null
        }
    }

    /// Arithmetic on numbers (integers stay integers until they overflow; `/` is always
    /// floating-point) and dates (date ± seconds, date − date in seconds). Nil gives nil, and so
    /// do a division by zero (`age / 0`, `age / NO`) and a result that is not a number
    /// (`1e999 - 1e999`), as in SQL: a predicate answers the same in memory as in a SQL store,
    /// where SQLite's division by zero and NaN are NULL (PostgreSQL's division is compiled with
    /// `NULLIF`), rather than an infinity or a NaN no SQL value stands for.
    public static func arithmetic(_ op: FetchExpression.ArithmeticOperator, _ a: StoreValue, _ b: StoreValue) throws -> StoreValue {
        if a.isNull || b.isNull { return .null }
        if op == .divide, let divisor = numeric(b), isZero(divisor) { return .null }
        switch (a, b) {
        case (.date(let d), _) where op == .add || op == .subtract:
            if case .date(let e) = b, op == .subtract { return .double(d.timeIntervalSince(e)) }
            guard let seconds = numeric(b)?.doubleValue else { break }
            return .date(d.addingTimeInterval(op == .add ? seconds : -seconds))
        case (_, .date(let d)) where op == .add:
            guard let seconds = numeric(a)?.doubleValue else { break }
            return .date(d.addingTimeInterval(seconds))
        default:
            guard let x = numeric(a), let y = numeric(b) else { break }
            switch (x, y) {
            case (.int(let i), .int(let j)) where op != .divide:
                let (result, overflow): (Int64, Bool)
                switch op {
                case .add: (result, overflow) = i.addingReportingOverflow(j)
                case .subtract: (result, overflow) = i.subtractingReportingOverflow(j)
                default: (result, overflow) = i.multipliedReportingOverflow(by: j)
                }
                if !overflow { return .int(result) }
                return .double(apply(op, Double(i), Double(j)))
            case (.decimal, _), (_, .decimal):
                guard let p = decimal(x), let q = decimal(y) else { break }
                switch op {
                case .add: return .decimal(p + q)
                case .subtract: return .decimal(p - q)
                case .multiply: return .decimal(p * q)
                case .divide: return .decimal(p / q)
                }
            default:
                guard let p = x.doubleValue, let q = y.doubleValue else { break }
                // NaN (`1e999 - 1e999`, `age * 1e999` for an age of 0) is nil, as SQLite makes it.
                let result = apply(op, p, q)
                return result.isNaN ? .null : .double(result)
            }
        }
        throw StoreError(.coreData, "Cannot apply \(op.rawValue) to \(a) (\(a.typeName)) and \(b) (\(b.typeName))")
    }

    /// Whether a number (as ``numeric(_:)`` gives it) is zero.
    private static func isZero(_ number: StoreValue) -> Bool {
        switch number {
        case .int(let i): return i == 0
        case .double(let d): return d == 0
        case .decimal(let d): return d.isZero
        default: return false
        }
    }

    private static func apply(_ op: FetchExpression.ArithmeticOperator, _ x: Double, _ y: Double) -> Double {
        switch op {
        case .add: return x + y
        case .subtract: return x - y
        case .multiply: return x * y
        case .divide: return x / y
        }
    }

    private static func decimal(_ value: StoreValue) -> Decimal? {
        switch value {
        case .decimal(let d): return d
        case .int(let i): return Decimal(i)
        case .double(let d): return d.isFinite ? Decimal(d) : nil
        default: return nil
        }
    }
}

extension FetchPredicate {
    /// Whether the predicate holds for `object` (a ``GraphNode``, a dictionary, a managed
    /// object). For many objects, create one ``PredicateEvaluator`` and reuse it.
    public func evaluate(
        with object: any PredicateEvaluable, variables: [String: any PredicateArgument] = [:], now: Date = Date()
    ) throws -> Bool {
        try PredicateEvaluator(now: now, variables: variables).evaluate(self, with: object)
    }
}
