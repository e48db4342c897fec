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
        // Compared in place (copying both requests first cost a retain and a release of each of
        // their references per comparison).
        guard lhs.request.entityName == rhs.request.entityName, lhs.request.resultType == rhs.request.resultType,
            lhs.request.fetchLimit == rhs.request.fetchLimit, lhs.request.fetchOffset == rhs.request.fetchOffset,
            lhs.request.fetchBatchSize == rhs.request.fetchBatchSize,
            lhs.request.includesSubentities == rhs.request.includesSubentities,
            lhs.request.includesPendingChanges == rhs.request.includesPendingChanges,
            lhs.request.returnsObjectsAsFaults == rhs.request.returnsObjectsAsFaults,
            lhs.request.returnsDistinctResults == rhs.request.returnsDistinctResults,
            lhs.request.sortKeys == rhs.request.sortKeys,
            lhs.request.relationshipKeyPathsForPrefetching == rhs.request.relationshipKeyPathsForPrefetching,
            lhs.request.affectedStoreIdentifiers == rhs.request.affectedStoreIdentifiers,
            lhs.request.propertiesToFetch == rhs.request.propertiesToFetch,
            lhs.request.propertiesToGroupBy == rhs.request.propertiesToGroupBy
        else { return false }
        switch (lhs.request.predicate, rhs.request.predicate) {
        case (nil, nil): return true
        case (let p?, let q?): return p.hasShape(of: q)
        default: return false
        }
    }

    /// Hashes the entity, the window, the numbers of sort keys and properties, and the
    /// predicate's structure, mixed into one word that the hasher takes once. The flags, the
    /// sort keys and properties themselves are left to ``==``: they rarely tell the shapes of
    /// one program apart. Names are mixed by their length and first bytes, without hashing
    /// their text. For a one-comparison lookup that is about 1,200 instructions instead of
    /// about 1,800 (most of them now reading the names' bytes).
    package func hash(into hasher: inout Hasher) {
        var mixer = ShapeMixer()
        mixer.mix(request.entityName)
        mixer.mix(request.fetchLimit)
        mixer.mix(request.fetchOffset)
        mixer.mix(request.sortKeys.count &+ request.propertiesToFetch.count << 16)
        if let predicate = request.predicate {
            predicate.mixShape(into: &mixer)
        } else {
            mixer.mix(0)
        }
        hasher.combine(mixer.state)
    }
}

/// A cheap running hash of a request's shape (FNV-1a over words): enough to spread the shapes
/// a coordinator or store keeps, not to resist crafted collisions (the cache is bounded and
/// `==` decides).
private struct ShapeMixer {
    private(set) var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    mutating func mix(_ word: UInt64) {
        state = (state ^ word) &* 0x0000_0100_0000_01b3
    }

    @inline(__always)
    mutating func mix(_ value: Int) { mix(UInt64(bitPattern: Int64(value))) }

    /// A name by its length in bytes and its first seven bytes.
    mutating func mix(_ text: String) {
        let utf8 = text.utf8
        var word = UInt64(truncatingIfNeeded: utf8.count)
        var shift: UInt64 = 8
        for byte in utf8 {
            word |= UInt64(byte) << shift
            shift += 8
            if shift == 64 { break }
        }
        mix(word)
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

    fileprivate func mixShape(into mixer: inout ShapeMixer) {
        switch self {
        case .truePredicate: mixer.mix(1)
        case .falsePredicate: mixer.mix(2)
        case .comparison(let c):
            // Operators and modifiers by their (short, distinct) raw texts.
            mixer.mix(3 &+ c.options.rawValue << 8)
            mixer.mix(c.op.rawValue)
            mixer.mix(c.modifier.rawValue)
            c.lhs.mixShape(into: &mixer)
            c.rhs.mixShape(into: &mixer)
        case .and(let parts), .or(let parts):
            if case .and = self { mixer.mix(4 &+ parts.count << 8) } else { mixer.mix(5 &+ parts.count << 8) }
            for part in parts { part.mixShape(into: &mixer) }
        case .not(let inner):
            mixer.mix(6)
            inner.mixShape(into: &mixer)
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

    fileprivate func mixShape(into mixer: inout ShapeMixer) {
        switch self {
        case .constant(let value):
            if case .objectID(let id) = value {
                mixer.mix(1 &+ Self.constantKind(value) << 8 &+ id.entityNumber << 16)
            } else {
                mixer.mix(1 &+ Self.constantKind(value) << 8)
            }
        case .collection(let items):
            if items.allSatisfy(\.isConstantValue) {
                mixer.mix(2)
            } else {
                mixer.mix(3 &+ items.count << 8)
                for item in items { item.mixShape(into: &mixer) }
            }
        case .evaluatedObject: mixer.mix(4)
        case .variable(let name):
            mixer.mix(5)
            mixer.mix(name)
        case .keyPath(let base, let components):
            mixer.mix(6 &+ components.count << 8)
            base.mixShape(into: &mixer)
            for component in components {
                switch component {
                case .key(let key): mixer.mix(key)
                case .collectionOperator(let op): mixer.mix(op.rawValue)
                }
            }
        case .subquery(let collection, let variable, let predicate):
            mixer.mix(7)
            collection.mixShape(into: &mixer)
            mixer.mix(variable)
            predicate.mixShape(into: &mixer)
        case .arithmetic(let op, let lhs, let rhs):
            mixer.mix(8)
            mixer.mix(op.rawValue)
            lhs.mixShape(into: &mixer)
            rhs.mixShape(into: &mixer)
        case .now: mixer.mix(9)
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
