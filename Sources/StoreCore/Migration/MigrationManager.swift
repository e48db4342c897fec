import Foundation

/// Migrates a store file from the model that wrote it to another, through one mapping model or
/// a chain of them (Core Data's `NSMigrationManager`). Automatic (lightweight) migration, which
/// ``PersistentStoreCoordinator/addPersistentStore(type:configuration:at:options:)`` runs when
/// asked, uses it with an inferred mapping; call it yourself for a custom mapping or a chain of
/// versions.
///
/// ```swift
/// var mapping = try MappingModel.inferred(from: v1, to: v2)
/// mapping[destination: "Book"]?.transform = { source, book in
///     book.setValue(.string("unknown"), forAttribute: "isbn")
/// }
/// try MigrationManager(sourceModel: v1, destinationModel: v2).migrateStore(at: url, type: "SQLite", mapping: mapping)
/// ```
///
/// A store type that conforms to ``InPlaceMigratingStore`` (SQLite) applies a step that only
/// adds attributes, or changes only attributes, in place, in one transaction. Otherwise, on every store type
/// (`docs/migration.md`): the store is opened read-only
/// with the source model and every object read; the objects are mapped in memory, slot by slot;
/// the result is written once. An atomic store writes its new file through its atomic writer
/// (a temporary file renamed over the old one). An incremental store with a file is written to
/// a new file beside it, which then replaces it. Until that last rename the original file is
/// untouched, so any failure — a mapping that cannot convert a value, a policy that throws, a
/// killed process — leaves the store as it was, usable with the source model. Object IDs keep
/// their store identifier and reference object (an entity renamed changes only its name).
public struct MigrationManager: Sendable {
    /// The model the store was written with.
    public let sourceModel: ObjectModel
    /// The model the store is migrated to.
    public let destinationModel: ObjectModel
    /// Where store types are looked up.
    public let registry: StoreRegistry

    /// Creates a manager for one step.
    public init(sourceModel: ObjectModel, destinationModel: ObjectModel, registry: StoreRegistry = .shared) {
        self.sourceModel = sourceModel
        self.destinationModel = destinationModel
        self.registry = registry
    }

    /// Migrates the store at `url` (of type `type`) in place with `mapping`.
    ///
    /// - Parameters:
    ///   - url: the store's file.
    ///   - type: the store's registered type.
    ///   - mapping: how each object of the source model becomes one of the destination model.
    ///   - configuration: the configuration the store holds; nil for every entity.
    ///   - options: the store's options (read-only is refused: nothing could be written).
    ///   - progress: objects done / total.
    /// - Throws: 134130 when the store was not written with the source model; 134140 for a
    ///   mapping that names what the models lack; 134110 when an object cannot be mapped (a
    ///   value that does not fit its new type, or what a ``EntityMapping/transform`` throws,
    ///   as its underlying error); what the stores throw. The store is unchanged after any of them.
    public func migrateStore(
        at url: URL, type: String, mapping: MappingModel, configuration: String? = nil, options: StoreOptions = [:],
        progress: MigrationProgressHandler? = nil
    ) throws {
        try Self.migrate(
            at: url, type: type, steps: [(sourceModel, destinationModel, mapping)], configuration: configuration, options: options,
            registry: registry, progress: progress)
    }

    /// Migrates the store at `url`, written with `models[0]`, through every later model in turn
    /// (progressive migration, v1 → v2 → v3), with `mappings[i]` from `models[i]` to
    /// `models[i + 1]` where given and an inferred mapping elsewhere. The steps run in memory
    /// and the store is written once, so a failure at any step leaves it at `models[0]`.
    ///
    /// ```swift
    /// try MigrationManager.migrateStore(at: url, type: "XML", through: [v1, v2, v3])
    /// ```
    public static func migrateStore(
        at url: URL, type: String, through models: [ObjectModel], mappings: [Int: MappingModel] = [:],
        configuration: String? = nil, options: StoreOptions = [:], registry: StoreRegistry = .shared,
        progress: MigrationProgressHandler? = nil
    ) throws {
        guard models.count >= 2 else { return }
        var steps: [(ObjectModel, ObjectModel, MappingModel)] = []
        for index in 0..<(models.count - 1) {
            let mapping = try mappings[index] ?? MappingModel.inferred(from: models[index], to: models[index + 1])
            steps.append((models[index], models[index + 1], mapping))
        }
        try migrate(at: url, type: type, steps: steps, configuration: configuration, options: options, registry: registry, progress: progress)
    }

