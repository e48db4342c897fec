import Foundation
import StoreCore

/// Where a ``DirectoryStore`` keeps what, and the two JSON file formats it writes.
///
/// ```text
/// <store folder>/
///   metadata.json            {"format": "PersistentStores.Directory", "metadata": {…}}
///   <Entity>/<n>.json        one object: {"version": 3, "attributes": {…}, "toOne": {…}, "toMany": {…}}
/// ```
///
/// `<n>` is the object's integer reference (Core Data's `Z_PK`), unique per inheritance tree.
/// Relationships name their destinations as `"<Entity>/<n>"`.
struct DirectoryLayout {
    /// The format marker of `metadata.json`: a folder whose `metadata.json` lacks it is not a
    /// Directory store.
    static let format = "PersistentStores.Directory"
    /// The name of the metadata file.
    static let metadataFileName = "metadata.json"

    /// The store folder.
    let root: URL

    /// `<root>/metadata.json`.
    var metadataFile: URL { root.appendingPathComponent(Self.metadataFileName) }

    /// The folder of one entity's objects.
    func folder(of entityName: String) -> URL { root.appendingPathComponent(entityName, isDirectory: true) }

    /// The file of one object.
    func file(of entityName: String, primaryKey: Int64) -> URL {
        folder(of: entityName).appendingPathComponent("\(primaryKey).json")
    }

    /// The primary keys of the objects of one entity, ascending (insertion order). Files that
    /// are not `<n>.json` (such as the atomic writer's temporary files) are not objects.
    func primaryKeys(of entityName: String) throws -> [Int64] {
        let folder = folder(of: entityName)
        guard FileManager.default.fileExists(atPath: folder.path) else { return [] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            throw StoreError(.persistentStoreOpen, "\(folder.path): the folder cannot be listed: \(error)", fileURL: folder)
        }
        return names.compactMap { name -> Int64? in
            guard name.hasSuffix(".json"), let key = Int64(name.dropLast(5)), key > 0 else { return nil }
            return key
        }.sorted()
    }

    /// `metadata.json`.
    struct MetadataFile: Codable {
        var format = DirectoryLayout.format
        var metadata: StoreMetadata
    }

    /// One object file. The object's ID is its path; the file holds the rest of its node.
    struct ObjectFile: Codable {
        var version: Int64
        var attributes: [String: StoreValue]
        var toOne: [String: String]
        var toMany: [String: [String]]
    }

    /// `"<Entity>/<n>"` for an object ID of the store.
    static func path(of objectID: ObjectID) -> String {
        "\(objectID.entityName)/\(objectID.referenceObject?.description ?? "")"
    }

    /// The entity and primary key of a `"<Entity>/<n>"` path; nil when malformed.
    static func parse(path: String) -> (entity: String, primaryKey: Int64)? {
        guard let slash = path.lastIndex(of: "/"), let key = Int64(path[path.index(after: slash)...]), key > 0 else {
            return nil
        }
        let entity = String(path[..<slash])
        return entity.isEmpty ? nil : (entity, key)
    }

    /// A JSON encoder with sorted keys, so a file's bytes depend only on its content.
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }
}
