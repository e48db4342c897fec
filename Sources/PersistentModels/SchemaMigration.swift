import Foundation

/// Runs a ``SchemaMigrationPlan`` on one store before a ``ModelContainer`` adds it: finds the
/// version that wrote the store by version hashes, then applies each stage from there, one
/// after the other.
///
/// Each stage is written to the store before the next starts, so a failure (a stage's code
/// throws, a mapping cannot be inferred) leaves the store at the last version reached, which
/// the next open continues from. A custom stage's `willMigrate` changes are saved before its
/// migration, so a failing migration after them leaves them saved in the old version.
struct SchemaMigration {
    /// The plan.
    let plan: any SchemaMigrationPlan.Type
    /// The plan's versions, oldest first.
    let schemas: [Schema]
    /// The versions' models, oldest first.
    var models: [ObjectModel] { schemas.map(\.objectModel) }
    /// Where store types are looked up.
    let registry: StoreRegistry

    /// Checks the plan: at least one version, each stage between two of its versions, at most
    /// one stage from each version, every stage going to a later version.
    init(plan: any SchemaMigrationPlan.Type, registry: StoreRegistry) throws {
        self.plan = plan
        self.registry = registry
        let versions = plan.schemas
        guard !versions.isEmpty else {
            throw StoreError(.migration, "The migration plan \(plan) lists no schemas")
        }
        self.schemas = try versions.map { try Schema(versionedSchema: $0) }
        var froms: Set<Int> = []
        for stage in plan.stages {
            let from = try Self.index(of: stage.fromVersion, in: versions, plan: plan)
            let to = try Self.index(of: stage.toVersion, in: versions, plan: plan)
            guard to > from else {
                throw StoreError(
                    .migration,
                    "The migration plan \(plan) has a stage from \(stage.fromVersion) to \(stage.toVersion), "
                        + "which is not a later version in its schemas")
            }
            guard froms.insert(from).inserted else {
                throw StoreError(.migration, "The migration plan \(plan) has two stages from \(stage.fromVersion)")
            }
        }
    }

    private static func index(
        of version: any VersionedSchema.Type, in versions: [any VersionedSchema.Type], plan: any SchemaMigrationPlan.Type
    ) throws -> Int {
        guard let index = versions.firstIndex(where: { ObjectIdentifier($0) == ObjectIdentifier(version) }) else {
            throw StoreError(.migration, "The migration plan \(plan) has a stage with \(version), which its schemas do not list")
        }
        return index
    }

    /// Brings the store a description names to the plan's latest version it has stages to.
    /// Does nothing for a store that does not exist yet, a store in memory, a store already
    /// written with `current`, or one written with a version the plan does not list (adding it
    /// then fails with the coordinator's 134130 or 134100, naming the store).
    func run(on description: StoreDescription, toward current: ObjectModel) throws {
        guard let url = description.url,
            try PersistentStoreCoordinator.persistentStoreExists(
                type: description.type, at: url, options: description.options, registry: registry)
        else { return }
        let metadata = try registry.requireStoreType(named: description.type).metadata(forStoreAt: url, options: description.options)
        let configuration = description.configuration
        if MigrationManager.sourceModel(forStoreMetadata: metadata, among: [current], configuration: configuration) != nil {
            return
        }
        guard
            var version = models.firstIndex(where: {
                MigrationManager.sourceModel(forStoreMetadata: metadata, among: [$0], configuration: configuration) != nil
            })
        else { return }
        let versions = plan.schemas
        let stages = plan.stages
        while let stage = stages.first(where: { ObjectIdentifier($0.fromVersion) == ObjectIdentifier(versions[version]) }) {
            guard let next = versions.firstIndex(where: { ObjectIdentifier($0) == ObjectIdentifier(stage.toVersion) }), next > version
            else { return }
            let willMigrate: (@Sendable (ModelContext) throws -> Void)?
            let didMigrate: (@Sendable (ModelContext) throws -> Void)?
            switch stage {
            case .lightweight:
                (willMigrate, didMigrate) = (nil, nil)
            case .custom(_, _, let will, let did):
                (willMigrate, didMigrate) = (will, did)
            }
            if let willMigrate {
                try runStageCode(willMigrate, on: description, url: url, schema: schemas[version])
            }
            let mapping = try MappingModel.inferred(from: models[version], to: models[next])
            try MigrationManager(sourceModel: models[version], destinationModel: models[next], registry: registry)
                .migrateStore(
                    at: url, type: description.type, mapping: mapping, configuration: configuration,
                    options: Self.withoutMigration(description.options))
            if let didMigrate {
                try runStageCode(didMigrate, on: description, url: url, schema: schemas[next])
            }
            version = next
        }
    }

    /// Opens the store with one version's classes, runs a stage's code on a context over it,
    /// saves what it left unsaved and closes the store.
    private func runStageCode(
        _ code: (ModelContext) throws -> Void, on description: StoreDescription, url: URL, schema: Schema
    ) throws {
        let coordinator = PersistentStoreCoordinator(model: schema.objectModel, registry: registry)
        let handle = try coordinator.addPersistentStore(
            type: description.type, configuration: description.configuration, at: url,
            options: Self.withoutMigration(description.options))
        defer { try? coordinator.remove(handle) }
        let context = ModelContext(ModelContainer(schema: schema, coordinator: coordinator))
        try code(context)
        if context.hasChanges { try context.save() }
    }

    /// A store's options without automatic migration: a stage opens a store only with the
    /// version that wrote it.
    private static func withoutMigration(_ options: StoreOptions) -> StoreOptions {
        var options = options
        options[StoreOptionKey.migrateAutomatically] = .bool(false)
        options[StoreOptionKey.inferMappingModel] = .bool(false)
        return options
    }
}
