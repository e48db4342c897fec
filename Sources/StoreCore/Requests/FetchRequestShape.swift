import Foundation

/// What a fetch request's validation and routing depend on: the request with the values of its
/// predicate's constants left out. Two requests that differ only in the constants they compare
/// with (`email == "a@x"` and `email == "b@x"`) have equal shapes; the kind of each constant
/// (string, integer, date, …, and an object ID's entity) still counts, because validation looks
/// at it. A collection of constants counts as one constant collection whatever its items, since
/// validation accepts any.
///
/// The coordinator keys its compiled requests by shape (``PersistentStoreCoordinator``), and the
/// InMemory store its index plans. Build a shape only for requests that pass ``isCompact``: the
/// shape hashes the whole predicate, so a large one costs as much to hash as to validate.
package struct FetchRequestShape: Hashable, Sendable {
    /// The request (as given for a lookup; with placeholder constants once stored, see
    /// ``stored()``).
    package let request: FetchRequest

    /// The shape of `request`.
    package init(_ request: FetchRequest) {
        self.request = request
    }

    /// The most predicate nodes (comparisons, expressions, constants, collection items) a
    /// request may have to be cached by shape.
    package static let compactLimit = 64

    /// Whether the request is small enough to cache by shape (``compactLimit``).
    package static func isCompact(_ request: FetchRequest) -> Bool {
        guard let predicate = request.predicate else { return true }
        var budget = compactLimit
        return predicate.fits(in: &budget)
    }

    /// The shape to keep in a cache: the same shape over a copy of the request whose constants
    /// are placeholders of the same kinds, so a cache never keeps the caller's values (a string,
    /// a blob) alive.
    package func stored() -> FetchRequestShape {
        var copy = request
        copy.predicate = request.predicate?.replacingExpressions { expression in
            switch expression {
            case .constant(let value): return .constant(Self.placeholder(of: value))
            case .collection(let items) where items.allSatisfy(\.isConstantValue): return .collection([])
            default: return nil
            }
        }
        return FetchRequestShape(copy)
    }

    private static func placeholder(of value: StoreValue) -> StoreValue {
        switch value {
        case .null, .objectID: return value
        case .bool: return .bool(false)
        case .int: return .int(0)
        case .double: return .double(0)
        case .decimal: return .decimal(0)
        case .string: return .string("")
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 0))
        case .data: return .data(Data())
        case .uuid: return .uuid(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        // A URL cannot be made without text; its value is ignored by `==` and hashing anyway.
        case .uri: return value
        }
    }

    package static func == (lhs: FetchRequestShape, rhs: FetchRequestShape) -> Bool {
        let (a, b) = (lhs.request, rhs.request)
        guard a.entityName == b.entityName, a.resultType == b.resultType, a.fetchLimit == b.fetchLimit,
            a.fetchOffset == b.fetchOffset, a.fetchBatchSize == b.fetchBatchSize,
            a.includesSubentities == b.includesSubentities, a.includesPendingChanges == b.includesPendingChanges,
            a.returnsObjectsAsFaults == b.returnsObjectsAsFaults, a.returnsDistinctResults == b.returnsDistinctResults,
            a.sortKeys == b.sortKeys, a.relationshipKeyPathsForPrefetching == b.relationshipKeyPathsForPrefetching,
            a.affectedStoreIdentifiers == b.affectedStoreIdentifiers, a.propertiesToFetch == b.propertiesToFetch,
            a.propertiesToGroupBy == b.propertiesToGroupBy
        else { return false }
        switch (a.predicate, b.predicate) {
        case (nil, nil): return true
        case (let p?, let q?): return p.hasShape(of: q)
        default: return false
        }
    }

    package func hash(into hasher: inout Hasher) {
        let r = request
        hasher.combine(r.entityName)
        hasher.combine(r.resultType)
        hasher.combine(r.fetchLimit)
        hasher.combine(r.fetchOffset)
        hasher.combine(r.includesSubentities)
        hasher.combine(r.sortKeys.count)
        for key in r.sortKeys { hasher.combine(key) }
        if !r.propertiesToFetch.isEmpty { hasher.combine(r.propertiesToFetch) }
        if !r.propertiesToGroupBy.isEmpty { hasher.combine(r.propertiesToGroupBy) }
        if let stores = r.affectedStoreIdentifiers { hasher.combine(stores) }
        // The other flags are compared by `==`; they rarely tell shapes apart.
        if let predicate = r.predicate {
            predicate.hashShape(into: &hasher)
        } else {
            hasher.combine(0 as UInt8)
        }
    }
}

