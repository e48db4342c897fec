import Conformance
import Foundation
import StoreCore
import StoreTestSupport
import Testing

/// Every row of the predicate corpus (behaviour #38) over a PipeCSV store, after its data went
/// through the file: saved, the coordinator torn down, the store reopened.
@Suite("Predicate corpus after reopen")
struct PredicateCorpusTests {
    static let model: ObjectModel? = try? PredicateCorpus.model()

    @Test(arguments: PredicateCorpus.cases)
    func corpusRowAfterReopen(_ corpusCase: PredicateCorpus.Case) throws {
        let model = try #require(Self.model)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Corpus.txt")
            let pipe = try PipeStore(model: model, url: url)
            let seeds = PredicateCorpus.seeds(for: corpusCase)
            let permanent = try pipe.coordinator.obtainPermanentIDs(for: seeds.map { .temporary(entityName: $0.entityName) })
            var ids: [String: ObjectID] = [:]
            var labels: [ObjectID: String] = [:]
            for (seed, id) in zip(seeds, permanent) {
                ids[seed.label] = id
                labels[id] = seed.label
            }
            let nodes = try PredicateCorpus.storeNodes(for: seeds, model: model) { ids[$0.label] ?? .temporary(entityName: $0.entityName) }
            try pipe.save(inserted: nodes)

            let reopened = try PipeStore(model: model, url: url)
            var request = FetchRequest(entityName: corpusCase.entityName, predicate: try corpusCase.predicate(objectIDs: ids))
            request.resultType = .objectIDs
            guard case .objectIDs(let found) = try reopened.coordinator.execute(request) else {
                Issue.record("expected object IDs")
                return
            }
            #expect(Set(found.compactMap { labels[$0] }) == corpusCase.expected, "\(corpusCase)")
            #expect(found.count == corpusCase.expected.count)
        }
    }
}