    /// The first of `models` whose version hashes match the store's metadata (how a store that
    /// keeps no model, such as one Core Data wrote, finds its source among a bundle's
    /// versions); nil when none does.
    public static func sourceModel(
        forStoreMetadata metadata: StoreMetadata, among models: [ObjectModel], configuration: String? = nil
    ) -> ObjectModel? {
        models.first { model in
            let check = ModelCompatibility(model: model, configuration: configuration, storeMetadata: metadata, strict: true)
            return check.isCompatible && check.method == .versionHashes
        }
    }

    // MARK: Applying

    static func migrate(
        at url: URL, type: String, steps: [(ObjectModel, ObjectModel, MappingModel)], configuration: String?,
        options: StoreOptions, registry: StoreRegistry, progress: MigrationProgressHandler?
    ) throws {
        try migrate(
            at: url, storeClass: try registry.requireStoreType(named: type), steps: steps, configuration: configuration,
            options: options, progress: progress)
    }

    static func migrate(
        at url: URL, storeClass: any PersistentStore.Type, steps: [(ObjectModel, ObjectModel, MappingModel)],
        configuration: String?, options: StoreOptions, progress: MigrationProgressHandler?
    ) throws {
        guard let first = steps.first, let last = steps.last else { return }
        let type = storeClass.storeType
        if storeClass.isReadOnly(options: options) {
            throw StoreError(.migration, "The \(type) store at \(url.path) is opened read-only and cannot be migrated", fileURL: url)
        }
        let compiled = try steps.map { try CompiledMapping($0.2, from: $0.0, to: $0.1) }
        if steps.count == 1, let inPlace = storeClass as? any InPlaceMigratingStore.Type,
            try PersistentStoreCoordinator.storeExists(storeClass, at: url, options: options)
        {
            var count: Int?
            if let change = AdditiveChange.between(first.0, first.1, mapping: first.2) {
                count = try inPlace.migrateInPlace(at: url, change, configuration: configuration, options: options)
            }
            if count == nil, let change = AttributeChange.between(first.0, first.1, mapping: first.2) {
                count = try inPlace.migrateInPlace(at: url, change, configuration: configuration, options: options)
            }
            if let count {
                progress?(MigrationProgress(done: count, total: count))
                return
            }
        }
        var storeOptions = options
        storeOptions[StoreOptionKey.migrateAutomatically] = nil
        storeOptions[StoreOptionKey.inferMappingModel] = nil

        let (metadata, nodes) = try read(storeClass, at: url, model: first.0, configuration: configuration, options: storeOptions)
        let total = nodes.count
        progress?(MigrationProgress(done: 0, total: total))
        var mapped = nodes
        do {
            for (index, mapping) in compiled.enumerated() {
                let report = index == compiled.count - 1 ? progress : nil
                var lastReported = 0
                let count = mapped.count
                mapped = try mapping.map(mapped) { done in
                    // At most about a hundred reports, whatever the size.
                    if let report, done == count || done - lastReported >= max(1, total / 100) {
                        lastReported = done
                        report(MigrationProgress(done: min(done, total), total: total))
                    }
                }
            }
        } catch let error as StoreError where error.code == .migration {
            throw Self.located(error, url: url, type: type)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(
                .migration, "The migration of the \(type) store at \(url.path) failed: \(error)",
                underlyingErrors: [StoreError(.migration, "\(error)")], fileURL: url)
        }
        var newMetadata = metadata
        newMetadata.merge(storeClass.modelMetadata(for: last.1)) { _, new in new }
        let destinationConfiguration = configuration.flatMap { last.1.configurations[$0] != nil ? $0 : nil }
        if storeClass is AtomicStore.Type {
            let store = try storeClass.init(model: last.1, configurationName: destinationConfiguration, url: url, options: storeOptions)
            store.metadata = newMetadata
            try StoreTransfer.write(mapped, to: store)
        } else {
            try writeBeside(url, storeClass, model: last.1, configuration: destinationConfiguration, options: storeOptions, metadata: newMetadata, nodes: mapped)
        }
        progress?(MigrationProgress(done: total, total: total))
    }

