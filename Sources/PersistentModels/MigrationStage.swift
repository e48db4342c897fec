/// One step of a ``SchemaMigrationPlan`` (SwiftData's `MigrationStage`).
///
/// - `lightweight`: the store is migrated with the mapping inferred between the two versions
///   (renames through `originalName:`, added optional or defaulted attributes, …;
///   docs/migration.md lists what is inferred).
/// - `custom`: `willMigrate` runs on a ``ModelContext`` over the store opened with the old
///   version's classes (fix what the inferred mapping cannot take: remove duplicates before a
///   property becomes unique, fill a value that becomes required) and its changes are saved;
///   the store is then migrated as in `lightweight`; then `didMigrate` runs with the new
///   version's classes (fill new properties from old ones) and its changes are saved.
///
/// ```swift
/// static let v1ToV2 = MigrationStage.custom(fromVersion: TripsV1.self, toVersion: TripsV2.self,
///     willMigrate: { context in
///         for trip in try context.fetch(FetchDescriptor<TripsV1.Trip>()) where trip.name.isEmpty {
///             context.delete(trip)
///         }
///         try context.save()
///     }, didMigrate: nil)
/// ```
public enum MigrationStage: Sendable {
    /// The inferred migration from one version to the next.
    case lightweight(fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type)
    /// Code before and after the inferred migration from one version to the next.
    case custom(
        fromVersion: any VersionedSchema.Type, toVersion: any VersionedSchema.Type,
        willMigrate: (@Sendable (ModelContext) throws -> Void)?, didMigrate: (@Sendable (ModelContext) throws -> Void)?)

    /// The version the stage starts from.
    public var fromVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(let from, _), .custom(let from, _, _, _): return from
        }
    }

    /// The version the stage ends at.
    public var toVersion: any VersionedSchema.Type {
        switch self {
        case .lightweight(_, let to), .custom(_, let to, _, _): return to
        }
    }
}
