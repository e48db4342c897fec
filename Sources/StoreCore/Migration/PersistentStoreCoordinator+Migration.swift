import Foundation

extension PersistentStoreCoordinator {
    // MARK: Opening a store

    /// Creates a store object, reads its file and checks it against the model: what
    /// ``addPersistentStore(type:configuration:at:options:)`` does before the store joins the
    /// coordinator. A 134100 error reads the same for every store type: the entities that
    /// differ, the store file, and whether automatic migration was requested.
    static func openStore(
        _ storeClass: any PersistentStore.Type, model: ObjectModel, versions: [ObjectModel] = [], configuration: String?,
        url: URL?, options: StoreOptions
    ) throws -> any PersistentStore {
        do {
            if let url {
                try checkBeforeOpening(
                    storeClass, model: model, versions: versions, configuration: configuration, url: url, options: options)
            }
            let store = try storeClass.init(model: model, configurationName: configuration, url: url, options: options)
            try StoreTransfer.load(store)
            try ModelCompatibility.verify(store)
            return store
        } catch let error as StoreError where error.code == .persistentStoreIncompatibleVersionHash {
            throw ModelCompatibility.completing(error, storeURL: url, options: options)
        }
    }

    /// The check made from the store's metadata alone (the store type's `metadata(forStoreAt:options:)`),
    /// before the store object reads its file: with automatic migration (and a writable store)
    /// a store of another model version is migrated (`migrateAutomatically`); without it, an
    /// atomic store of another model version fails with 134100 here, before its `load()` parses
    /// objects the model cannot hold, so every store type gives the same error. (An incremental
    /// store reads only its metadata before the coordinator's check, ``ModelCompatibility/verify(_:)``,
    /// so it needs no earlier look.) Stores without version hashes, stores Core Data wrote
    /// (compared structurally after loading), stores whose metadata cannot be read this way and
    /// files of another type are left to the ordinary open, which reports them.
    static func checkBeforeOpening(
        _ storeClass: any PersistentStore.Type, model: ObjectModel, versions: [ObjectModel], configuration: String?, url: URL,
        options: StoreOptions
    ) throws {
        let migrates = options[StoreOptionKey.migrateAutomatically]?.boolValue == true && !storeClass.isReadOnly(options: options)
        guard migrates || storeClass is AtomicStore.Type,
            (try? storeExists(storeClass, at: url, options: options)) == true,
            let metadata = try? storeClass.metadata(forStoreAt: url, options: options)
        else { return }
        if let type = metadata[MetadataKey.storeType]?.stringValue, type != storeClass.storeType { return }
        let check = ModelCompatibility(
            model: model, configuration: configuration, storeMetadata: metadata,
            strict: options[StoreOptionKey.strictVersionChecking]?.boolValue ?? false)
        guard !check.isCompatible, check.method == .versionHashes else { return }
        guard migrates else {
            if let error = check.error(storeURL: url) { throw error }
            return
        }
        try migrateAutomatically(
            storeClass, model: model, versions: versions, configuration: configuration, url: url, options: options,
            metadata: metadata, check: check)
    }

