/// A set of `@Model` classes and its version (SwiftData's `Schema`): what a
/// ``ModelContainer`` is made for, and one step of a ``SchemaMigrationPlan``.
///
/// ```swift
/// let schema = Schema([Trip.self, Accommodation.self], version: Schema.Version(2, 0, 0))
/// let container = try ModelContainer(for: schema, configurations: [ModelConfiguration(isStoredInMemoryOnly: true)])
/// ```
///
/// The version is a label: which version wrote a store is decided by the entities' version
/// hashes (as in Core Data and SwiftData), never by the label.
public final class Schema: Sendable {
    /// A schema's version label (SwiftData's `Schema.Version`): major, minor and patch.
    public struct Version: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
        /// The major version.
        public let major: Int
        /// The minor version.
        public let minor: Int
        /// The patch version.
        public let patch: Int

        /// A version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// Orders versions by major, then minor, then patch.
        public static func < (lhs: Version, rhs: Version) -> Bool {
            (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
        }

        /// `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// The classes given (the classes their relationships reach are part of the model too).
    public let types: [any PersistentModel.Type]
    /// The version label.
    public let version: Version
    /// The model of the classes (`ObjectModel(for:)`).
    public let objectModel: ObjectModel
    /// Every class of the model (the given ones and those their relationships reach), by
    /// entity name.
    private let typesByEntityName: [String: any PersistentModel.Type]

    /// A schema of `@Model` classes; throws what `ObjectModel(for:)` throws for them (134060).
    public init(_ types: [any PersistentModel.Type], version: Version = Version(1, 0, 0)) throws {
        self.types = types
        self.version = version
        let classes = try ModelClassSet(types)
        self.objectModel = try ObjectModel(entities: classes.types.map { try classes.entity(of: $0) })
        self.typesByEntityName = Dictionary(
            classes.types.map { ($0.persistentEntitySchema.entityName, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A schema of a model without classes (a ``DataStore`` of a coordinator whose model was
    /// built or read from a file): no entity has a class.
    init(objectModel: ObjectModel) {
        self.types = []
        self.version = Version(1, 0, 0)
        self.objectModel = objectModel
        self.typesByEntityName = [:]
    }

    /// The class of an entity of the model; nil for a name the model lacks.
    public func modelType(forEntityName name: String) -> (any PersistentModel.Type)? { typesByEntityName[name] }

    /// A schema of `@Model` classes; see `init(_:version:)`.
    public convenience init(_ types: any PersistentModel.Type..., version: Version = Version(1, 0, 0)) throws {
        try self.init(types, version: version)
    }

    /// The schema of one version of a ``VersionedSchema``: its models, labelled with its
    /// version identifier.
    public convenience init(versionedSchema: any VersionedSchema.Type) throws {
        try self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The entity names, in the model's order.
    public var entityNames: [String] { objectModel.entities.map(\.name) }
}
