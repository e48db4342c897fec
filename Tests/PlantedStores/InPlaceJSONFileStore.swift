import Foundation
import StoreCore

/// A store planted with a bug for the crash-safety cases to catch: it writes its file in place
/// (truncates it, then writes one JSON line per object as it encodes them) instead of through
/// `AtomicFileWriter`, so a process killed during a save leaves a torn file. Its saves and loads
/// are otherwise right: what it saved, it reads back.
///
/// `crash-saver` registers it, so the crash-safety cases can be run on it.
public final class InPlaceJSONFileStore: AtomicStore {
    /// The registered type name.
    public override class var storeType: String { "InPlaceJSONFile" }

    /// One object; relationships name their destinations as (entity, reference) pairs.
    struct Record: Codable {
        struct Target: Codable { var entity: String; var reference: ReferenceObject }
        var entity: String
        var reference: ReferenceObject
        var version: Int64
        var attributes: [String: StoreValue]
        var toOne: [String: Target]
        var toMany: [String: [Target]]
    }

    /// Reads the metadata line and one object per line; a missing or empty file is a new store.
    public override func load() throws {
        guard let url, FileManager.default.fileExists(atPath: url.path) else { return }
        let data = try Data(contentsOf: url)
        if data.isEmpty { return }
        var lines = data.split(separator: UInt8(ascii: "\n"))
        guard !lines.isEmpty else { return }
        let decoder = JSONDecoder()
        do {
            metadata = try decoder.decode(StoreMetadata.self, from: Data(lines.removeFirst()))
            let records = try lines.map { try decoder.decode(Record.self, from: Data($0)) }
            addCacheNodes(records.map { record in
                StoreNode(
                    objectID: objectID(for: record.entity, referenceObject: record.reference),
                    attributes: record.attributes,
                    toOne: record.toOne.mapValues { objectID(for: $0.entity, referenceObject: $0.reference) },
                    toMany: record.toMany.mapValues { $0.map { objectID(for: $0.entity, referenceObject: $0.reference) } },
                    version: record.version)
            })
        } catch {
            throw StoreError(.persistentStoreOpen, "\(url.path) is damaged: \(error)", fileURL: url)
        }
    }

    /// Writes the metadata and every object. The planted bug: the old file is gone before the
    /// new one is written.
    public override func save() throws {
        guard let url else { return }
        if !FileManager.default.fileExists(atPath: url.path) {
            _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        let encoder = JSONEncoder()
        try handle.write(contentsOf: try encoder.encode(metadata) + Data("\n".utf8))
        func target(_ id: ObjectID) -> Record.Target {
            Record.Target(entity: id.entityName, reference: id.referenceObject ?? .int(0))
        }
        for node in cacheNodes {
            let record = Record(
                entity: node.entityName, reference: node.objectID.referenceObject ?? .int(0), version: node.version,
                attributes: node.attributes,
                toOne: node.toOne.filter { containsCacheNode(for: $0.value) }.mapValues(target),
                toMany: node.toMany.mapValues { $0.filter(containsCacheNode(for:)).map(target) })
            try handle.write(contentsOf: try encoder.encode(record) + Data("\n".utf8))
        }
    }
}
