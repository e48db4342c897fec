import Foundation

/// One of Foundation's `PredicateExpressions` types that ``PredicateTranslator`` translates
/// into the framework's predicates.
///
/// The conformances are unconditional: each translates its operands through the translator,
/// so an operand without an equivalent is reported by name rather than making the whole
/// predicate untranslatable without saying why.
protocol TranslatablePredicateExpression: PredicateExpression {
    /// What the expression stands for.
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term
}

private typealias T = PredicateTranslator

// MARK: Values, variables, key paths

extension PredicateExpressions.Value: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .value(try translator.constant(value, of: self))
    }
}

extension PredicateExpressions.Variable: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .value(try translator.variable(key, in: self))
    }
}

extension PredicateExpressions.NilLiteral: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .value(.constant(.null))
    }
}

extension PredicateExpressions.KeyPath: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let base = try translator.term(of: root)
        // A key path on a captured value (`names.count`) is read now.
        if case .value(let value) = base, value.isConstant, let constant = try translator.constantTerm(evaluating: self) {
            return constant
        }
        let isString = Root.Output.self is any StringProtocol.Type
        if let kind {
            if kind == .collectionCount {
                if isString { throw translator.unsupported(self, "a string's length has no equivalent in the framework's predicates") }
                return T.mapValue(base) { .value(T.appending([.collectionOperator(.count)], to: $0)) }
            }
            if kind == .collectionIsEmpty {
                if isString {
                    return .condition(T.predicate(base) { T.comparison($0, .equalTo, .constant(.string(""))) })
                }
                return .condition(
                    T.predicate(base) { T.comparison(T.appending([.collectionOperator(.count)], to: $0), .equalTo, .constant(.int(0))) })
            }
            throw translator.unsupported(self, "first and last elements have no equivalent in the framework's predicates (to-many relationships are unordered)")
        }
        guard let modelType = Root.Output.self as? any PersistentModel.Type else {
            throw translator.unsupported(self, "\(keyPath) is not a property of a @Model class")
        }
        // `persistentModelID` and `persistentObjectID` are the object itself, which compares
        // by its ID.
        if identityKeyPaths(of: modelType).contains(keyPath) { return base }
        guard let name = modelType.persistentPropertyName(for: keyPath) else {
            throw translator.unsupported(
                self, "\(keyPath) is not a persisted property of \(modelType.persistentEntitySchema.className) (a computed or @Transient property)")
        }
        return T.mapValue(base) { .value(T.appending([.key(name)], to: $0)) }
    }
}

/// `\Model.persistentModelID` and `\Model.persistentObjectID`.
private func identityKeyPaths<Model: PersistentModel>(of type: Model.Type) -> [AnyKeyPath] {
    [\Model.persistentModelID, \Model.persistentObjectID]
}

extension FetchExpression {
    /// Whether the expression is a constant or a collection of constants (a captured value).
    fileprivate var isConstant: Bool {
        switch self {
        case .constant: return true
        case .collection(let items): return items.allSatisfy(\.isConstant)
        default: return false
        }
    }
}

// MARK: Comparisons and logic

extension PredicateExpressions.Equal: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .condition(T.compare(try translator.term(of: lhs), .equalTo, try translator.term(of: rhs)))
    }
}

extension PredicateExpressions.NotEqual: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .condition(T.compare(try translator.term(of: lhs), .notEqualTo, try translator.term(of: rhs)))
    }
}

extension PredicateExpressions.Comparison: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let op: ComparisonPredicate.Operator
        switch self.op {
        case .lessThan: op = .lessThan
        case .lessThanOrEqual: op = .lessThanOrEqualTo
        case .greaterThan: op = .greaterThan
        case .greaterThanOrEqual: op = .greaterThanOrEqualTo
        }
        return .condition(T.compare(try translator.term(of: lhs), op, try translator.term(of: rhs)))
    }
}

extension PredicateExpressions.Conjunction: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .condition(T.and(try translator.condition(of: lhs), try translator.condition(of: rhs)))
    }
}

extension PredicateExpressions.Disjunction: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .condition(T.or(try translator.condition(of: lhs), try translator.condition(of: rhs)))
    }
}

extension PredicateExpressions.Negation: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .condition(T.not(try translator.condition(of: wrapped)))
    }
}

extension PredicateExpressions.Conditional: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        T.conditional(try translator.condition(of: test), try translator.term(of: trueBranch), try translator.term(of: falseBranch))
    }
}

// MARK: Arithmetic

extension PredicateExpressions.Arithmetic: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let op: FetchExpression.ArithmeticOperator
        switch self.op {
        case .add: op = .add
        case .subtract: op = .subtract
        case .multiply: op = .multiply
        }
        return T.mapValues(try translator.term(of: lhs), try translator.term(of: rhs)) { .value(.arithmetic(op, $0, $1)) }
    }
}

