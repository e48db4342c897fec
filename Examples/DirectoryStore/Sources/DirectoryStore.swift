import Foundation
import StoreCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A complete incremental store type: a folder with one JSON file per object.
///
/// Where `JSONFileStore` (an atomic store) reads everything at once and lets the framework
/// answer every request, this store answers each request itself, as SQLite does, and reads an
/// object's file only when it is asked for:
///
/// - ``execute(_:)`` answers fetches by reading the files of the entities the request matches
///   and handing them to the shared `QueryEngine` (predicate, sort, offset, limit, result
///   type), and applies saves all-or-nothing with optimistic locking on row versions;
/// - ``newValues(forObjectWith:)`` fills a fault from one file;
/// - ``newValue(forRelationship:forObjectWith:)`` fills a to-many fault;
/// - ``obtainPermanentIDs(for:)`` mints integer references, one counter per inheritance tree.
///
/// ```swift
/// StoreRegistry.shared.register(DirectoryStore.self)            // as "Directory"
/// try coordinator.addPersistentStore(type: "Directory", at: folderURL)
/// ```
///
/// The layout is described in `DirectoryLayout`: `metadata.json` and `<Entity>/<n>.json`.
/// `metadata.json` is replaced through `AtomicFileWriter`. Object files are each written to a
/// temporary file and renamed over the old one, so no file is ever half-written, and the files
/// and folders of one save are flushed to disk together at its end (one flush per file, as
/// `AtomicFileWriter` does, would make a save of a thousand objects take seconds). A save
/// checks everything before it writes anything, but the files of one save are renamed one after
/// the other, so a crash in the middle of a save can leave part of it on disk (a journal would
/// close that gap; the SQLite store has one).
///
/// A to-many relationship whose inverse is a to-one (`team.players`) is not stored: it is the
/// set of objects whose to-one points here, answered from an index built on first use. Other
/// to-manys (many-to-many, ordered, without an inverse) are stored in the object's file.
///
/// The store keeps the objects it has read in memory: it assumes it is the only writer of its
/// folder while it is added (it does not declare `StoreCapabilities.multiProcess`).
open class DirectoryStore: IncrementalStore {
    /// The registered type name, written as `NSStoreType`.
    open class var storeType: String { "Directory" }
    /// Persistent, incremental, honours read-only, keeps row versions in the object files.
    open class var capabilities: StoreCapabilities { [.persistent, .incremental, .readOnly, .persistentRowVersions] }

    /// The coordinator's model.
    public let model: ObjectModel
    /// The configuration the store holds.
    public let configurationName: String?
    /// The store folder.
    public let url: URL?
    /// The options given when the store was added.
    public let options: StoreOptions
    /// Whether saves are refused.
    public let isReadOnly: Bool
    /// The metadata; written to `metadata.json` at the next save.
    public var metadata: StoreMetadata

    /// The store identifier: the metadata's `NSStoreUUID`.
    public var identifier: String { metadata[MetadataKey.storeUUID]?.stringValue ?? "" }

    /// Where the files of the store folder are.
    let layout: DirectoryLayout

    /// The objects read so far (or saved), per entity, by primary key.
    private var objects: [String: [Int64: StoreNode]] = [:]
    /// The entities whose folder has been read completely.
    private var loadedEntities: Set<String> = []
    /// The last primary key handed out, per root entity.
    private var lastPrimaryKey: [String: Int64] = [:]
    /// entity → the to-many relationships answered from their inverse to-one.
    private let derivedToMany: [String: Set<String>]
    /// "<destination entity>.<to-one>" → destination object → sources, built on first use and
    /// dropped at each save.
    private var inverseIndex: [String: [ObjectID: [ObjectID]]] = [:]
    /// Whether the URL is a zero-length file (a new store) that the first save replaces with
    /// the folder.
    private var replacesEmptyFile = false

    /// Creates the store object; ``loadMetadata()`` then reads the folder.
    public required init(model: ObjectModel, configurationName: String?, url: URL?, options: StoreOptions) throws {
        guard let url else {
            throw StoreError(.persistentStoreOperation, "A \(Self.storeType) store needs the URL of a folder")
        }
        self.model = model
        self.configurationName = configurationName
        self.url = url
        self.layout = DirectoryLayout(root: url)
        self.options = options
        self.isReadOnly = Self.isReadOnly(options: options)
        self.metadata = Self.standardMetadata(identifier: UUID().uuidString, model: model)
        var derived: [String: Set<String>] = [:]
        for entity in model.entityNames {
            for relationship in model.relationships(of: entity) where relationship.isToMany && !relationship.isOrdered {
                if let inverse = model.inverse(of: relationship), !inverse.isToMany {
                    derived[entity, default: []].insert(relationship.name)
                }
            }
        }
        self.derivedToMany = derived
    }


