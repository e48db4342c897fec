import Conformance
import Foundation
import StoreCore
import Testing

/// A minimal persistent atomic store (metadata and attribute values as one JSON file), so the
/// versioning cases run on a store that survives reopen even before the built-in file stores
/// exist.
private final class VersioningTestStore: AtomicStore {
    override class var storeType: String { "VersioningTestJSON" }

    struct File: Codable {
        var metadata: StoreMetadata
        var nodes: [Node]
    }

    struct Node: Codable {
        var objectID: ObjectID
        var attributes: [String: StoreValue]
    }

    override func load() throws {
        guard let url, let data = try? Data(contentsOf: url), !data.isEmpty else { return }
        let file = try JSONDecoder().decode(File.self, from: data)
        metadata = file.metadata
        addCacheNodes(file.nodes.map { StoreNode(objectID: $0.objectID, attributes: $0.attributes) })
    }

    override func save() throws {
        guard let url else { return }
        let file = File(metadata: metadata, nodes: cacheNodes.map { Node(objectID: $0.objectID, attributes: $0.attributes) })
        try JSONEncoder().encode(file).write(to: url, options: .atomic)
    }
}

@Test("Versioning cases (#7, #53) pass on a persistent test store")
func versioningCasesOnAPersistentTestStore() {
    let registry = StoreRegistry()
    registry.register(VersioningTestStore.self)
    let report = ConformanceSuite.run(
        storeType: VersioningTestStore.storeType, registry: registry, cases: ConformanceCatalogue.versioning)
    #expect(report.failed == 0, "\(report.table)")
    #expect(report.skipped == 0, "\(report.table)")
    #expect(report.passed == 4)
}
