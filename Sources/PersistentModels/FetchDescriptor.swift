import Foundation

/// What ``ModelContext/fetch(_:)`` fetches (SwiftData's `FetchDescriptor`): the objects of a
/// `@Model` class that match a Foundation `Predicate`, sorted by Foundation's
/// `SortDescriptor`s over its properties, windowed by offset and limit.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(
///     predicate: #Predicate { $0.name.starts(with: "L") },
///     sortBy: [SortDescriptor(\.start, order: .reverse)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
///
/// The predicate is translated into the framework's predicate and the sort descriptors into
/// its sort keys (by the property names the macro recorded), so both run in the store (in SQL
/// on SQLite and PostgreSQL). A predicate expression without an equivalent, a key path that is
/// not a persisted property of the class, and a string comparator other than the default or
/// `.lexical`, fail at fetch with a `StoreError` naming it. docs/swift-models.md lists the
/// translated expressions.
public struct FetchDescriptor<T: PersistentModel> {
    /// Which objects to fetch; nil for all.
    public var predicate: Predicate<T>?
    /// The sort order, first descriptor first.
    public var sortBy: [SortDescriptor<T>]
    /// The most objects to fetch; nil for all.
    public var fetchLimit: Int?
    /// How many matching objects to skip; nil for none.
    public var fetchOffset: Int?
    /// Whether the context's unsaved changes count (default: true).
    public var includePendingChanges: Bool
    /// The properties to read (a hint: objects are read whole; the key paths must be
    /// persisted properties of `T`).
    public var propertiesToFetch: [PartialKeyPath<T>]
    /// The relationships whose destinations are fetched with the objects.
    public var relationshipKeyPathsForPrefetching: [PartialKeyPath<T>]

    /// A descriptor fetching the objects of `T` that `predicate` matches (all when nil), in
    /// `sortBy`'s order.
    public init(predicate: Predicate<T>? = nil, sortBy: [SortDescriptor<T>] = []) {
        self.predicate = predicate
        self.sortBy = sortBy
        self.propertiesToFetch = []
        self.relationshipKeyPathsForPrefetching = []
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
    }

    /// The framework's fetch request for the descriptor: the predicate translated into a
    /// `FetchPredicate`, the key paths into property names.
    ///
    /// - Throws: a `StoreError` (134060) naming a predicate expression without an equivalent,
    ///   a key path that is not a persisted property, or a negative limit or offset.
    public func fetchRequest() throws -> FetchRequest {
        let schema = T.persistentEntitySchema
        var request = FetchRequest(entityName: schema.entityName)
        if let predicate { request.predicate = try PredicateTranslator.fetchPredicate(for: predicate) }
        request.propertiesToFetch = try propertyNames(propertiesToFetch, role: "propertiesToFetch").map { .property($0) }
        request.relationshipKeyPathsForPrefetching = try propertyNames(
            relationshipKeyPathsForPrefetching, role: "relationshipKeyPathsForPrefetching")
        request.sortKeys = try sortBy.map { descriptor in
            guard let keyPath = descriptor.keyPath, let name = T.persistentPropertyName(for: keyPath) else {
                throw StoreError(
                    .coreData,
                    "FetchDescriptor<\(schema.className)> sorts by \(descriptor.keyPath.map { "\($0)" } ?? "a comparator without a key path"), "
                        + "which is not a persisted property of \(schema.className)",
                    entityName: schema.entityName)
            }
            if let comparator = descriptor.stringComparator {
                var lexical = String.StandardComparator.lexical
                lexical.order = comparator.order
                guard comparator == lexical else {
                    throw StoreError(
                        .coreData,
                        "FetchDescriptor<\(schema.className)> sorts \(name) with the string comparator \(comparator); "
                            + "only the default and .lexical comparisons run in the store",
                        entityName: schema.entityName, propertyName: name)
                }
            }
            return SortKey(name, ascending: descriptor.order == .forward)
        }
        if let fetchLimit {
            guard fetchLimit >= 0 else {
                throw StoreError(.coreData, "FetchDescriptor<\(schema.className)> has a negative fetchLimit \(fetchLimit)", entityName: schema.entityName)
            }
            request.fetchLimit = fetchLimit
        }
        if let fetchOffset {
            guard fetchOffset >= 0 else {
                throw StoreError(.coreData, "FetchDescriptor<\(schema.className)> has a negative fetchOffset \(fetchOffset)", entityName: schema.entityName)
            }
            request.fetchOffset = fetchOffset
        }
        request.includesPendingChanges = includePendingChanges
        return request
    }

    /// The property names of key paths of `T`.
    private func propertyNames(_ keyPaths: [PartialKeyPath<T>], role: String) throws -> [String] {
        let schema = T.persistentEntitySchema
        return try keyPaths.map { keyPath in
            guard let name = T.persistentPropertyName(for: keyPath) else {
                throw StoreError(
                    .coreData,
                    "FetchDescriptor<\(schema.className)>.\(role) names \(keyPath), which is not a persisted property of \(schema.className)",
                    entityName: schema.entityName)
            }
            return name
        }
    }
}
