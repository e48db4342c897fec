import Foundation

/// Checks a predicate against a model before it runs: every key path must name properties of
/// the entities it passes through, string operators must apply to strings, ordering operators
/// must not apply to objects, and every `$variable` must have a value. Errors point at the
/// comparison side in the format string.
struct PredicateValidator {
    let model: ObjectModel

    /// What an expression yields, as far as the model tells.
    indirect enum Kind {
        case scalar(AttributeType?)
        case object(entity: String)
        case collection(Kind)
        case unknown

        var element: Kind {
            if case .collection(let inner) = self { return inner.element }
            return self
        }
    }

    private struct Failure: Error {
        let problem: String
        let side: Side
    }

    private enum Side { case lhs, rhs, op }

    func validate(_ predicate: FetchPredicate, entity: String) throws {
        try validate(predicate, entity: entity, variables: [:])
    }

    /// What an expression on an object of `entity` yields.
    func resultKind(of expression: FetchExpression, entity: String) throws -> Kind {
        do {
            return try kind(of: expression, entity: entity, variables: [:], side: .lhs)
        } catch let failure as Failure {
            throw StoreError(.coreData, "Invalid expression \(PredicateFormatter.format(expression)): \(failure.problem)", entityName: entity)
        }
    }

    private func validate(_ predicate: FetchPredicate, entity: String?, variables: [String: Kind]) throws {
        switch predicate {
        case .truePredicate, .falsePredicate: return
        case .and(let parts), .or(let parts):
            for part in parts { try validate(part, entity: entity, variables: variables) }
        case .not(let inner): try validate(inner, entity: entity, variables: variables)
        case .comparison(let c):
            do {
                try validate(c, entity: entity, variables: variables)
            } catch let failure as Failure {
                throw error(failure, in: c)
            }
        }
    }

    private func error(_ failure: Failure, in c: ComparisonPredicate) -> StoreError {
        let offset: Int?
        switch failure.side {
        case .lhs: offset = c.location.lhsOffset
        case .rhs: offset = c.location.rhsOffset
        case .op: offset = c.location.operatorOffset
        }
        if let offset, !c.location.source.isEmpty {
            return StoreError.invalidPredicate(failure.problem, format: c.location.source, at: offset)
        }
        return StoreError(.coreData, "Invalid predicate: \(failure.problem) in \(PredicateFormatter.format(c))")
    }

    private func validate(_ c: ComparisonPredicate, entity: String?, variables: [String: Kind]) throws {
        let lhs = try kind(of: c.lhs, entity: entity, variables: variables, side: .lhs)
        let rhs = try kind(of: c.rhs, entity: entity, variables: variables, side: .rhs)
        let left = lhs.element
        if c.op.isStringOperator || (c.op == .contains && !isCollection(lhs)) {
            if case .scalar(let type?) = left, type != .string {
                throw Failure(problem: "\(c.op.rawValue) applies to strings, but \(PredicateFormatter.format(c.lhs)) is \(name(of: type))", side: .op)
            }
            if case .object(let entityName) = left, c.op != .contains {
                throw Failure(problem: "\(c.op.rawValue) applies to strings, but \(PredicateFormatter.format(c.lhs)) is a \(entityName) object", side: .op)
            }
        }
        if c.op.isOrdering {
            for (side, value) in [(Side.lhs, left), (Side.rhs, c.op == .between ? Kind.unknown : rhs.element)] {
                if case .object(let entityName) = value {
                    throw Failure(problem: "\(c.op.rawValue) cannot order \(entityName) objects", side: side)
                }
            }
        }
        if c.op == .between, case .constant = c.rhs {
            throw Failure(problem: "BETWEEN needs two bounds {low, high}", side: .rhs)
        }
    }

    private func isCollection(_ kind: Kind) -> Bool {
        if case .collection = kind { return true }
        return false
    }

    private func name(of type: AttributeType) -> String {
        switch type {
        case .integer16: return "an Integer 16"
        case .integer32: return "an Integer 32"
        case .integer64: return "an Integer 64"
        case .decimal: return "a Decimal"
        case .double: return "a Double"
        case .float: return "a Float"
        case .string: return "a String"
        case .boolean: return "a Boolean"
        case .date: return "a Date"
        case .binaryData: return "Binary Data"
        case .uuid: return "a UUID"
        case .uri: return "a URI"
        case .transformable: return "a Transformable"
        case .objectID: return "an Object ID"
        }
    }