    // MARK: Opening

    /// Reads `metadata.json`. A missing folder, an empty folder or a zero-length file is a new
    /// store (nothing is written until the first save); anything else that is not a Directory
    /// store (a file, a folder of other files, another store type's metadata) fails with 134010
    /// and is left untouched.
    open func loadMetadata() throws {
        switch try Self.inspect(layout) {
        case .missing, .emptyFolder:
            return
        case .emptyFile:
            replacesEmptyFile = true
        case .store(let stored):
            metadata = stored
        }
    }

    /// What is at a store URL.
    private enum Found {
        case missing, emptyFile, emptyFolder
        case store(StoreMetadata)
    }

    private static func inspect(_ layout: DirectoryLayout) throws -> Found {
        let path = layout.root.path
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: layout.root.resolvingSymlinksInPath().path)
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return .missing }
            throw StoreError(.persistentStoreOpen, "\(path) cannot be examined: \(error)", fileURL: layout.root)
        }
        let type = attributes[.type] as? FileAttributeType
        if type == .typeRegular {
            if (attributes[.size] as? NSNumber)?.intValue == 0 { return .emptyFile }
            throw StoreError(
                .persistentStoreTypeMismatch, "\(path) is a file, not a \(storeType) store (a folder)", fileURL: layout.root)
        }
        guard type == .typeDirectory else {
            throw StoreError(.persistentStoreOpen, "\(path) is neither a folder nor a file, not a \(storeType) store", fileURL: layout.root)
        }
        guard FileManager.default.fileExists(atPath: layout.metadataFile.path) else {
            let contents: [String]
            do {
                contents = try FileManager.default.contentsOfDirectory(atPath: path)
            } catch {
                throw StoreError(.persistentStoreOpen, "\(path): the folder cannot be listed: \(error)", fileURL: layout.root)
            }
            if contents.isEmpty { return .emptyFolder }
            throw StoreError(
                .persistentStoreTypeMismatch,
                "\(path) holds files but no \(DirectoryLayout.metadataFileName): not a \(storeType) store", fileURL: layout.root)
        }
        return .store(try readMetadata(layout))
    }

    private static func readMetadata(_ layout: DirectoryLayout) throws -> StoreMetadata {
        let file = layout.metadataFile
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw StoreError(.persistentStoreOpen, "\(file.path) cannot be read: \(error)", fileURL: file)
        }
        guard let decoded = try? JSONDecoder().decode(DirectoryLayout.MetadataFile.self, from: data),
            decoded.format == DirectoryLayout.format
        else {
            throw StoreError(.persistentStoreTypeMismatch, "\(file.path) is not the metadata of a \(storeType) store", fileURL: file)
        }
        let type = decoded.metadata[MetadataKey.storeType]?.stringValue
        guard type == storeType else {
            throw StoreError(
                .persistentStoreTypeMismatch,
                "\(layout.root.path) is a \(type ?? "untyped") store, not a \(storeType) store", fileURL: layout.root)
        }
        return decoded.metadata
    }

    /// Reads the metadata of the store at `url` without adding it.
    open class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        let layout = DirectoryLayout(root: url)
        guard case .store(let metadata) = try inspect(layout) else {
            throw StoreError(.persistentStoreOperation, "\(url.path) holds no \(storeType) store yet", fileURL: url)
        }
        return metadata
    }

    /// Replaces the metadata of the store at `url` without adding it (`NSStoreType` and
    /// `NSStoreUUID` are kept).
    open class func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        let layout = DirectoryLayout(root: url)
        guard case .store(let stored) = try inspect(layout) else {
            throw StoreError(.persistentStoreOperation, "\(url.path) holds no \(storeType) store yet", fileURL: url)
        }
        var updated = metadata
        updated[MetadataKey.storeType] = stored[MetadataKey.storeType]
        updated[MetadataKey.storeUUID] = stored[MetadataKey.storeUUID]
        try writeMetadata(updated, layout)
    }

    private static func writeMetadata(_ metadata: StoreMetadata, _ layout: DirectoryLayout) throws {
        try AtomicFileWriter.write(
            try DirectoryLayout.encoder().encode(DirectoryLayout.MetadataFile(metadata: metadata)), to: layout.metadataFile)
    }

    // MARK: Requests

    /// Answers a fetch with the shared `QueryEngine` over the files of the matching entities,
    /// or applies a save. Batch requests are refused with 134091 (the store does not declare
    /// `StoreCapabilities.batchRequests`, so the coordinator never sends them).
    open func execute(_ request: StoreRequest) throws -> StoreResult {
        switch request {
        case .fetch(let fetch):
            var nodes: [StoreNode] = []
            for entity in fetch.matchingEntityNames(in: model) where holds(entityName: entity) {
                nodes += try allNodes(of: entity)
            }
            let graph = NodeGraph(
                model: model, node: { [self] id in try existingNode(for: id) },
                relatedObjectIDs: { [self] name, id in try newValue(forRelationship: name, forObjectWith: id) })
            return try QueryEngine.execute(fetch, over: nodes, graph: graph)
        case .save(let save):
            return .saved(versions: try apply(save))
        case .batchUpdate, .batchDelete, .batchInsert:
            throw StoreError(
                .persistentStoreUnsupportedRequestType,
                "The \(Self.storeType) store does not run batch requests (it lacks the batchRequests capability)")
        }
    }

    /// The values of one object, read from its file; 133000 when there is none. To-manys
    /// answered from their inverse are left out (faults the coordinator fills through
    /// ``newValue(forRelationship:forObjectWith:)``).
    open func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode {
        try node(for: objectID)
    }

    /// The destinations of one relationship of one object: the stored list, or the objects
    /// whose inverse to-one points at it, in a stable order.
    open func newValue(forRelationship relationshipName: String, forObjectWith objectID: ObjectID) throws -> [ObjectID] {
        let node = try node(for: objectID)
        if let id = node.toOne[relationshipName] { return [id] }
        if let stored = node.toMany[relationshipName] { return stored }
        guard derivedToMany[objectID.entityName]?.contains(relationshipName) == true,
            let relationship = model.relationship(relationshipName, of: objectID.entityName),
            let inverse = relationship.inverseName
        else { return [] }
        return try inverseSources(relationship.destinationEntityName, inverse)[objectID] ?? []
    }

    /// Integer references, one counter per inheritance tree, in the order given.
    open func obtainPermanentIDs(for objectIDs: [ObjectID]) throws -> [ObjectID] {
        try objectIDs.map { id in
            guard let root = model.rootEntityName(of: id.entityName) else {
                throw StoreError(.coreData, "The model has no entity named \(id.entityName)", entityName: id.entityName)
            }
            let next = try lastKey(ofTree: root) + 1
            lastPrimaryKey[root] = next
            return newObjectID(for: id.entityName, referenceObject: .int(next))
        }
    }

    // MARK: Reading

    /// The primary key of an ID of this store.
    private func primaryKey(of objectID: ObjectID) -> Int64? {
        guard case .int(let key)? = referenceObject(for: objectID), key > 0 else { return nil }
        return key
    }

    /// One object, from memory or its file; 133000 when it does not exist.
    private func node(for objectID: ObjectID) throws -> StoreNode {
        guard let key = primaryKey(of: objectID), model.entity(named: objectID.entityName) != nil else {
            throw missing(objectID)
        }
        if let node = objects[objectID.entityName]?[key] { return node }
        if loadedEntities.contains(objectID.entityName) { throw missing(objectID) }
        let file = layout.file(of: objectID.entityName, primaryKey: key)
        guard FileManager.default.fileExists(atPath: file.path) else { throw missing(objectID) }
        let node = try readNode(objectID.entityName, key)
        objects[objectID.entityName, default: [:]][key] = node
        return node
    }

    /// One object, or nil when it does not exist; a file that cannot be read is still an error.
    private func existingNode(for objectID: ObjectID) throws -> StoreNode? {
        do {
            return try node(for: objectID)
        } catch let error as StoreError where error.code == .managedObjectReferentialIntegrity {
            return nil
        }
    }

    /// Every object of one entity (not its sub-entities), in primary-key order.
    private func allNodes(of entity: String) throws -> [StoreNode] {
        if !loadedEntities.contains(entity) {
            var table = objects[entity] ?? [:]
            for key in try layout.primaryKeys(of: entity) where table[key] == nil {
                table[key] = try readNode(entity, key)
            }
            objects[entity] = table
            loadedEntities.insert(entity)
        }
        return (objects[entity] ?? [:]).sorted { $0.key < $1.key }.map(\.value)
    }

    /// Decodes one object file; a file that is not one is a 134080 error naming it.
    private func readNode(_ entity: String, _ key: Int64) throws -> StoreNode {
        let url = layout.file(of: entity, primaryKey: key)
        let record: DirectoryLayout.ObjectFile
        do {
            record = try JSONDecoder().decode(DirectoryLayout.ObjectFile.self, from: Data(contentsOf: url))
        } catch {
            throw StoreError(
                .persistentStoreOpen, "\(url.path): not a \(Self.storeType) object file: \(error)", fileURL: url,
                entityName: entity)
        }
        func id(_ path: String, _ key: String) throws -> ObjectID {
            guard let (entity, reference) = DirectoryLayout.parse(path: path), model.entity(named: entity) != nil else {
                throw StoreError(
                    .persistentStoreOpen, "\(url.path): relationship \(key) names \"\(path)\", not an object of the model",
                    fileURL: url, entityName: entity, propertyName: key)
            }
            return newObjectID(for: entity, referenceObject: .int(reference))
        }
        var toOne: [String: ObjectID] = [:]
        for (name, path) in record.toOne { toOne[name] = try id(path, name) }
        var toMany: [String: [ObjectID]] = [:]
        for (name, paths) in record.toMany { toMany[name] = try paths.map { try id($0, name) } }
        return StoreNode(
            objectID: newObjectID(for: entity, referenceObject: .int(key)), attributes: record.attributes, toOne: toOne,
            toMany: toMany, version: record.version)
    }

    /// destination object → the objects whose to-one `inverse` points at it.
    private func inverseSources(_ sourceEntity: String, _ inverse: String) throws -> [ObjectID: [ObjectID]] {
        let key = "\(sourceEntity).\(inverse)"
        if let index = inverseIndex[key] { return index }
        var index: [ObjectID: [ObjectID]] = [:]
        for entity in model.entityAndDescendants(sourceEntity) where holds(entityName: entity) {
            for node in try allNodes(of: entity) {
                if let destination = node.toOne[inverse] { index[destination, default: []].append(node.objectID) }
            }
        }
        for destination in index.keys {
            index[destination]?.sort { StoreValue.compare(.objectID($0), .objectID($1)) == .orderedAscending }
        }
        inverseIndex[key] = index
        return index
    }

    /// The largest primary key used in an inheritance tree (0 for none).
    private func lastKey(ofTree root: String) throws -> Int64 {
        if let last = lastPrimaryKey[root] { return last }
        var last: Int64 = 0
        for entity in model.entityAndDescendants(root) {
            last = max(last, try layout.primaryKeys(of: entity).last ?? 0)
        }
        lastPrimaryKey[root] = last
        return last
    }

    private func missing(_ objectID: ObjectID) -> StoreError {
        StoreError(
            .managedObjectReferentialIntegrity, "Object \(objectID) does not exist in the \(Self.storeType) store at \(layout.root.path)",
            objectIDs: [objectID], entityName: objectID.entityName)
    }

    // MARK: Saving

    /// Checks the whole save first (read-only, conflicts, IDs), then writes the metadata and
    /// one file per inserted or updated object and removes the files of deleted ones.
    private func apply(_ save: SaveChangesRequest) throws -> [ObjectID: Int64] {
        if isReadOnly {
            if save.isEmpty { return [:] }
            throw StoreError(.persistentStoreOperation, "The \(Self.storeType) store at \(layout.root.path) is read-only", fileURL: url)
        }
        var conflicts: [ObjectID] = []
        var current: [ObjectID: StoreNode] = [:]
        for node in save.updatedObjects + save.deletedObjects {
            guard let stored = try existingNode(for: node.objectID), stored.version == node.version else {
                conflicts.append(node.objectID)
                continue
            }
            current[node.objectID] = stored
        }
        if !conflicts.isEmpty {
            throw StoreError(
                .managedObjectMerge,
                "Optimistic locking failure: \(conflicts.count) object(s) were changed or deleted since they were read",
                objectIDs: conflicts)
        }
        for node in save.insertedObjects {
            guard let key = primaryKey(of: node.objectID),
                objects[node.entityName]?[key] == nil,
                !FileManager.default.fileExists(atPath: layout.file(of: node.entityName, primaryKey: key).path)
            else {
                throw StoreError(
                    .persistentStoreSave, "Object \(node.objectID) cannot be inserted into the \(Self.storeType) store at \(layout.root.path)",
                    objectIDs: [node.objectID])
            }
            lastPrimaryKey[model.rootEntityName(of: node.entityName) ?? node.entityName] = max(
                try lastKey(ofTree: model.rootEntityName(of: node.entityName) ?? node.entityName), key)
        }

        var written: [StoreNode] = []
        var versions: [ObjectID: Int64] = [:]
        for var node in save.insertedObjects {
            node.version = 1
            written.append(node)
        }
        for var node in save.updatedObjects {
            guard let stored = current[node.objectID] else { continue }
            for (key, value) in stored.toMany where node.toMany[key] == nil { node.toMany[key] = value }
            node.version = stored.version + 1
            written.append(node)
        }
        do {
            try prepareFolder()
            try Self.writeMetadata(metadata, layout)
            var touched: Set<URL> = []
            defer { Self.flush(touched) }
            for var node in written {
                for name in derivedToMany[node.entityName] ?? [] { node.toMany[name] = nil }
                if let file = try write(node) { touched.formUnion([file, file.deletingLastPathComponent()]) }
                if let key = primaryKey(of: node.objectID) { objects[node.entityName, default: [:]][key] = node }
                versions[node.objectID] = node.version
            }
            for node in save.deletedObjects {
                guard let key = primaryKey(of: node.objectID) else { continue }
                let file = layout.file(of: node.entityName, primaryKey: key)
                do {
                    try FileManager.default.removeItem(at: file)
                } catch {
                    throw StoreError(.persistentStoreSave, "\(file.path) cannot be removed: \(error)", objectIDs: [node.objectID], fileURL: file)
                }
                objects[node.entityName]?[key] = nil
                touched.insert(file.deletingLastPathComponent())
            }
        } catch {
            // Part of the save may be on disk: forget what was read so the next request reads
            // the files as they are.
            objects = [:]
            loadedEntities = []
            inverseIndex = [:]
            throw error
        }
        inverseIndex = [:]
        return versions
    }

    /// Creates the store folder (replacing the zero-length file a new store was opened on).
    private func prepareFolder() throws {
        let root = layout.root
        if replacesEmptyFile {
            let attributes = try? FileManager.default.attributesOfItem(atPath: root.path)
            if (attributes?[.size] as? NSNumber)?.intValue == 0 { try? FileManager.default.removeItem(at: root) }
            replacesEmptyFile = false
        }
        do {
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.persistentStoreSave, "\(root.path): the store folder cannot be created: \(error)", fileURL: root)
        }
    }

    /// Writes one object's file (creating its entity's folder) and returns it.
    private func write(_ node: StoreNode) throws -> URL? {
        guard let key = primaryKey(of: node.objectID) else { return nil }
        let folder = layout.folder(of: node.entityName)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw StoreError(.persistentStoreSave, "\(folder.path) cannot be created: \(error)", fileURL: folder)
        }
        let record = DirectoryLayout.ObjectFile(
            version: node.version, attributes: node.attributes, toOne: node.toOne.mapValues(DirectoryLayout.path(of:)),
            toMany: node.toMany.mapValues { $0.map(DirectoryLayout.path(of:)) })
        let file = layout.file(of: node.entityName, primaryKey: key)
        do {
            try DirectoryLayout.encoder().encode(record).write(to: file, options: .atomic)
        } catch {
            throw StoreError(
                .persistentStoreSave, "\(file.path) cannot be written: \(error)", objectIDs: [node.objectID], fileURL: file,
                entityName: node.entityName)
        }
        return file
    }

    /// Flushes files and folders to disk (`fsync`), so a save that returned survives a power
    /// loss. Best effort: a path that cannot be opened any more is skipped.
    private static func flush(_ paths: Set<URL>) {
        for path in paths {
            let descriptor = open(path.path, O_RDONLY)
            guard descriptor >= 0 else { continue }
            _ = fsync(descriptor)
            _ = close(descriptor)
        }
    }
}
