import Foundation

/// What ``ModelContext/fetch(_:)`` fetches (SwiftData's `FetchDescriptor`): the objects of a
/// `@Model` class, sorted by Foundation's `SortDescriptor`s over its properties, windowed by
/// offset and limit.
///
/// ```swift
/// var descriptor = FetchDescriptor<Trip>(sortBy: [SortDescriptor(\.start, order: .reverse)])
/// descriptor.fetchLimit = 10
/// let trips = try context.fetch(descriptor)
/// ```
///
/// Sort descriptors are translated into the framework's sort keys by the property names the
/// macro recorded, so they sort in the store (in SQL on SQLite). A key path that is not a
/// persisted property of the class, and a string comparator other than the default or
/// `.lexical`, fail at fetch with a `StoreError` naming it. Predicates are not supported yet.
public struct FetchDescriptor<T: PersistentModel> {
    /// The sort order, first descriptor first.
    public var sortBy: [SortDescriptor<T>]
    /// The most objects to fetch; nil for all.
    public var fetchLimit: Int?
    /// How many matching objects to skip; nil for none.
    public var fetchOffset: Int?
    /// Whether the context's unsaved changes count (default: true).
    public var includePendingChanges: Bool

    /// A descriptor fetching every object of `T` in `sortBy`'s order.
    public init(sortBy: [SortDescriptor<T>] = []) {
        self.sortBy = sortBy
        self.fetchLimit = nil
        self.fetchOffset = nil
        self.includePendingChanges = true
    }

    /// The framework's fetch request for the descriptor.
    public func fetchRequest() throws -> FetchRequest {
        let schema = T.persistentEntitySchema
        var request = FetchRequest(entityName: schema.entityName)
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
}