    /// The metadata and every object of the store at `url`, opened read-only with `model`
    /// (134130 when `model` is not the one that wrote it).
    private static func read(
        _ storeClass: any PersistentStore.Type, at url: URL, model: ObjectModel, configuration: String?, options: StoreOptions
    ) throws -> (StoreMetadata, [StoreNode]) {
        var readOptions = options
        readOptions[StoreOptionKey.readOnly] = .bool(true)
        let sourceConfiguration = configuration.flatMap { model.configurations[$0] != nil ? $0 : nil }
        let store: any PersistentStore
        do {
            store = try storeClass.init(model: model, configurationName: sourceConfiguration, url: url, options: readOptions)
            try StoreTransfer.load(store)
        } catch let error as StoreError where error.code == .persistentStoreIncompatibleVersionHash {
            throw StoreError(
                .migrationMissingSourceModel,
                "The \(storeClass.storeType) store at \(url.path) was not written with the migration's source model: \(error.message)",
                underlyingErrors: [error], fileURL: url)
        }
        let check = ModelCompatibility(model: model, configuration: sourceConfiguration, storeMetadata: store.metadata)
        if !check.isCompatible {
            throw StoreError(
                .migrationMissingSourceModel,
                "The \(storeClass.storeType) store at \(url.path) was not written with the migration's source model; entities that differ: "
                    + check.differences.map(\.description).joined(separator: ", "),
                fileURL: url)
        }
        return (store.metadata, try StoreTransfer.nodes(of: store))
    }

