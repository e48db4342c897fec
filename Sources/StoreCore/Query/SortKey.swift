import Foundation

/// One key of a fetch's sort order (Core Data's `NSSortDescriptor`): a key path — an attribute,
/// or through to-one relationships like `team.name` — a direction and a string comparison.
///
/// ```swift
/// request.sortKeys = [SortKey("team.name"), SortKey("age", ascending: false),
///                     SortKey("name", comparison: .caseInsensitive)]
/// ```
///
/// Nil sorts first ascending (last descending); numbers compare numerically across integer,
/// floating-point and decimal values; strings by Unicode scalars unless a folding comparison is
/// chosen; dates as instants; objects (a to-one key path) by their ID's URI. Objects that compare
/// equal on every key keep the order the store gave them.
public struct SortKey: Sendable, Hashable, Codable {
    /// The key path to sort by (`"name"`, `"team.name"`).
    public var keyPath: String
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// How strings compare.
    public var comparison: Comparison

    /// How a sort key compares strings.
    public enum Comparison: String, Sendable, Hashable, Codable, CaseIterable {
        /// By Unicode scalars (`"B" < "a"`), the default.
        case binary
        /// Case-insensitively: both strings folded as `[c]` folds them, then by Unicode scalars
        /// (Core Data's `caseInsensitiveCompare:`).
        case caseInsensitive
        /// Case- and diacritic-insensitively (`[cd]` folding).
        case caseDiacriticInsensitive
        /// Localized order, locale-independent so that every store agrees: `[cd]`-folded first
        /// (`é` next to `e`, case ignored), ties by Unicode scalars (Core Data's
        /// `localizedCompare:`, approximated).
        case localized
        /// Like ``localized`` without the tie-break, so strings equal under folding stay in
        /// store order (Core Data's `localizedCaseInsensitiveCompare:`).
        case localizedCaseInsensitive
    }

    /// Creates a sort key.
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
    }

    /// The key path as an expression.
    public var expression: FetchExpression { .keyPath(keyPath) }

    /// The order of two values under this key, direction included.
    public func compare(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        let result = comparison.compare(a, b)
        guard !ascending else { return result }
        switch result {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Checks the key path against a model for a fetch of `entityName`: it must exist and must
    /// not pass through a to-many relationship.
    public func validate(forEntityNamed entityName: String, in model: ObjectModel) throws {
        let kind = try PredicateValidator(model: model).resultKind(of: expression, entity: entityName)
        if case .collection = kind {
            throw StoreError(
                .coreData, "The sort key \(keyPath) passes through a to-many relationship; sort by a to-one key path or a collection operator",
                entityName: entityName)
        }
    }

    /// Sorts `items` by `keys` in memory, stably. `evaluable` gives the object the key paths are
    /// read from (a ``GraphNode`` for a node, the object itself for a managed object).
    ///
    /// - Throws: a ``StoreError`` when a key path gives a collection.
    public static func sort<Item>(
        _ items: [Item], by keys: [SortKey], evaluator: PredicateEvaluator = PredicateEvaluator(),
        evaluable: (Item) -> any PredicateEvaluable
    ) throws -> [Item] {
        guard !keys.isEmpty, items.count > 1 else { return items }
        let expressions = keys.map(\.expression)
        var rows: [(values: [StoreValue], position: Int)] = []
        rows.reserveCapacity(items.count)
        for (position, item) in items.enumerated() {
            let object = evaluable(item)
            rows.append((try expressions.map { try evaluator.value(of: $0, with: object) }, position))
        }
        rows.sort { lhs, rhs in
            for (index, key) in keys.enumerated() {
                switch key.compare(lhs.values[index], rhs.values[index]) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return lhs.position < rhs.position
        }
        return rows.map { items[$0.position] }
    }
}

extension SortKey.Comparison {
    /// The ascending order of two values under this comparison. Stores that sort themselves
    /// (SQL collations) call this so that they agree with the in-memory sort.
    public func compare(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        guard case .string(let x) = a, case .string(let y) = b else { return Self.compareValues(a, b) }
        switch self {
        case .binary:
            return StoreValue.compareScalars(x, y)
        case .caseInsensitive:
            return StoreValue.compareScalars(ComparisonPredicate.Options.caseInsensitive.fold(x), ComparisonPredicate.Options.caseInsensitive.fold(y))
        case .caseDiacriticInsensitive, .localizedCaseInsensitive:
            let options: ComparisonPredicate.Options = [.caseInsensitive, .diacriticInsensitive]
            return StoreValue.compareScalars(options.fold(x), options.fold(y))
        case .localized:
            let options: ComparisonPredicate.Options = [.caseInsensitive, .diacriticInsensitive]
            let folded = StoreValue.compareScalars(options.fold(x), options.fold(y))
            return folded != .orderedSame ? folded : StoreValue.compareScalars(x, y)
        }
    }

    /// Non-string order: nil first, numbers and booleans numerically, then the total order of
    /// ``StoreValue/compare(_:_:)``.
    private static func compareValues(_ a: StoreValue, _ b: StoreValue) -> ComparisonResult {
        if let ordered = PredicateEvaluator.orderValues(a, b) { return ordered }
        return StoreValue.compare(a, b)
    }
}