extension FetchPredicate {
    /// Whether the predicate has at most `budget` nodes (the budget is used up as they are counted).
    fileprivate func fits(in budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        switch self {
        case .truePredicate, .falsePredicate: return true
        case .comparison(let c): return c.lhs.fits(in: &budget) && c.rhs.fits(in: &budget)
        case .and(let parts), .or(let parts):
            for part in parts where !part.fits(in: &budget) { return false }
            return true
        case .not(let inner): return inner.fits(in: &budget)
        }
    }

    fileprivate func hashShape(into hasher: inout Hasher) {
        switch self {
        case .truePredicate: hasher.combine(1 as UInt8)
        case .falsePredicate: hasher.combine(2 as UInt8)
        case .comparison(let c):
            hasher.combine(3 as UInt8)
            hasher.combine(c.op)
            hasher.combine(c.options)
            hasher.combine(c.modifier)
            c.lhs.hashShape(into: &hasher)
            c.rhs.hashShape(into: &hasher)
        case .and(let parts), .or(let parts):
            if case .and = self { hasher.combine(4 as UInt8) } else { hasher.combine(5 as UInt8) }
            hasher.combine(parts.count)
            for part in parts { part.hashShape(into: &hasher) }
        case .not(let inner):
            hasher.combine(6 as UInt8)
            inner.hashShape(into: &hasher)
        }
    }

    /// Equal but for the values of constants (see ``FetchRequestShape``).
    fileprivate func hasShape(of other: FetchPredicate) -> Bool {
        switch (self, other) {
        case (.truePredicate, .truePredicate), (.falsePredicate, .falsePredicate): return true
        case (.comparison(let a), .comparison(let b)):
            return a.op == b.op && a.options == b.options && a.modifier == b.modifier && a.lhs.hasShape(of: b.lhs)
                && a.rhs.hasShape(of: b.rhs)
        case (.and(let a), .and(let b)), (.or(let a), .or(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasShape(of: $1) }
        case (.not(let a), .not(let b)): return a.hasShape(of: b)
        default: return false
        }
    }
}

extension FetchExpression {
    fileprivate var isConstantValue: Bool {
        if case .constant = self { return true }
        return false
    }

    fileprivate func fits(in budget: inout Int) -> Bool {
        budget -= 1
        guard budget >= 0 else { return false }
        switch self {
        case .constant, .evaluatedObject, .variable, .now: return true
        case .collection(let items):
            for item in items where !item.fits(in: &budget) { return false }
            return true
        case .keyPath(let base, let components):
            budget -= components.count
            return budget >= 0 && base.fits(in: &budget)
        case .subquery(let collection, _, let predicate): return collection.fits(in: &budget) && predicate.fits(in: &budget)
        case .arithmetic(_, let lhs, let rhs): return lhs.fits(in: &budget) && rhs.fits(in: &budget)
        }
    }

    /// The kind of a constant as validation sees it: its case, and an object ID's entity.
    private static func constantKind(_ value: StoreValue) -> Int {
        switch value {
        case .null: return 0
        case .bool: return 1
        case .int: return 2
        case .double: return 3
        case .decimal: return 4
        case .string: return 5
        case .date: return 6
        case .data: return 7
        case .uuid: return 8
        case .uri: return 9
        case .objectID: return 10
        }
    }

