import Foundation
import StoreCore

/// A complete custom store type: every object of the store in one JSON file.
///
/// It subclasses `AtomicStore`, so it only turns its cache nodes into bytes and back: the
/// framework answers fetches, mints reference objects, applies saves to the cache and calls
/// `save()` once per context save (and not at all when nothing changed).
///
/// ```swift
/// StoreRegistry.shared.register(JSONFileStore.self)          // as "JSONFile"
/// try coordinator.addPersistentStore(type: "JSONFile", at: url)
/// ```
open class JSONFileStore: AtomicStore {
    /// The registered type name.
    open override class var storeType: String { "JSONFile" }
    /// An atomic store's capabilities, and row versions kept in the file.
    open override class var capabilities: StoreCapabilities { super.capabilities.union(.persistentRowVersions) }

    /// The file: the metadata and one record per object.
    struct File: Codable {
        var format = "PersistentStores.JSONFile"
        var metadata: StoreMetadata
        var objects: [Record]
    }

    /// One object; relationships name their destinations as (entity, reference) pairs.
    struct Record: Codable {
        struct Target: Codable { var entity: String; var reference: ReferenceObject }
        var entity: String
        var reference: ReferenceObject
        /// The row version (absent in files written before versions were kept: 1).
        var version: Int64?
        var attributes: [String: StoreValue]
        var toOne: [String: Target]
        var toMany: [String: [Target]]
    }

    /// Reads the file into cache nodes; a missing or empty file is a new store. A FIFO, a
    /// device or a folder is refused before it is opened (134080), a file that cannot be read
    /// is an error (never a new store that the next save would write over), and a file of
    /// another format is 134010.
    open override func load() throws {
        guard let url else { return }
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: Self.storeType)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        let data = try Self.read(url)
        if data.isEmpty { return }
        let file = try Self.decode(data, url: url)
        metadata = file.metadata
        addCacheNodes(file.objects.map { record in
            StoreNode(
                objectID: objectID(for: record.entity, referenceObject: record.reference),
                attributes: record.attributes,
                toOne: record.toOne.mapValues { objectID(for: $0.entity, referenceObject: $0.reference) },
                toMany: record.toMany.mapValues { $0.map { objectID(for: $0.entity, referenceObject: $0.reference) } },
                version: record.version ?? 1)
        })
    }

    /// Writes every cache node and the metadata, replacing the file atomically.
    open override func save() throws {
        guard let url else { return }
        func target(_ id: ObjectID) -> Record.Target {
            Record.Target(entity: id.entityName, reference: id.referenceObject ?? .int(0))
        }
        // Only references the cache holds are written (a No Action delete leaves dangling ones
        // in memory), so the file always loads.
        let records = cacheNodes.map { node in
            Record(
                entity: node.entityName, reference: node.objectID.referenceObject ?? .int(0), version: node.version,
                attributes: node.attributes,
                toOne: node.toOne.filter { containsCacheNode(for: $0.value) }.mapValues(target),
                toMany: node.toMany.mapValues { $0.filter(containsCacheNode(for:)).map(target) })
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFileWriter.write(try encoder.encode(File(metadata: metadata, objects: records)), to: url)
    }

    /// Reads the metadata without adding the store.
    open override class func metadata(forStoreAt url: URL, options: StoreOptions) throws -> StoreMetadata {
        try decode(try read(url), url: url).metadata
    }

    /// Replaces the metadata without adding the store.
    open override class func setMetadata(_ metadata: StoreMetadata, forStoreAt url: URL, options: StoreOptions) throws {
        var file = try decode(try read(url), url: url)
        file.metadata = metadata
        try AtomicFileWriter.write(try JSONEncoder().encode(file), to: url)
    }

    /// The bytes of the file, or a 134080 error naming it.
    static func read(_ url: URL) throws -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw StoreError(.persistentStoreOpen, "\(url.path) cannot be read: \(error)", fileURL: url)
        }
    }

    /// Decodes a store file; anything else is a type mismatch (134010).
    static func decode(_ data: Data, url: URL) throws -> File {
        guard let file = try? JSONDecoder().decode(File.self, from: data), file.format == "PersistentStores.JSONFile" else {
            throw StoreError(.persistentStoreTypeMismatch, "\(url.path) is not a \(storeType) store", fileURL: url)
        }
        return file
    }
}