    private func kind(of expression: FetchExpression, entity: String?, variables: [String: Kind], side: Side) throws -> Kind {
        switch expression {
        case .constant(let value):
            switch value {
            case .string: return .scalar(.string)
            case .int: return .scalar(.integer64)
            case .double: return .scalar(.double)
            case .decimal: return .scalar(.decimal)
            case .bool: return .scalar(.boolean)
            case .date: return .scalar(.date)
            case .objectID(let id): return .object(entity: id.entityName)
            default: return .scalar(nil)
            }
        case .collection(let items):
            for item in items { _ = try kind(of: item, entity: entity, variables: variables, side: side) }
            return .collection(.unknown)
        case .evaluatedObject:
            return entity.map { .object(entity: $0) } ?? .unknown
        case .now:
            return .scalar(.date)
        case .variable(let name):
            guard let bound = variables[name] else {
                throw Failure(problem: "the variable $\(name) has no value (substitute it first)", side: side)
            }
            return bound
        case .keyPath(let base, let components):
            let start = try kind(of: base, entity: entity, variables: variables, side: side)
            return try follow(components[...], from: start, side: side, path: components)
        case .subquery(let collection, let variable, let predicate):
            let source = try kind(of: collection, entity: entity, variables: variables, side: side)
            let element = source.element
            var inner = variables
            inner[variable] = element
            var elementEntity: String?
            if case .object(let name) = element { elementEntity = name }
            try validate(predicate, entity: elementEntity, variables: inner)
            return .collection(element)
        case .arithmetic(_, let lhs, let rhs):
            for operand in [lhs, rhs] {
                let k = try kind(of: operand, entity: entity, variables: variables, side: side)
                switch k {
                case .object, .collection:
                    throw Failure(problem: "arithmetic needs numbers or dates, but \(PredicateFormatter.format(operand)) is not one", side: side)
                case .scalar(let type?) where !(type.isNumeric || type == .date || type == .boolean):
                    throw Failure(problem: "arithmetic needs numbers or dates, but \(PredicateFormatter.format(operand)) is \(name(of: type))", side: side)
                default: break
                }
            }
            return .scalar(nil)
        }
    }

    private func follow(
        _ components: ArraySlice<FetchExpression.KeyPathComponent>, from start: Kind, side: Side,
        path: [FetchExpression.KeyPathComponent]
    ) throws -> Kind {
        guard let first = components.first else { return start }
        let rest = components.dropFirst()
        switch first {
        case .key(let key):
            return try follow(rest, from: try step(key, from: start, side: side, path: path), side: side, path: path)
        case .collectionOperator(let op):
            let result = try follow(rest, from: start.element, side: side, path: path)
            if op == .count { return .scalar(.integer64) }
            if case .scalar(let type) = result.element { return .scalar(op == .avg ? nil : type) }
            if case .object = result.element {
                throw Failure(
                    problem: "@\(op.rawValue) needs values, but \(FetchExpression.KeyPathComponent.string(of: path)) gives objects",
                    side: side)
            }
            return .scalar(nil)
        }
    }

    private func step(_ key: String, from kind: Kind, side: Side, path: [FetchExpression.KeyPathComponent]) throws -> Kind {
        switch kind {
        case .unknown: return .unknown
        case .collection(let inner):
            let next = try step(key, from: inner, side: side, path: path)
            if case .collection = next { return next }
            return .collection(next)
        case .scalar(let type):
            guard let type, type != .objectID, type != .transformable else { return .unknown }
            throw Failure(
                problem: "\(FetchExpression.KeyPathComponent.string(of: path)) goes through \"\(key)\" of \(name(of: type)) value, which has no keys",
                side: side)
        case .object(let entity):
            if let attribute = model.attribute(key, of: entity) { return .scalar(attribute.type) }
            if let relationship = model.relationship(key, of: entity) {
                let destination = Kind.object(entity: relationship.destinationEntityName)
                return relationship.isToMany ? .collection(destination) : destination
            }
            throw Failure(problem: "entity \(entity) has no property \"\(key)\"", side: side)
        }
    }
}

extension FetchPredicate {
    /// Checks the predicate against a model for a fetch of `entityName`: every key path names
    /// properties of the entities it passes through, string operators apply to strings, ordering
    /// operators do not apply to objects, and every `$variable` has a value.
    ///
    /// - Throws: a ``StoreError`` (134060) pointing at the offending comparison side in the
    ///   format string (``StoreError/position``).
    public func validate(forEntityNamed entityName: String, in model: ObjectModel) throws {
        guard model.entity(named: entityName) != nil else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        try PredicateValidator(model: model).validate(self, entity: entityName)
    }
}

extension FetchExpression {
    /// Checks the expression against a model (as ``FetchPredicate/validate(forEntityNamed:in:)``
    /// does) and returns what it yields when it is an attribute: its type, or nil when unknown.
    /// Throws for an unknown key path or a `$variable` without a value.
    @discardableResult
    public func validate(forEntityNamed entityName: String, in model: ObjectModel) throws -> AttributeType? {
        guard model.entity(named: entityName) != nil else {
            throw StoreError(.coreData, "The model has no entity named \(entityName)", entityName: entityName)
        }
        if case .scalar(let type) = try PredicateValidator(model: model).resultKind(of: self, entity: entityName) {
            return type
        }
        return nil
    }
}