    /// Automatic (lightweight) migration, Core Data's rule: the source model is the one of
    /// `versions` whose version hashes match the store's metadata
    /// (``MigrationManager/sourceModel(forStoreMetadata:among:configuration:)``); the model the
    /// metadata keeps is used only with ``StoreOptionKey/migrateFromStoredModel``. A store
    /// written with any other model (a newer release's, another program's) is refused with
    /// 134130 before anything is written. The mapping is inferred from the source to `model`
    /// and applied by ``MigrationManager``.
    static func migrateAutomatically(
        _ storeClass: any PersistentStore.Type, model: ObjectModel, versions: [ObjectModel], configuration: String?, url: URL,
        options: StoreOptions, metadata: StoreMetadata, check: ModelCompatibility
    ) throws {
        let differing = check.differences.map(\.description).joined(separator: ", ")
        let type = storeClass.storeType
        let sourceModel: ObjectModel
        if let known = MigrationManager.sourceModel(forStoreMetadata: metadata, among: versions, configuration: configuration) {
            sourceModel = known
        } else if options[StoreOptionKey.migrateFromStoredModel]?.boolValue == true {
            guard let stored = ModelCompatibility.storedModel(in: metadata) else {
                throw StoreError(
                    .migrationMissingSourceModel,
                    "Can't find model for source store: the \(type) store at \(url.path) needs migration (entities that differ: \(differing)) but its metadata keeps no model and no supplied model version has its version hashes (\(versionHashSummary(metadata))); automatic migration was requested and the store is unchanged",
                    fileURL: url)
            }
            sourceModel = stored
        } else {
            throw StoreError(
                .migrationMissingSourceModel,
                "Can't find model for source store: the \(type) store at \(url.path) was written with a model version the application does not supply (store version hashes: \(versionHashSummary(metadata))); "
                    + "entities that differ from the current model: \(differing); \(versions.isEmpty ? "no earlier version was supplied" : "none of the \(versions.count) supplied versions matches"). "
                    + "A store written by a newer release or by another program is never migrated; supply the versions the store may have been written with "
                    + "(PersistentStoreCoordinator(model:versions:), PersistentContainer(name:model:versions:) or an .xcdatamodeld), "
                    + "or set \(StoreOptionKey.migrateFromStoredModel) to migrate from the model the store keeps; automatic migration was requested and the store is unchanged",
                fileURL: url)
        }
        guard options[StoreOptionKey.inferMappingModel]?.boolValue == true else {
            throw StoreError(
                .migrationMissingMappingModel,
                "The \(type) store at \(url.path) needs migration (entities that differ: \(differing)) and no mapping model is inferred without \(StoreOptionKey.inferMappingModel); automatic migration was requested",
                fileURL: url)
        }
        do {
            let mapping = try MappingModel.inferred(from: sourceModel, to: model)
            let migrate = {
                try MigrationManager.migrate(
                    at: url, storeClass: storeClass, steps: [(sourceModel, model, mapping)], configuration: configuration,
                    options: options, progress: nil)
            }
            if let instrumentation = StoreInstrumentation.adding {
                try instrumentation.migration(migrate)
            } else {
                try migrate()
            }
        } catch var error as StoreError {
            if !error.message.contains(url.path) { error.message += "; store: \(url.path)" }
            if error.fileURL == nil { error.fileURL = url }
            error.message += "; automatic migration was requested and the store is unchanged"
            throw error
        }
    }

