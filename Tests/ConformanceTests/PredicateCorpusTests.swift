import Conformance
import Foundation
import PersistentStores
import StoreCore
import Testing

/// An atomic store that keeps its cache nodes in memory only.
final class CorpusAtomicStore: AtomicStore {
    override class var storeType: String { "CorpusAtomic" }
    override class var capabilities: StoreCapabilities { [.noURL] }
    override func load() throws {}
    override func save() throws {}
}

/// Runs every row of the predicate corpus through the query engine over store nodes, and through
/// a coordinator with an atomic store.
@Suite struct PredicateCorpusTests {
    static let model: ObjectModel? = try? PredicateCorpus.model()

    struct Fixture {
        let nodes: [StoreNode]
        let ids: [String: ObjectID]
        let labels: [ObjectID: String]
        let graph: NodeGraph
    }

    static func fixture(_ corpusCase: PredicateCorpus.Case, model: ObjectModel) throws -> Fixture {
        let seeds = PredicateCorpus.seeds(for: corpusCase)
        let nodes = try PredicateCorpus.storeNodes(for: seeds, model: model) { seed in
            ObjectID(storeIdentifier: "CORPUS", entityName: seed.entityName, reference: .string(seed.label))
        }
        var ids: [String: ObjectID] = [:]
        var labels: [ObjectID: String] = [:]
        for (seed, node) in zip(seeds, nodes) {
            ids[seed.label] = node.objectID
            labels[node.objectID] = seed.label
        }
        return Fixture(nodes: nodes, ids: ids, labels: labels, graph: NodeGraph(nodes: nodes, model: model))
    }

    @Test("Every corpus row through QueryEngine", arguments: PredicateCorpus.cases)
    func corpusRow(_ corpusCase: PredicateCorpus.Case) throws {
        let model = try #require(Self.model)
        let fixture = try Self.fixture(corpusCase, model: model)
        var request = FetchRequest(entityName: corpusCase.entityName, predicate: try corpusCase.predicate(objectIDs: fixture.ids))
        request.resultType = .objectIDs
        let candidates = fixture.nodes.filter { $0.entityName == corpusCase.entityName }
        guard case .objectIDs(let found) = try QueryEngine.execute(request, over: candidates, graph: fixture.graph) else {
            Issue.record("expected object IDs")
            return
        }
        let labels = Set(found.compactMap { fixture.labels[$0] })
        #expect(labels == corpusCase.expected, "\(corpusCase)")
        #expect(found.count == corpusCase.expected.count, "duplicates in \(corpusCase)")

        request.resultType = .count
        #expect(try QueryEngine.execute(request, over: candidates, graph: fixture.graph) == .count(corpusCase.expected.count))
    }

    @Test("Every corpus row through a coordinator and a store", arguments: ["CorpusAtomic", "InMemory"], PredicateCorpus.cases)
    func corpusRowThroughCoordinator(_ storeType: String, _ corpusCase: PredicateCorpus.Case) throws {
        let model = try #require(Self.model)
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        registry.register(CorpusAtomicStore.self)
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        try coordinator.addPersistentStore(type: storeType)
        let seeds = PredicateCorpus.seeds(for: corpusCase)
        let permanent = try coordinator.obtainPermanentIDs(for: seeds.map { ObjectID.temporary(entityName: $0.entityName) })
        var ids: [String: ObjectID] = [:]
        var labels: [ObjectID: String] = [:]
        for (seed, id) in zip(seeds, permanent) {
            ids[seed.label] = id
            labels[id] = seed.label
        }
        let nodes = try PredicateCorpus.storeNodes(for: seeds, model: model) { ids[$0.label] ?? .temporary(entityName: $0.entityName) }
        _ = try coordinator.save(SaveChangesRequest(insertedObjects: nodes))
        var request = FetchRequest(entityName: corpusCase.entityName, predicate: try corpusCase.predicate(objectIDs: ids))
        request.resultType = .objectIDs
        guard case .objectIDs(let found) = try coordinator.execute(request) else {
            Issue.record("expected object IDs")
            return
        }
        #expect(Set(found.compactMap { labels[$0] }) == corpusCase.expected, "\(storeType) \(corpusCase)")
        #expect(found.count == corpusCase.expected.count)
        request.resultType = .count
        #expect(try coordinator.execute(request) == .count(corpusCase.expected.count))
    }

    @Test("The formatted predicate of every corpus row parses back to the same predicate", arguments: PredicateCorpus.cases)
    func corpusRoundTrip(_ corpusCase: PredicateCorpus.Case) throws {
        let model = try #require(Self.model)
        let fixture = try Self.fixture(corpusCase, model: model)
        let predicate = try corpusCase.predicate(objectIDs: fixture.ids)
        #expect(try FetchPredicate(format: predicate.predicateFormat) == predicate)
    }

    @Test func dataSetsReferToKnownLabelsAndEveryDataSetIsUsed() throws {
        let model = try #require(Self.model)
        for (name, seeds) in PredicateCorpus.dataSets {
            let labels = seeds.map(\.label)
            #expect(Set(labels).count == labels.count, "duplicate labels in \(name)")
            _ = try PredicateCorpus.storeNodes(for: seeds, model: model) {
                ObjectID(storeIdentifier: "S", entityName: $0.entityName, reference: .string($0.label))
            }
            #expect(PredicateCorpus.cases.contains { $0.dataSet == name }, "data set \(name) unused")
        }
        for corpusCase in PredicateCorpus.cases {
            let labels = Set(PredicateCorpus.seeds(for: corpusCase).map(\.label))
            #expect(corpusCase.expected.isSubset(of: labels), "\(corpusCase)")
        }
    }
}