    private static func sameKind(_ a: StoreValue, _ b: StoreValue) -> Bool {
        if case .objectID(let x) = a, case .objectID(let y) = b { return x.entityNumber == y.entityNumber }
        return constantKind(a) == constantKind(b)
    }

    fileprivate func hashShape(into hasher: inout Hasher) {
        switch self {
        case .constant(let value):
            hasher.combine(1 as UInt8)
            hasher.combine(Self.constantKind(value))
            if case .objectID(let id) = value { hasher.combine(id.entityNumber) }
        case .collection(let items):
            if items.allSatisfy(\.isConstantValue) {
                hasher.combine(2 as UInt8)
            } else {
                hasher.combine(3 as UInt8)
                hasher.combine(items.count)
                for item in items { item.hashShape(into: &hasher) }
            }
        case .evaluatedObject: hasher.combine(4 as UInt8)
        case .variable(let name):
            hasher.combine(5 as UInt8)
            hasher.combine(name)
        case .keyPath(let base, let components):
            hasher.combine(6 as UInt8)
            base.hashShape(into: &hasher)
            hasher.combine(components.count)
            for component in components { hasher.combine(component) }
        case .subquery(let collection, let variable, let predicate):
            hasher.combine(7 as UInt8)
            collection.hashShape(into: &hasher)
            hasher.combine(variable)
            predicate.hashShape(into: &hasher)
        case .arithmetic(let op, let lhs, let rhs):
            hasher.combine(8 as UInt8)
            hasher.combine(op)
            lhs.hashShape(into: &hasher)
            rhs.hashShape(into: &hasher)
        case .now: hasher.combine(9 as UInt8)
        }
    }

    fileprivate func hasShape(of other: FetchExpression) -> Bool {
        switch (self, other) {
        case (.constant(let a), .constant(let b)): return Self.sameKind(a, b)
        case (.collection(let a), .collection(let b)):
            let (constantA, constantB) = (a.allSatisfy(\.isConstantValue), b.allSatisfy(\.isConstantValue))
            if constantA || constantB { return constantA && constantB }
            return a.count == b.count && zip(a, b).allSatisfy { $0.hasShape(of: $1) }
        case (.evaluatedObject, .evaluatedObject), (.now, .now): return true
        case (.variable(let a), .variable(let b)): return a == b
        case (.keyPath(let baseA, let a), .keyPath(let baseB, let b)): return a == b && baseA.hasShape(of: baseB)
        case (.subquery(let ca, let va, let pa), .subquery(let cb, let vb, let pb)):
            return va == vb && ca.hasShape(of: cb) && pa.hasShape(of: pb)
        case (.arithmetic(let oa, let la, let ra), .arithmetic(let ob, let lb, let rb)):
            return oa == ob && la.hasShape(of: lb) && ra.hasShape(of: rb)
        default: return false
        }
    }
}

extension FetchPredicate {
    /// Whether the predicate reads the clock (`now()`), so that what it compiles to holds only
    /// for the instant it was compiled at.
    package var mentionsNow: Bool {
        switch self {
        case .truePredicate, .falsePredicate: return false
        case .comparison(let c): return c.lhs.mentionsNow || c.rhs.mentionsNow
        case .and(let parts), .or(let parts): return parts.contains { $0.mentionsNow }
        case .not(let inner): return inner.mentionsNow
        }
    }
}

extension FetchExpression {
    /// Whether the expression reads the clock (`now()`).
    package var mentionsNow: Bool {
        switch self {
        case .now: return true
        case .constant, .evaluatedObject, .variable: return false
        case .collection(let items): return items.contains { $0.mentionsNow }
        case .keyPath(let base, _): return base.mentionsNow
        case .subquery(let collection, _, let predicate): return collection.mentionsNow || predicate.mentionsNow
        case .arithmetic(_, let lhs, let rhs): return lhs.mentionsNow || rhs.mentionsNow
        }
    }
}
