import Foundation

/// Translates Foundation's `Predicate<T>` (written with `#Predicate`) over a `@Model` class into
/// the framework's ``FetchPredicate``, so a typed query runs where a string predicate runs: in
/// SQL on the SQL stores, in memory on the others.
///
/// The translator walks `predicate.expression`: each of Foundation's `PredicateExpressions`
/// types it knows conforms to ``TranslatablePredicateExpression`` and says what it stands for
/// (a ``Term``). A sub-expression that mentions no variable of the predicate (a captured value,
/// `names.count`) is evaluated once and becomes a constant. Anything else throws a
/// `StoreError` (134060) naming the expression; a predicate is never evaluated in Swift over the
/// objects of the store.
///
/// docs/swift-models.md lists what each expression becomes.
struct PredicateTranslator {
    /// What a sub-expression of a `Predicate` stands for.
    indirect enum Term {
        /// A value: a key path, a constant, arithmetic, a subquery.
        case value(FetchExpression)
        /// A Boolean condition (a comparison, `&&`, `||`, `!`).
        case condition(FetchPredicate)
        /// `test ? whenTrue : whenFalse`: `??`, `flatMap` and the ternary operator give it;
        /// comparisons and arithmetic apply to each branch.
        case conditional(FetchPredicate, Term, Term)
    }

    /// The class the predicate is over (for messages).
    let className: String
    /// Its entity (for errors).
    let entityName: String
    /// What each variable of the predicate stands for: the evaluated object, or a subquery's
    /// variable.
    private var variables: [PredicateExpressions.VariableID: FetchExpression] = [:]
    /// How many subquery variables were named so far.
    private var subqueryVariables = 0

    /// The framework's predicate for a `Predicate` over a `@Model` class.
    ///
    /// - Throws: a `StoreError` (134060) naming the first expression that has no equivalent.
    static func fetchPredicate<T: PersistentModel>(for predicate: Predicate<T>) throws -> FetchPredicate {
        let schema = T.persistentEntitySchema
        var translator = PredicateTranslator(className: schema.className, entityName: schema.entityName)
        translator.variables[predicate.variable.key] = .evaluatedObject
        return try translator.condition(of: predicate.expression)
    }

    // MARK: Walking the expression

    /// What an expression stands for.
    mutating func term(of expression: any PredicateExpression) throws -> Term {
        if let translatable = expression as? any TranslatablePredicateExpression {
            return try translatable.translate(with: &self)
        }
        if let constant = try constantTerm(evaluating: expression) { return constant }
        throw unsupported(expression, "it has no equivalent in the framework's predicates")
    }

    /// The condition an expression of type `Bool` stands for.
    mutating func condition(of expression: any PredicateExpression) throws -> FetchPredicate {
        Self.condition(try term(of: expression))
    }

    /// The value an expression stands for, when it is a plain value (not a condition or a
    /// conditional): the base of a key path, a sequence.
    mutating func value(of expression: any PredicateExpression, as role: String) throws -> FetchExpression {
        guard case .value(let value) = try term(of: expression) else {
            throw unsupported(expression, "\(role) must be a property, a relationship or a captured value, not a condition or a conditional value")
        }
        return value
    }

    /// The constant an expression that mentions no variable evaluates to; nil when it
    /// mentions one (its evaluation fails without bindings).
    func constantTerm(evaluating expression: any PredicateExpression) throws -> Term? {
        guard let value = try? expression.evaluate(PredicateBindings()) else { return nil }
        return .value(try constant(value, of: expression))
    }

    /// The framework's constant for a captured Swift value.
    func constant(_ value: Any, of expression: any PredicateExpression) throws -> FetchExpression {
        if let optional = value as? any OptionalPredicateValue {
            guard let wrapped = optional.wrappedPredicateValue else { return .constant(.null) }
            return try constant(wrapped, of: expression)
        }
        if let model = value as? any PersistentModel {
            guard let id = model.persistentObjectID else {
                throw unsupported(
                    expression, "the \(type(of: model).persistentEntitySchema.className) it compares with is not inserted in a context, so it has no object ID")
            }
            return .constant(.objectID(id))
        }
        if let identifier = value as? PersistentIdentifier { return .constant(.objectID(identifier.objectID)) }
        if let convertible = value as? any StoreValueConvertible { return .constant(convertible.storeValue) }
        if let argument = value as? any PredicateArgument { return argument.predicateExpression }
        if let result = value as? ComparisonResult { return .constant(.int(Int64(result.rawValue))) }
        if let character = value as? Character { return .constant(.string(String(character))) }
        if let raw = value as? any RawRepresentable { return try constant(raw.rawValue, of: expression) }
        if let sequence = value as? any Sequence {
            return .collection(try Self.elements(of: sequence).map { try constant($0, of: expression) })
        }
        throw unsupported(expression, "a value of type \(type(of: value)) has no equivalent in the framework's predicates")
    }

    private static func elements<S: Sequence>(of sequence: S) -> [Any] { sequence.map { $0 } }

