import Foundation

/// A derived attribute's expression, parsed (Core Data's derived attributes): the value a save
/// computes for the attribute from the object itself.
///
/// | expression | value |
/// |---|---|
/// | `name`, `author.name` | a copy of an attribute, directly or through to-one relationships |
/// | `books.@count` | the number of objects of a to-many |
/// | `items.@sum.price`, `@avg`, `@min`, `@max` | an aggregate over a to-many |
/// | `canonical:(name)` | the string case- and diacritic-folded (what `[cd]` compares) |
/// | `lowercase:(name)`, `uppercase:(name)` | the string lowercased or uppercased |
/// | `now()` | the date of the save |
///
/// ```swift
/// Attribute("searchName", .string, derivation: "canonical:(name)")
/// Attribute("bookCount", .integer64, derivation: "books.@count")
/// ```
public struct AttributeDerivation: Sendable, Hashable {
    /// What is done to the key path's value.
    public enum Function: String, Sendable, Hashable {
        /// The value as it is.
        case identity
        /// Case and diacritics folded.
        case canonical
        /// Lowercased.
        case lowercase
        /// Uppercased.
        case uppercase
    }

    /// The function applied to ``expression``'s value.
    public let function: Function
    /// The key path (with collection operators) or `now()` the value comes from.
    public let expression: FetchExpression

    /// Parses a derivation expression; 134060 naming the entity and attribute when it is not
    /// one of the forms above.
    public init(_ text: String, entity: String, attribute: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        var function = Function.identity
        var body = trimmed
        for candidate in [Function.canonical, .lowercase, .uppercase] where trimmed.hasPrefix(candidate.rawValue + ":(") {
            guard trimmed.hasSuffix(")") else { break }
            function = candidate
            body = String(trimmed.dropFirst(candidate.rawValue.count + 2).dropLast())
        }
        let expression: FetchExpression
        do {
            expression = try FetchExpression(format: body)
        } catch let error as StoreError {
            throw StoreError.invalidModel(
                "derived attribute \(entity).\(attribute) has an expression that does not parse (\(text)): \(error.message)",
                entity: entity, property: attribute)
        }
        switch expression {
        case .keyPath(.evaluatedObject, _), .now: break
        default:
            throw StoreError.invalidModel(
                "derived attribute \(entity).\(attribute): \(text) is not a key path, a function of one, or now()",
                entity: entity, property: attribute)
        }
        if function != .identity, case .now = expression {
            throw StoreError.invalidModel(
                "derived attribute \(entity).\(attribute): \(function.rawValue): takes a key path, not now()", entity: entity, property: attribute)
        }
        self.function = function
        self.expression = expression
    }

    /// The derived value for `object`, as `type` holds it (nil when the key path leads nowhere).
    func value(for object: any PredicateEvaluable, type: AttributeType, evaluator: PredicateEvaluator, now: Date) throws -> StoreValue {
        var value: StoreValue
        if case .now = expression {
            value = .date(now)
        } else {
            value = try evaluator.value(of: expression, with: object)
        }
        if case .string(let string) = value {
            switch function {
            case .identity: break
            case .canonical: value = .string(ComparisonPredicate.Options([.caseInsensitive, .diacriticInsensitive]).fold(string))
            case .lowercase: value = .string(string.lowercased())
            case .uppercase: value = .string(string.uppercased())
            }
        }
        if value.isNull { return .null }
        return type.coerce(value) ?? value
    }
}