    /// Writes a new store beside `url` and renames it over the old one (incremental stores).
    private static func writeBeside(
        _ url: URL, _ storeClass: any PersistentStore.Type, model: ObjectModel, configuration: String?, options: StoreOptions,
        metadata: StoreMetadata, nodes: [StoreNode]
    ) throws {
        if let server = storeClass as? any ServerStore.Type {
            let temporary = try server.temporaryURL(besides: url)
            do {
                try writeNew(temporary, storeClass, model: model, configuration: configuration, options: options, metadata: metadata, nodes: nodes)
                try server.moveStore(at: temporary, over: url, options: options)
            } catch {
                try? server.destroyStore(at: temporary, options: options)
                throw error
            }
            return
        }
        let temporary = besideFile(url, kind: "migrating")
        do {
            try writeNew(temporary, storeClass, model: model, configuration: configuration, options: options, metadata: metadata, nodes: nodes)
            // The new store is closed: its companions (a WAL) are folded into its main file.
            let companions = PersistentStoreCoordinator.fileURLs(of: storeClass, at: url).dropFirst()
            for file in companions where FileManager.default.fileExists(atPath: file.path) {
                try FileManager.default.removeItem(at: file)
            }
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
                // A store kept as a folder: a folder cannot be renamed over a non-empty one, so
                // the old one is moved aside first and deleted once the new one is in place.
                let aside = besideFile(url, kind: "replaced")
                try FileManager.default.moveItem(at: url, to: aside)
                do {
                    try FileManager.default.moveItem(at: temporary, to: url)
                } catch {
                    try? FileManager.default.moveItem(at: aside, to: url)
                    throw StoreError(.migration, "Cannot move the migrated store into place at \(url.path): \(error)", fileURL: url)
                }
                try? FileManager.default.removeItem(at: aside)
                return
            }
            guard rename(temporary.path, url.path) == 0 else {
                throw StoreError(
                    .migration, "Cannot move the migrated store into place at \(url.path): \(String(cString: strerror(errno)))",
                    fileURL: url)
            }
        } catch {
            try? PersistentStoreCoordinator.removeFiles(of: storeClass, at: temporary)
            throw error
        }
        try? PersistentStoreCoordinator.removeFiles(of: storeClass, at: temporary)
    }

    /// Creates a store at `url` with `nodes` and closes it (the store object ends here).
    private static func writeNew(
        _ url: URL, _ storeClass: any PersistentStore.Type, model: ObjectModel, configuration: String?, options: StoreOptions,
        metadata: StoreMetadata, nodes: [StoreNode]
    ) throws {
        let store = try storeClass.init(model: model, configurationName: configuration, url: url, options: options)
        try StoreTransfer.load(store)
        var merged = store.metadata
        merged.merge(metadata) { _, new in new }
        store.metadata = merged
        try StoreTransfer.write(nodes, to: store)
    }

    // MARK: Files written beside a store

    /// A new name beside `url` for a migration's `kind` of file: `.<name>.migrating-<pid>-<UUID>`
    /// (the new store while it is written) or `.<name>.replaced-<pid>-<UUID>` (a store kept as a
    /// folder, moved aside while the new one takes its place). The process ID tells a later open
    /// whether the migration that wrote it can still be running.
    static func besideFile(_ url: URL, kind: String) -> URL {
        url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(kind)-\(getpid())-\(UUID().uuidString)")
    }

    /// How long a file beside a store must have been left unchanged before it is taken as
    /// abandoned: its process is gone (or, for names without a process ID, written by earlier
    /// releases, always) and nothing has written it since. A migration that is running writes
    /// its new store continuously; the wait covers a process in another PID namespace (a
    /// container sharing the folder), which `kill(pid, 0)` cannot see.
    static let abandonedFileAge: (withProcessID: TimeInterval, withoutProcessID: TimeInterval) = (60, 3600)

    /// Deals with what a migration of the store at `url` left beside it when its process ended
    /// mid-way (killed, crashed, power lost). A `.replaced-` folder with no store at `url` is the
    /// old store, moved aside just before the new one would have taken its place: it is moved
    /// back (at once, when its process is gone; otherwise a new empty store would be made over
    /// it). Other leftovers — a `.migrating-` store with its companions, or a `.replaced-` folder
    /// once the new store is in place — are removed when abandoned (``abandonedFileAge``).
    /// Called when a store is added; errors are ignored, as the store itself is not affected.
    static func settleAbandonedFiles(besides url: URL) {
        let folder = url.deletingLastPathComponent()
        let name = url.lastPathComponent
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        let files = FileManager.default
        let now = Date()
        for kind in ["replaced", "migrating"] {
            let prefix = ".\(name).\(kind)-"
            // One migration's files share `<prefix><pid>-<UUID>` (36 characters); companions
            // (`-wal`, `-shm`, `-journal`) follow it.
            var groups: [String: [String]] = [:]
            var processIDs: [String: pid_t] = [:]
            for entry in entries where entry.hasPrefix(prefix) {
                let rest = entry.dropFirst(prefix.count)
                let processID = Self.processID(inBesideName: rest)
                let keyLength = prefix.count + (processID.map { String($0).count + 1 } ?? 0) + 36
                let key = String(entry.prefix(keyLength))
                groups[key, default: []].append(entry)
                processIDs[key] = processID
            }
            for (key, members) in groups.sorted(by: { $0.key < $1.key }) {
                let processID = processIDs[key]
                // EPERM means the process runs, as another user.
                let processGone = processID.map { $0 > 0 && kill($0, 0) != 0 && errno == ESRCH } ?? true
                guard processGone else { continue }
                var isFolder: ObjCBool = false
                if kind == "replaced", members == [key], files.fileExists(atPath: folder.appendingPathComponent(key).path, isDirectory: &isFolder),
                    isFolder.boolValue, !files.fileExists(atPath: url.path)
                {
                    try? files.moveItem(at: folder.appendingPathComponent(key), to: url)
                    continue
                }
                let newest = members.compactMap {
                    (try? files.attributesOfItem(atPath: folder.appendingPathComponent($0).path)[.modificationDate]) as? Date
                }.max() ?? now
                let age = processID == nil ? abandonedFileAge.withoutProcessID : abandonedFileAge.withProcessID
                guard now.timeIntervalSince(newest) > age else { continue }
                for member in members { try? files.removeItem(at: folder.appendingPathComponent(member)) }
            }
        }
    }

    /// The process ID of a name's `<pid>-<UUID>` part; nil for `<UUID>` alone (earlier releases).
    static func processID(inBesideName rest: Substring) -> pid_t? {
        let digits = rest.prefix { $0 != "-" }
        guard !digits.isEmpty, digits.count < 10, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
            let processID = pid_t(digits)
        else { return nil }
        let uuid = rest.dropFirst(digits.count + 1).prefix(36)
        return UUID(uuidString: String(uuid)) == nil ? nil : processID
    }

    /// Whether a store is at `url`: a non-empty file, or a folder (stores kept as folders).
    static func storeExists(at url: URL) -> Bool {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder) else { return false }
        if isFolder.boolValue { return true }
        return ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue ?? 0) > 0
    }

    private static func located(_ error: StoreError, url: URL, type: String) -> StoreError {
        var located = error
        if !located.message.contains(url.path) { located.message = "The \(type) store at \(url.path): " + located.message }
        if located.fileURL == nil { located.fileURL = url }
        return located
    }
}
