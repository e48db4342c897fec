/// How a store moves from any earlier version of an application's models to the current one
/// (SwiftData's `SchemaMigrationPlan`): the versions, oldest first, and a stage from each
/// version to the next.
///
/// ```swift
/// enum TripsMigrationPlan: SchemaMigrationPlan {
///     static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self] }
///     static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV2.self)] }
/// }
/// let container = try ModelContainer(for: TripsV2.Trip.self, migrationPlan: TripsMigrationPlan.self,
///                                    configurations: ModelConfiguration(url: storeURL))
/// ```
///
/// When a ``ModelContainer`` opens a store with a plan, the version that wrote the store is
/// found by its entities' version hashes; then the stages run from that version on, one after
/// the other, each written to the store before the next starts (docs/swift-models.md,
/// "Versioned schemas"). A store written with a version the plan does not list is refused
/// (134130), as in Core Data, and nothing is written.
public protocol SchemaMigrationPlan: SendableMetatype {
    /// Every version, oldest first.
    static var schemas: [any VersionedSchema.Type] { get }
    /// The stages between consecutive versions.
    static var stages: [MigrationStage] { get }
}