extension PredicateExpressions.FloatDivision: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        T.mapValues(try translator.term(of: lhs), try translator.term(of: rhs)) { .value(.arithmetic(.divide, $0, $1)) }
    }
}

extension PredicateExpressions.IntDivision: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        if let constant = try translator.constantTerm(evaluating: self) { return constant }
        throw translator.unsupported(
            self, "integer division has no equivalent (the framework's / divides as floating point; convert the operands to Double)")
    }
}

extension PredicateExpressions.IntRemainder: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        if let constant = try translator.constantTerm(evaluating: self) { return constant }
        throw translator.unsupported(self, "the remainder operator % has no equivalent in the framework's predicates")
    }
}

extension PredicateExpressions.UnaryMinus: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        T.mapValue(try translator.term(of: wrapped)) { value in
            // A negative literal (`-3`) is a constant.
            switch value {
            case .constant(.int(let number)) where number != .min: return .value(.constant(.int(-number)))
            case .constant(.double(let number)): return .value(.constant(.double(-number)))
            case .constant(.decimal(let number)): return .value(.constant(.decimal(-number)))
            default: return .value(.arithmetic(.multiply, value, .constant(.int(-1))))
            }
        }
    }
}

// MARK: Optionals

extension PredicateExpressions.OptionalFlatMap: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let wrappedTerm = try translator.term(of: wrapped)
        return try T.mapValue(wrappedTerm) { value in
            if case .constant(.null) = value { return .value(.constant(.null)) }
            let result = try translator.binding(variable.key, to: value) { try $0.term(of: transform) }
            // `trip?.name` is nil when `trip` is: no test needed.
            if case .value(let transformed) = result, T.isNil(transformed, whenNil: value) { return result }
            return T.conditional(T.comparison(value, .notEqualTo, .constant(.null)), result, .value(.constant(.null)))
        }
    }
}

extension PredicateExpressions.NilCoalesce: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let fallback = try translator.term(of: rhs)
        return T.mapValue(try translator.term(of: lhs)) { value in
            if case .constant(.null) = value { return fallback }
            if case .constant = value { return .value(value) }
            return T.conditional(T.comparison(value, .notEqualTo, .constant(.null)), .value(value), fallback)
        }
    }
}

extension PredicateExpressions.ForcedUnwrap: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        // In the store a nil stays nil (comparisons with it are false) rather than trapping.
        try translator.term(of: inner)
    }
}

// MARK: Strings

extension PredicateExpressions.CollectionContainsCollection: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        guard Base.Output.self is any StringProtocol.Type, Other.Output.self is any StringProtocol.Type else {
            if let constant = try translator.constantTerm(evaluating: self) { return constant }
            throw translator.unsupported(self, "contains(_:) of a collection of values has no equivalent (only strings)")
        }
        return .condition(T.compare(try translator.term(of: base), .contains, try translator.term(of: other)))
    }
}

extension PredicateExpressions.SequenceStartsWith: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        guard Base.Output.self is any StringProtocol.Type, Prefix.Output.self is any StringProtocol.Type else {
            if let constant = try translator.constantTerm(evaluating: self) { return constant }
            throw translator.unsupported(self, "starts(with:) of a sequence of values has no equivalent (only strings)")
        }
        return .condition(T.compare(try translator.term(of: base), .beginsWith, try translator.term(of: prefix)))
    }
}

// MARK: Sequences and to-many relationships

extension PredicateExpressions.SequenceContains: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let sequenceTerm = try translator.term(of: sequence)
        let elementTerm = try translator.term(of: element)
        if LHS.Output.self is any StringProtocol.Type {
            return .condition(T.compare(sequenceTerm, .contains, elementTerm))
        }
        if case .value(.collection) = sequenceTerm {
            return .condition(T.compare(elementTerm, .in, sequenceTerm))  // a captured array: IN
        }
        return .condition(T.compare(sequenceTerm, .contains, elementTerm))  // a to-many: membership
    }
}

extension PredicateExpressions.SequenceContainsWhere: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let subquery = try translator.subquery(of: sequence, variable: variable, test: test, in: self)
        return .condition(T.comparison(.keyPath(subquery, [.collectionOperator(.count)]), .greaterThan, .constant(.int(0))))
    }
}

extension PredicateExpressions.SequenceAllSatisfy: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let subquery = try translator.subquery(of: sequence, variable: variable, test: test, in: self, negated: true)
        return .condition(T.comparison(.keyPath(subquery, [.collectionOperator(.count)]), .equalTo, .constant(.int(0))))
    }
}

extension PredicateExpressions.Filter: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        .value(try translator.subquery(of: sequence, variable: variable, test: filter, in: self))
    }
}