    /// The store's version hashes as `Entity <base64>`, sorted by entity, for messages.
    static func versionHashSummary(_ metadata: StoreMetadata) -> String {
        guard let hashes = ModelCompatibility.versionHashes(in: metadata), !hashes.isEmpty else { return "none" }
        return hashes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.base64EncodedString())" }.joined(separator: ", ")
    }

    // MARK: Copying a store

    /// Copies a store to a new file of any registered type and puts the copy in its place:
    /// Core Data's `migratePersistentStore(_:to:options:type:)`.
    ///
    /// ```swift
    /// let binary = try coordinator.migratePersistentStore(sqliteStore, to: url, type: "Binary")
    /// ```
    ///
    /// Every object is copied with its attributes and relationships (ordered ones in order), and
    /// every metadata key of the source (user keys included, and `NSStoreUUID` for every store
    /// type that takes its identifier from its metadata, as the persistent ones do) except
    /// `NSStoreType` and the file format's own version. The copy keeps each object's ID when the
    /// destination is of the same type as the source; otherwise the destination mints new
    /// reference objects (each type has its own kind) and relationships follow them. Row
    /// versions start again at 1.
    ///
    /// When the copy is complete the source store is removed from the coordinator and the new
    /// store added; the source file is not modified. Contexts that hold objects of the source
    /// store should be reset. On any failure nothing changes: the source stays added and a
    /// partly written destination is deleted.
    ///
    /// - Parameters:
    ///   - handle: a store added to this coordinator.
    ///   - url: where the copy goes: a file that does not exist yet or is empty (nil only for
    ///     types that need no URL).
    ///   - type: a registered type name, the source's or any other.
    ///   - options: the options the new store is added with.
    ///   - progress: receives objects done / total.
    /// - Returns: the handle of the new store.
    /// - Throws: 134070 when `handle` is not added or `url` already holds a store or other data;
    ///   134000 for an unknown type; what the stores throw (the source unchanged).
    @discardableResult
    public func migratePersistentStore(
        _ handle: StoreHandle, to url: URL?, type: String, options: StoreOptions = [:],
        progress: MigrationProgressHandler? = nil
    ) throws -> StoreHandle {
        let destinationClass = try registry.requireStoreType(named: type)
        if url == nil && !destinationClass.capabilities.contains(.noURL) {
            throw StoreError(.persistentStoreOperation, "A \(type) store needs a URL")
        }
        if let url {
            if try Self.storeExists(destinationClass, at: url, options: options) {
                throw StoreError(
                    .persistentStoreOperation,
                    "Cannot copy \(handle) to \(url.path): a file is already there (destroy it first with destroyPersistentStore)",
                    fileURL: url)
            }
        }
        return try state.withLock { state in
            guard let index = state.slots.firstIndex(where: { $0.handle.identifier == handle.identifier }) else {
                throw StoreError(.persistentStoreOperation, "\(handle) is not added to this coordinator")
            }
            if let url, state.slots.contains(where: { $0.handle.url?.standardizedFileURL == url.standardizedFileURL }) {
                throw StoreError(
                    .persistentStoreOperation, "A store at \(url.path) has already been added to this coordinator", fileURL: url)
            }
            let source = state.slots[index].store
            let destination = try Self.copy(
                source, toNew: destinationClass, url: url, options: options, progress: progress)
            // The copy is complete: swap the stores. A persistent copy is opened again from its
            // file, as any store is added, so its counters (next keys) come from what it holds.
            let removed = state.slots.remove(at: index)
            state.writeGeneration &+= 1
            do {
                let added: any PersistentStore
                let instrumentation = self.instrumentation(storeType: type, url: url)
                if url != nil && destinationClass.capabilities.contains(.persistent) {
                    added = try StoreInstrumentation.$adding.withValue(instrumentation) {
                        try Self.openStore(
                            destinationClass, model: model, versions: modelVersions, configuration: source.configurationName, url: url,
                            options: options)
                    }
                } else {
                    added = destination
                }
                let newHandle = try attach(added, type: type, instrumentation: instrumentation, state: &state)
                removed.store.willRemove(from: self)
                state.rowCache.removeAll { $0.storeIdentifier == handle.identifier }
                return newHandle
            } catch {
                state.slots.insert(removed, at: index)
                if let url { try? Self.removeFiles(of: destinationClass, at: url) }
                throw error
            }
        }
    }

    /// Writes every object and metadata key of `source` into a new store of `destinationClass`
    /// at `url` and returns it (loaded, not added). A failure deletes what was written.
    static func copy(
        _ source: any PersistentStore, toNew destinationClass: any PersistentStore.Type, url: URL?, options: StoreOptions,
        progress: MigrationProgressHandler?
    ) throws -> any PersistentStore {
        do {
            let destination = try destinationClass.init(
                model: source.model, configurationName: source.configurationName, url: url, options: options)
            try StoreTransfer.load(destination)
            destination.metadata = copiedMetadata(source.metadata, into: destination.metadata)
            if destination.metadata[MetadataKey.storeUUID]?.stringValue != destination.identifier {
                // A store whose identifier is fixed when it is created (InMemory) keeps its own.
                destination.metadata[MetadataKey.storeUUID] = .string(destination.identifier)
            }
            let nodes = try StoreTransfer.nodes(of: source)
            progress?(MigrationProgress(done: 0, total: nodes.count))
            let keepsIDs = type(of: source).storeType == destinationClass.storeType && destination.identifier == source.identifier
            try StoreTransfer.write(keepsIDs ? nodes : StoreTransfer.remap(nodes, to: destination), to: destination)
            progress?(MigrationProgress(done: nodes.count, total: nodes.count))
            return destination
        } catch {
            if let url { try? removeFiles(of: destinationClass, at: url) }
            throw error
        }
    }

    /// The source's metadata over a new store's: every key of `source` except `NSStoreType` and
    /// the format version, which stay the destination's.
    static func copiedMetadata(_ source: StoreMetadata, into destination: StoreMetadata) -> StoreMetadata {
        var result = destination
        for (key, value) in source where key != MetadataKey.storeType && key != MetadataKey.formatVersion {
            result[key] = value
        }
        return result
    }

    // MARK: Destroying and replacing store files

    /// Deletes the store of type `type` at `url` with every file it consists of (SQLite's
    /// `-wal`, `-shm` and `-journal` too, see ``MultiFileStore``): Core Data's
    /// `destroyPersistentStore(at:type:options:)`. Nothing at `url` is not an error.
    ///
    /// ```swift
    /// try coordinator.destroyPersistentStore(at: url, type: "SQLite")
    /// ```
    ///
    /// A store type that erases its stores itself (``ErasingStore``) is asked to.
    ///
    /// - Throws: 134070 when a store at `url` is added to this coordinator (remove it first);
    ///   134010 when the file is not a store of that type (it is then left alone), so a wrong
    ///   URL never deletes an unrelated file.
    public func destroyPersistentStore(at url: URL, type: String, options: StoreOptions = [:]) throws {
        let storeClass = try registry.requireStoreType(named: type)
        try refuseAdded(url, doing: "destroy")
        if let server = storeClass as? any ServerStore.Type {
            try server.destroyStore(at: url, options: options)
            return
        }
        if let erasing = storeClass as? any ErasingStore.Type {
            try erasing.eraseStore(at: url, model: model, options: options)
            return
        }
        guard let size = try StoreFile.regularFileSize(at: url, storeType: type) else { return }
        if size > 0 { _ = try storeClass.metadata(forStoreAt: url, options: options) }
        try Self.removeFiles(of: storeClass, at: url)
    }

    /// Replaces the store at `destinationURL` with a copy of the store at `sourceURL`, both of
    /// type `type`: Core Data's `replacePersistentStore(at:destinationOptions:withPersistentStoreFrom:sourceOptions:type:)`.
    /// The source is left as it is.
    ///
    /// ```swift
    /// try coordinator.replacePersistentStore(at: liveURL, withPersistentStoreFrom: backupURL, type: "Binary")
    /// ```
    ///
    /// The source's files are first copied beside the destination under temporary names, then
    /// renamed over the destination's (the main file last), so the destination is either the old
    /// store or the new one, never a half-copied file. Destination files the source lacks (an old
    /// `-wal`) are removed before the main file is renamed. A store type that is an
    /// ``EngineCopiedStore`` (SQLite) makes the copy itself, through its engine, so the source
    /// may be open (in this process or another) while it is copied.
    ///
    /// - Throws: 134070 when a store at `destinationURL` is added to this coordinator, or when
    ///   there is no store at `sourceURL`; 134010 when either file is not a store of `type`.
    public func replacePersistentStore(
        at destinationURL: URL, withPersistentStoreFrom sourceURL: URL, type: String, options: StoreOptions = [:]
    ) throws {
        let storeClass = try registry.requireStoreType(named: type)
        try refuseAdded(destinationURL, doing: "replace")
        if storeClass is any ServerStore.Type {
            throw StoreError(
                .persistentStoreUnsupportedRequestType,
                "replacePersistentStore copies files; \(type) stores live on a server: copy one with migratePersistentStore instead")
        }
        guard let size = try StoreFile.regularFileSize(at: sourceURL, storeType: type), size > 0 else {
            throw StoreError(.persistentStoreOperation, "There is no \(type) store at \(sourceURL.path) to copy", fileURL: sourceURL)
        }
        _ = try storeClass.metadata(forStoreAt: sourceURL, options: options)
        if let existing = try StoreFile.regularFileSize(at: destinationURL, storeType: type), existing > 0 {
            _ = try storeClass.metadata(forStoreAt: destinationURL, options: options)
        }
        let manager = FileManager.default
        let sources = Self.fileURLs(of: storeClass, at: sourceURL)
        let destinations = Self.fileURLs(of: storeClass, at: destinationURL)
        let folder = destinationURL.deletingLastPathComponent()
        let token = UUID().uuidString
        var staged: [(URL, URL)] = []  // (temporary, final)
        do {
            if let engine = storeClass as? any EngineCopiedStore.Type {
                // Copied through the engine: a consistent state, and no descriptor of ours on
                // files another connection of this process may hold locks on.
                let temporary = folder.appendingPathComponent(".\(destinationURL.lastPathComponent).\(token).tmp")
                staged.append((temporary, destinationURL))
                try engine.copyStore(at: sourceURL, to: temporary, options: options)
            } else {
                for (from, to) in zip(sources, destinations) where manager.fileExists(atPath: from.path) {
                    let temporary = folder.appendingPathComponent(".\(to.lastPathComponent).\(token).tmp")
                    try manager.copyItem(at: from, to: temporary)
                    staged.append((temporary, to))
                }
            }
        } catch {
            for (temporary, _) in staged {
                for file in Self.fileURLs(of: storeClass, at: temporary) { try? manager.removeItem(at: file) }
            }
            throw StoreError(
                .persistentStoreOperation, "Cannot copy the \(type) store at \(sourceURL.path) beside \(destinationURL.path): \(error)",
                fileURL: destinationURL)
        }
        let stagedFinals = Set(staged.map(\.1.path))
        // Companions first (the old ones the source lacks removed), the main file last.
        for file in destinations.dropFirst() where !stagedFinals.contains(file.path) && manager.fileExists(atPath: file.path) {
            try manager.removeItem(at: file)
        }
        for (temporary, final) in staged.reversed() {
            if rename(temporary.path, final.path) != 0 {
                let reason = String(cString: strerror(errno))
                for (left, _) in staged { try? manager.removeItem(at: left) }
                throw StoreError(
                    .persistentStoreOperation, "Cannot move the copy into place at \(final.path): \(reason)", fileURL: destinationURL)
            }
        }
    }

    private func refuseAdded(_ url: URL, doing action: String) throws {
        if let added = persistentStore(for: url) {
            throw StoreError(
                .persistentStoreOperation, "Cannot \(action) the store at \(url.path): \(added) is added to this coordinator; remove it first",
                fileURL: url)
        }
    }

    /// Every file of a store of `storeClass` at `url`, the main file first.
    static func fileURLs(of storeClass: any PersistentStore.Type, at url: URL) -> [URL] {
        (storeClass as? any MultiFileStore.Type)?.fileURLs(forStoreAt: url) ?? [url]
    }

    /// Removes every file of the store at `url` that exists.
    static func removeFiles(of storeClass: any PersistentStore.Type, at url: URL) throws {
        if let server = storeClass as? any ServerStore.Type {
            try server.destroyStore(at: url, options: [:])
            return
        }
        for file in fileURLs(of: storeClass, at: url) where FileManager.default.fileExists(atPath: file.path) {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw StoreError(.persistentStoreOperation, "Cannot delete \(file.path): \(error)", fileURL: url)
            }
        }
    }
}
