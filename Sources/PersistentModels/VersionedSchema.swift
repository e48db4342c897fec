/// One version of an application's models (SwiftData's `VersionedSchema`): usually an `enum`
/// that nests that version's `@Model` classes, so every version's `Trip` can be named
/// (`TripsV1.Trip`, `TripsV2.Trip`) while each keeps the entity name `Trip`.
///
/// ```swift
/// enum TripsV1: VersionedSchema {
///     static let versionIdentifier = Schema.Version(1, 0, 0)
///     static var models: [any PersistentModel.Type] { [Trip.self] }
///     @Model final class Trip { var name: String; init(name: String) { self.name = name } }
/// }
/// ```
///
/// A ``SchemaMigrationPlan`` lists the versions and the stages between them.
public protocol VersionedSchema: SendableMetatype {
    /// The version's label; stores are matched to versions by version hashes, not by it.
    static var versionIdentifier: Schema.Version { get }
    /// The version's `@Model` classes.
    static var models: [any PersistentModel.Type] { get }
}