extension PredicateTranslator {
    /// `SUBQUERY(sequence, $x, test)` (with `NOT test` when `negated`).
    fileprivate mutating func subquery<Element>(
        of sequence: any PredicateExpression, variable: PredicateExpressions.Variable<Element>, test: any PredicateExpression,
        in expression: any PredicateExpression, negated: Bool = false
    ) throws -> FetchExpression {
        let collection = try value(of: sequence, as: "the sequence")
        let (name, predicate) = try withSubqueryVariable(variable.key) { translator, name in
            (name, try translator.condition(of: test))
        }
        if Self.mentionsEvaluatedObject(predicate) {
            throw unsupported(
                expression, "its closure refers to the object being fetched, which a subquery cannot (only to the element)")
        }
        return .subquery(collection: collection, variable: name, predicate: negated ? Self.not(predicate) : predicate)
    }
}

// MARK: Ranges

/// A range written in the predicate (`low...high`, `low..<high`).
protocol RangePredicateExpression {
    /// The lower bound's expression.
    var lowerBoundExpression: any PredicateExpression { get }
    /// The upper bound's expression.
    var upperBoundExpression: any PredicateExpression { get }
    /// Whether the upper bound is in the range.
    var includesUpperBound: Bool { get }
}

extension PredicateExpressions.ClosedRange: RangePredicateExpression {
    var lowerBoundExpression: any PredicateExpression { lower }
    var upperBoundExpression: any PredicateExpression { upper }
    var includesUpperBound: Bool { true }
}

extension PredicateExpressions.Range: RangePredicateExpression {
    var lowerBoundExpression: any PredicateExpression { lower }
    var upperBoundExpression: any PredicateExpression { upper }
    var includesUpperBound: Bool { false }
}

/// A captured range value: its bounds.
protocol RangePredicateValue {
    /// The lower bound, if any.
    var lowerPredicateBound: Any? { get }
    /// The upper bound, if any.
    var upperPredicateBound: Any? { get }
    /// Whether the upper bound is in the range.
    var includesUpperPredicateBound: Bool { get }
}

extension ClosedRange: RangePredicateValue {
    var lowerPredicateBound: Any? { lowerBound }
    var upperPredicateBound: Any? { upperBound }
    var includesUpperPredicateBound: Bool { true }
}

extension Range: RangePredicateValue {
    var lowerPredicateBound: Any? { lowerBound }
    var upperPredicateBound: Any? { upperBound }
    var includesUpperPredicateBound: Bool { false }
}

extension PartialRangeFrom: RangePredicateValue {
    var lowerPredicateBound: Any? { lowerBound }
    var upperPredicateBound: Any? { nil }
    var includesUpperPredicateBound: Bool { false }
}

extension PartialRangeThrough: RangePredicateValue {
    var lowerPredicateBound: Any? { nil }
    var upperPredicateBound: Any? { upperBound }
    var includesUpperPredicateBound: Bool { true }
}

extension PartialRangeUpTo: RangePredicateValue {
    var lowerPredicateBound: Any? { nil }
    var upperPredicateBound: Any? { upperBound }
    var includesUpperPredicateBound: Bool { false }
}

extension PredicateExpressions.RangeExpressionContains: TranslatablePredicateExpression {
    func translate(with translator: inout PredicateTranslator) throws -> PredicateTranslator.Term {
        let element = try translator.term(of: self.element)
        let lower: PredicateTranslator.Term?
        let upper: PredicateTranslator.Term?
        let closed: Bool
        if let written = range as? any RangePredicateExpression {
            lower = try translator.term(of: written.lowerBoundExpression)
            upper = try translator.term(of: written.upperBoundExpression)
            closed = written.includesUpperBound
        } else if let captured = try? range.evaluate(PredicateBindings()), let bounds = captured as? any RangePredicateValue {
            lower = try bounds.lowerPredicateBound.map { .value(try translator.constant($0, of: range)) }
            upper = try bounds.upperPredicateBound.map { .value(try translator.constant($0, of: range)) }
            closed = bounds.includesUpperPredicateBound
        } else {
            throw translator.unsupported(self, "the range is neither written in the predicate nor a captured value")
        }
        if closed, case .value(.constant(let low))? = lower, case .value(.constant(let high))? = upper {
            // `value BETWEEN {low, high}`
            return .condition(T.compare(element, .between, .value(.collection([.constant(low), .constant(high)]))))
        }
        var condition = FetchPredicate.truePredicate
        if let lower { condition = T.and(condition, T.compare(element, .greaterThanOrEqualTo, lower)) }
        if let upper { condition = T.and(condition, T.compare(element, closed ? .lessThanOrEqualTo : .lessThan, upper)) }
        return .condition(condition)
    }
}
