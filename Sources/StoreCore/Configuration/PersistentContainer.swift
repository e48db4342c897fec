import Foundation

/// A model, a coordinator, its stores and a context in one object, like Core Data's
/// `NSPersistentContainer`.
///
/// ```swift
/// let container = PersistentContainer(name: "League", model: model)
/// try container.loadPersistentStores()          // one SQLite store in the default folder
/// let team = try container.viewContext.insert(entityName: "Team")
/// try container.viewContext.save()
/// ```
///
/// Stores are added with automatic migration and inferred mapping on, unless a description's
/// options say otherwise (``StoreOptionKey/migrateAutomatically``,
/// ``StoreOptionKey/inferMappingModel``). A store is migrated only from one of the model
/// versions the container was given (`versions`, or an `.xcdatamodeld`'s), as in Core Data.
///
/// Without descriptions, ``loadPersistentStores()`` adds one SQLite store at
/// ``defaultDirectoryURL(name:environment:)``/`<name>.sqlite`. Set
/// ``persistentStoreDescriptions`` first to choose other stores; the configuration target
/// builds them from a file or the environment, so the backend is chosen outside the program.
///
/// Concurrency: the container and its ``viewContext`` belong to the isolation domain that made
/// them (contexts are not Sendable). Work elsewhere uses ``performBackgroundTask(_:)``, which
/// gives the task a context of its own on the same (Sendable) ``persistentStoreCoordinator``,
/// or a ``PrivateQueueContext`` from ``newPrivateQueueContext()``, which any task can hand work.
public final class PersistentContainer {
    /// The container's name: the default store's file and folder name.
    public let name: String
    /// The model every store and context of the container uses.
    public let managedObjectModel: ObjectModel
    /// The coordinator the stores are added to.
    public let persistentStoreCoordinator: PersistentStoreCoordinator
    /// The stores ``loadPersistentStores()`` adds, in order. Empty means one SQLite store in
    /// the default folder.
    public var persistentStoreDescriptions: [StoreDescription]

    private var view: ManagedObjectContext?

    /// Creates a container for `model`; no store is added until ``loadPersistentStores()``.
    ///
    /// `versions` are the earlier versions of the model the application knows: a store written
    /// with one of them is migrated to `model` when it is added; a store written with any other
    /// model (a newer release's, another program's) is refused with 134130 and left untouched
    /// (see ``PersistentStoreCoordinator/modelVersions``).
    ///
    /// ```swift
    /// let container = PersistentContainer(name: "League", model: v3, versions: [v1, v2])
    /// ```
    ///
    /// `observability` is the logger, metrics backend and tracer the stores report to (see
    /// ``StoreObservability``); its stores are named after the container unless it names them.
    public init(
        name: String, model: ObjectModel, versions: [ObjectModel] = [], registry: StoreRegistry = .shared,
        observability: StoreObservability? = nil
    ) {
        self.name = name
        self.managedObjectModel = model
        var observability = observability ?? StoreObservability()
        if observability.name == nil { observability.name = name }
        self.persistentStoreCoordinator = PersistentStoreCoordinator(
            model: model, versions: versions, registry: registry, observability: observability)
        self.persistentStoreDescriptions = []
    }

    /// Creates a container with the model read from a file: an Xcode `.xcdatamodeld` bundle
    /// (its current version, and every version as ``PersistentStoreCoordinator/modelVersions``,
    /// the sources automatic migration accepts), an `.xcdatamodel` folder or a JSON model (see
    /// ``ObjectModel/init(contentsOf:)``).
    public convenience init(
        name: String, modelURL: URL, registry: StoreRegistry = .shared, observability: StoreObservability? = nil
    ) throws {
        let model = try ObjectModel(contentsOf: modelURL)
        let versions = try ObjectModel.versions(ofModelAt: modelURL)
        self.init(name: name, model: model, versions: versions, registry: registry, observability: observability)
    }

    /// The context for the container's own isolation domain (Core Data's main-queue context),
    /// made on first use.
    public var viewContext: ManagedObjectContext {
        if let view { return view }
        let context = ManagedObjectContext(coordinator: persistentStoreCoordinator)
        view = context
        return context
    }

    /// A new context on the container's coordinator, for work kept apart from ``viewContext``.
    public func newBackgroundContext() -> ManagedObjectContext {
        ManagedObjectContext(coordinator: persistentStoreCoordinator)
    }