    /// A new subquery variable bound to `id` while `body` runs, and its name.
    mutating func withSubqueryVariable<Result>(
        _ id: PredicateExpressions.VariableID, _ body: (inout PredicateTranslator, String) throws -> Result
    ) rethrows -> Result {
        subqueryVariables += 1
        let name = subqueryVariables == 1 ? "x" : "x\(subqueryVariables)"
        let previous = variables[id]
        variables[id] = .variable(name)
        defer { variables[id] = previous }
        return try body(&self, name)
    }

    /// What a variable stands for, with `body` seeing `id` bound to `value`.
    mutating func binding<Result>(
        _ id: PredicateExpressions.VariableID, to value: FetchExpression, _ body: (inout PredicateTranslator) throws -> Result
    ) rethrows -> Result {
        let previous = variables[id]
        variables[id] = value
        defer { variables[id] = previous }
        return try body(&self)
    }

    /// What a variable stands for.
    func variable(_ id: PredicateExpressions.VariableID, in expression: any PredicateExpression) throws -> FetchExpression {
        guard let value = variables[id] else { throw unsupported(expression, "it uses a variable the predicate does not bind") }
        return value
    }

    /// The error for an expression without an equivalent.
    func unsupported(_ expression: any PredicateExpression, _ reason: String) -> StoreError {
        StoreError(
            .coreData,
            "#Predicate<\(className)> cannot be translated into a store predicate: \(expression): \(reason)",
            entityName: entityName)
    }

    // MARK: Building terms

    /// The condition a term stands for: a value is compared with `YES`.
    static func condition(_ term: Term) -> FetchPredicate {
        switch term {
        case .condition(let predicate): return predicate
        case .value(.constant(.bool(let flag))): return flag ? .truePredicate : .falsePredicate
        case .value(let value): return comparison(value, .equalTo, .constant(.bool(true)))
        case .conditional(let test, let whenTrue, let whenFalse):
            return or(and(test, condition(whenTrue)), and(not(test), condition(whenFalse)))
        }
    }

    /// `test ? whenTrue : whenFalse`, decided now when the test is constant.
    static func conditional(_ test: FetchPredicate, _ whenTrue: Term, _ whenFalse: Term) -> Term {
        switch test {
        case .truePredicate: return whenTrue
        case .falsePredicate: return whenFalse
        default: return .conditional(test, whenTrue, whenFalse)
        }
    }

    /// A term made from the value of `term`, applied to each branch of a conditional (a
    /// condition is the conditional `condition ? YES : NO`).
    static func mapValue(_ term: Term, _ transform: (FetchExpression) throws -> Term) rethrows -> Term {
        switch term {
        case .value(let value): return try transform(value)
        case .condition(let predicate): return try mapValue(asConditional(predicate), transform)
        case .conditional(let test, let whenTrue, let whenFalse):
            return conditional(test, try mapValue(whenTrue, transform), try mapValue(whenFalse, transform))
        }
    }

    /// A term made from the values of two terms, over every combination of their branches.
    static func mapValues(_ lhs: Term, _ rhs: Term, _ transform: (FetchExpression, FetchExpression) throws -> Term) rethrows -> Term {
        try mapValue(lhs) { left in try mapValue(rhs) { right in try transform(left, right) } }
    }

    /// A condition on the value of `term`: for a conditional, `(test AND p(whenTrue)) OR (NOT
    /// test AND p(whenFalse))`.
    static func predicate(_ term: Term, _ make: (FetchExpression) throws -> FetchPredicate) rethrows -> FetchPredicate {
        switch term {
        case .value(let value): return try make(value)
        case .condition(let predicate): return try self.predicate(asConditional(predicate), make)
        case .conditional(let test, let whenTrue, let whenFalse):
            return or(and(test, try self.predicate(whenTrue, make)), and(not(test), try self.predicate(whenFalse, make)))
        }
    }

    /// A comparison of two terms, applied to each combination of their branches.
    static func compare(_ lhs: Term, _ op: ComparisonPredicate.Operator, _ rhs: Term, options: ComparisonPredicate.Options = []) -> FetchPredicate {
        predicate(lhs) { left in predicate(rhs) { right in comparison(left, op, right, options: options) } }
    }

    /// A condition as the value `YES` or `NO`.
    private static func asConditional(_ predicate: FetchPredicate) -> Term {
        conditional(predicate, .value(.constant(.bool(true))), .value(.constant(.bool(false))))
    }

    /// A comparison of two values, decided now when both are constants whose comparison every
    /// store answers the same way (nil, integers, Booleans, strings without options).
    static func comparison(
        _ lhs: FetchExpression, _ op: ComparisonPredicate.Operator, _ rhs: FetchExpression, options: ComparisonPredicate.Options = []
    ) -> FetchPredicate {
        if case .constant(let left) = lhs, case .constant(let right) = rhs, options.isEmpty,
            let decided = decide(left, op, right)
        {
            return decided ? .truePredicate : .falsePredicate
        }
        return .comparison(ComparisonPredicate(lhs, op, rhs, options: options))
    }