    /// A new context on the container's coordinator with a serial queue of its own (Core Data's
    /// private-queue background context), usable from any thread or task through its
    /// `perform` methods.
    public func newPrivateQueueContext() -> PrivateQueueContext {
        PrivateQueueContext(coordinator: persistentStoreCoordinator)
    }

    /// Runs `block` in a task of its own with a new context on the container's coordinator,
    /// and returns what it returns. Object IDs, not objects, cross back.
    public func performBackgroundTask<T: Sendable>(
        _ block: @escaping @Sendable (ManagedObjectContext) throws -> T
    ) async throws -> T {
        let coordinator = persistentStoreCoordinator
        return try await Task.detached {
            try block(ManagedObjectContext(coordinator: coordinator))
        }.value
    }

    // MARK: Loading stores

    /// Adds a store for every description (or the default SQLite store when there are none)
    /// and calls `handler` once per description with the error it met, or nil.
    ///
    /// A description that fails leaves nothing behind: the store is not added, and a store file
    /// and the folders the attempt created are removed. The other descriptions are still tried.
    ///
    /// Missing folders are created only for the default location and for descriptions whose
    /// ``StoreOptionKey/createsParentDirectories`` is true; a store whose folder is missing
    /// otherwise fails with an error naming the folder.
    public func loadPersistentStores(_ handler: (StoreDescription, StoreError?) -> Void) {
        let descriptions: [StoreDescription]
        if persistentStoreDescriptions.isEmpty {
            do {
                descriptions = [try defaultStoreDescription()]
            } catch {
                handler(StoreDescription(type: "SQLite"), Self.storeError(error))
                return
            }
            persistentStoreDescriptions = descriptions
        } else {
            descriptions = persistentStoreDescriptions
        }
        for description in descriptions {
            handler(description, add(description))
        }
    }

    /// Adds every described store; throws when any fails: one error naming each failing
    /// description (in ``StoreError/underlyingErrors`` when several failed).
    public func loadPersistentStores() throws {
        var failures: [StoreError] = []
        loadPersistentStores { _, error in
            if let error { failures.append(error) }
        }
        guard let first = failures.first else { return }
        if failures.count == 1 { throw first }
        throw StoreError(
            first.code,
            "\(failures.count) stores could not be added: " + failures.map(\.message).joined(separator: "; "),
            underlyingErrors: failures)
    }

    /// Adds one store; a failure is returned with the description's name in its message.
    private func add(_ description: StoreDescription) -> StoreError? {
        let fileManager = FileManager.default
        let siblings = description.url.map { url in
            ["", "-wal", "-shm", "-journal"].map { URL(fileURLWithPath: url.path + $0) }
        } ?? []
        let existedBefore = Set(siblings.filter { fileManager.fileExists(atPath: $0.path) })
        var createdFolders: [URL] = []
        do {
            if let url = description.url, url.isFileURL, createsFolders(for: description) {
                createdFolders = try Self.createFolder(url.deletingLastPathComponent(), for: description)
            }
            try persistentStoreCoordinator.addPersistentStore(Self.migratingByDefault(description))
            return nil
        } catch {
            // Nothing half-added: the coordinator did not keep the store; remove what this
            // attempt created on disk (never a file that was there before). Only when the
            // attempt created the store file itself: beside an existing store, a `-wal` or
            // `-shm` that appeared meanwhile may be another process's, open and in use.
            if let main = siblings.first, !existedBefore.contains(main) {
                for file in siblings where !existedBefore.contains(file) {
                    try? fileManager.removeItem(at: file)
                }
            }
            // And the folders it created, deepest first, when nothing else appeared in them.
            for folder in createdFolders.reversed() {
                guard (try? fileManager.contentsOfDirectory(atPath: folder.path))?.isEmpty == true else { break }
                try? fileManager.removeItem(at: folder)
            }
            var storeError = Self.storeError(error)
            if !storeError.message.contains(description.description) {
                storeError.message = "\(description): \(storeError.message)"
            }
            return storeError
        }
    }

    /// `description` with automatic migration and inferred mapping on unless it sets them
    /// itself: as in Core Data, a container migrates a store whose model changed
    /// (`docs/migration.md`); set ``StoreDescription/shouldMigrateStoreAutomatically`` to
    /// false in a description's options to turn it off.
    package static func migratingByDefault(_ description: StoreDescription) -> StoreDescription {
        var result = description
        for key in [StoreOptionKey.migrateAutomatically, StoreOptionKey.inferMappingModel] where result.options[key] == nil {
            result.options[key] = .bool(true)
        }
        return result
    }