    private static func decide(_ lhs: StoreValue, _ op: ComparisonPredicate.Operator, _ rhs: StoreValue) -> Bool? {
        let equal: Bool
        var order: Int64?
        switch (lhs, rhs) {
        case (.null, .null): equal = true
        case (.null, _), (_, .null): equal = false
        case (.int(let a), .int(let b)):
            equal = a == b
            order = a < b ? -1 : (a == b ? 0 : 1)
        case (.bool(let a), .bool(let b)): equal = a == b
        case (.string(let a), .string(let b)): equal = a.unicodeScalars.elementsEqual(b.unicodeScalars)
        default: return nil
        }
        switch op {
        case .equalTo: return equal
        case .notEqualTo: return !equal
        case .lessThan: return order.map { $0 < 0 }
        case .lessThanOrEqualTo: return order.map { $0 <= 0 }
        case .greaterThan: return order.map { $0 > 0 }
        case .greaterThanOrEqualTo: return order.map { $0 >= 0 }
        default: return nil
        }
    }

    /// `lhs AND rhs`, simplified when either is constant.
    static func and(_ lhs: FetchPredicate, _ rhs: FetchPredicate) -> FetchPredicate {
        switch (lhs, rhs) {
        case (.falsePredicate, _), (_, .falsePredicate): return .falsePredicate
        case (.truePredicate, _): return rhs
        case (_, .truePredicate): return lhs
        default: return .and(lhs, rhs)
        }
    }

    /// `lhs OR rhs`, simplified when either is constant.
    static func or(_ lhs: FetchPredicate, _ rhs: FetchPredicate) -> FetchPredicate {
        switch (lhs, rhs) {
        case (.truePredicate, _), (_, .truePredicate): return .truePredicate
        case (.falsePredicate, _): return rhs
        case (_, .falsePredicate): return lhs
        default: return .or(lhs, rhs)
        }
    }

    /// `NOT predicate`, simplified when it is constant or a negation.
    static func not(_ predicate: FetchPredicate) -> FetchPredicate {
        switch predicate {
        case .truePredicate: return .falsePredicate
        case .falsePredicate: return .truePredicate
        case .not(let inner): return inner
        default: return .not(predicate)
        }
    }

    /// A key path continued by more components (`trip` then `name` is `trip.name`).
    static func appending(_ components: [FetchExpression.KeyPathComponent], to base: FetchExpression) -> FetchExpression {
        if case .keyPath(let root, let existing) = base,
            !existing.contains(where: { if case .collectionOperator = $0 { return true } else { return false } })
        {
            return .keyPath(root, existing + components)
        }
        return .keyPath(base, components)
    }

    /// Whether `expression` is nil whenever `wrapped` is (a key path continuing it, arithmetic
    /// on it), so `wrapped.flatMap { … }` needs no test for nil.
    static func isNil(_ expression: FetchExpression, whenNil wrapped: FetchExpression) -> Bool {
        if expression == wrapped { return true }
        switch expression {
        case .keyPath(let base, let components):
            guard !components.contains(where: { if case .collectionOperator = $0 { return true } else { return false } })
            else { return false }
            if case .keyPath(let wrappedBase, let wrappedComponents) = wrapped, base == wrappedBase,
                components.count > wrappedComponents.count, components.starts(with: wrappedComponents)
            {
                return true
            }
            return isNil(base, whenNil: wrapped)
        case .arithmetic(_, let lhs, let rhs):
            return isNil(lhs, whenNil: wrapped) || isNil(rhs, whenNil: wrapped)
        default:
            return false
        }
    }

    /// Whether a predicate refers to the evaluated object (inside a subquery `SELF` is the
    /// element, so a subquery's predicate cannot refer to the object the fetch evaluates).
    static func mentionsEvaluatedObject(_ predicate: FetchPredicate) -> Bool {
        switch predicate {
        case .truePredicate, .falsePredicate: return false
        case .comparison(let comparison):
            return mentionsEvaluatedObject(comparison.lhs) || mentionsEvaluatedObject(comparison.rhs)
        case .and(let parts), .or(let parts): return parts.contains(where: mentionsEvaluatedObject)
        case .not(let inner): return mentionsEvaluatedObject(inner)
        }
    }

    private static func mentionsEvaluatedObject(_ expression: FetchExpression) -> Bool {
        switch expression {
        case .evaluatedObject: return true
        case .constant, .variable, .now: return false
        case .collection(let items): return items.contains(where: mentionsEvaluatedObject)
        case .keyPath(let base, _): return mentionsEvaluatedObject(base)
        case .subquery(let collection, _, let predicate): return mentionsEvaluatedObject(collection) || mentionsEvaluatedObject(predicate)
        case .arithmetic(_, let lhs, let rhs): return mentionsEvaluatedObject(lhs) || mentionsEvaluatedObject(rhs)
        }
    }
}

/// An `Optional` seen through `Any`: its wrapped value, if any.
protocol OptionalPredicateValue {
    /// The wrapped value; nil for `.none`.
    var wrappedPredicateValue: Any? { get }
}

extension Optional: OptionalPredicateValue {
    var wrappedPredicateValue: Any? { self.map { $0 as Any } }
}