    /// The description used when none is set: SQLite at `<default folder>/<name>.sqlite`.
    public func defaultStoreDescription() throws -> StoreDescription {
        let folder = try Self.defaultDirectoryURL(name: name)
        return StoreDescription(type: "SQLite", url: folder.appendingPathComponent("\(name).sqlite"))
    }

    /// The folder a container named `name` keeps its default store in:
    /// `$XDG_DATA_HOME/<name>` when that variable is set to an absolute path, else
    /// `~/.local/share/<name>` (Apple platforms: `~/Library/Application Support/<name>`).
    /// The folder is not created here; ``loadPersistentStores()`` creates it.
    public static func defaultDirectoryURL(
        name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> URL {
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
            throw StoreError(
                .persistentStoreOperation,
                "The container name \"\(name)\" cannot name a folder (it must be non-empty, without \"/\")")
        }
        #if canImport(Darwin)
        let base = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent("Library/Application Support", isDirectory: true)
        #else
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            base = URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share", isDirectory: true)
        }
        #endif
        return base.appendingPathComponent(name, isDirectory: true)
    }

    /// Whether loading `description` creates its file's missing folders: for a default location
    /// (a folder ``defaultDirectoryURL(name:environment:)`` gives) and when the description's
    /// ``StoreOptionKey/createsParentDirectories`` is true (the configuration target sets it for
    /// stores placed in the configured `folder`). Any other missing folder comes from a mistyped
    /// path: adding the store fails, naming the folder.
    func createsFolders(for description: StoreDescription) -> Bool {
        // A store that keeps nothing (InMemory) only takes its URL as a name.
        if let storeClass = persistentStoreCoordinator.registry.storeType(named: description.type),
            !storeClass.capabilities.contains(.persistent)
        {
            return false
        }
        if description.options[StoreOptionKey.createsParentDirectories] == .bool(true) { return true }
        // A default location: the folder `defaultDirectoryURL(name:)` gives for its own name (the
        // container's, or another default a description was given, such as a model
        // configuration's).
        guard let folder = description.url?.deletingLastPathComponent().standardizedFileURL,
            let defaultFolder = try? Self.defaultDirectoryURL(name: folder.lastPathComponent)
        else { return false }
        return folder.path == defaultFolder.standardizedFileURL.path
    }

    /// Creates `folder` (and its parents) when missing and returns the folders it created,
    /// outermost first; a failure says why, naming the folder.
    @discardableResult
    package static func createFolder(_ folder: URL, for description: StoreDescription) throws -> [URL] {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: folder.path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return [] }
            throw StoreError(
                .persistentStoreOperation,
                "Cannot create the folder \(folder.path) for the \(description): a file of that name is in the way",
                fileURL: folder)
        }
        var missing: [URL] = []
        var ancestor = folder.standardizedFileURL
        while ancestor.path != "/", !fileManager.fileExists(atPath: ancestor.path) {
            missing.insert(ancestor, at: 0)
            ancestor = ancestor.deletingLastPathComponent()
        }
        do {
            try fileManager.createDirectory(at: folder, withIntermediateDirectories: true)
            return missing
        } catch {
            let reason = Self.reason(for: folder, fallback: error.localizedDescription)
            throw StoreError(
                .persistentStoreOperation,
                "Cannot create the folder \(folder.path) for the \(description): \(reason)",
                fileURL: folder)
        }
    }

    /// Why a folder cannot be created: the nearest existing ancestor is not writable, or is a
    /// file; otherwise Foundation's reason.
    private static func reason(for folder: URL, fallback: String) -> String {
        let fileManager = FileManager.default
        var ancestor = folder.deletingLastPathComponent()
        while ancestor.path != "/" && !fileManager.fileExists(atPath: ancestor.path) {
            ancestor = ancestor.deletingLastPathComponent()
        }
        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: ancestor.path, isDirectory: &isDirectory) {
            if !isDirectory.boolValue { return "\(ancestor.path) is a file, not a folder" }
            if !fileManager.isWritableFile(atPath: ancestor.path) { return "permission denied in \(ancestor.path)" }
        }
        return fallback
    }

    private static func storeError(_ error: any Error) -> StoreError {
        if let error = error as? StoreError { return error }
        return StoreError(.persistentStoreOperation, "\(error)")
    }
}
