import Conformance
import Foundation
import FuzzSupport
import PersistentStores

/// One InMemory and one SQLite coordinator per data set of the predicate corpus, holding the
/// same objects, and the entities the corpus queries in each.
final class PredicateStores: Sendable {
    /// The stores, made once per process.
    static let shared = PredicateStores()

    struct DataSet: Sendable {
        let name: String
        let inMemory: PersistentStoreCoordinator
        let sqlite: PersistentStoreCoordinator
        /// The object ID in either store → the seed's label.
        let labels: [ObjectID: String]
        let entities: [String]
    }

    let dataSets: [DataSet]

    private init() {
        do {
            let model = try PredicateCorpus.model()
            let registry = StoreRegistry()
            PersistentStores.registerBuiltInStoreTypes(in: registry)
            var entitiesByDataSet: [String: Set<String>] = [:]
            for corpusCase in PredicateCorpus.cases { entitiesByDataSet[corpusCase.dataSet, default: []].insert(corpusCase.entityName) }
            var made: [DataSet] = []
            for (name, seeds) in PredicateCorpus.dataSets.sorted(by: { $0.key < $1.key }) {
                var labels: [ObjectID: String] = [:]
                var coordinators: [PersistentStoreCoordinator] = []
                for type in ["InMemory", "SQLite"] {
                    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
                    let url = AtomicRoundTrip.folder.appendingPathComponent("predicates-\(name).sqlite")
                    AtomicRoundTrip.removeScratchFiles(of: url)
                    try coordinator.addPersistentStore(type: type, at: type == "SQLite" ? url : nil)
                    let permanent = try coordinator.obtainPermanentIDs(for: seeds.map { ObjectID.temporary(entityName: $0.entityName) })
                    var ids: [String: ObjectID] = [:]
                    for (seed, id) in zip(seeds, permanent) {
                        ids[seed.label] = id
                        labels[id] = seed.label
                    }
                    let nodes = try PredicateCorpus.storeNodes(for: seeds, model: model) { ids[$0.label] ?? .temporary(entityName: $0.entityName) }
                    _ = try coordinator.save(SaveChangesRequest(insertedObjects: nodes))
                    coordinators.append(coordinator)
                }
                made.append(DataSet(
                    name: name, inMemory: coordinators[0], sqlite: coordinators[1], labels: labels,
                    entities: (entitiesByDataSet[name] ?? []).sorted()))
            }
            dataSets = made
        } catch {
            // Only a broken corpus or scratch folder gets here, on the first input of a run.
            fatalError("cannot set up the predicate stores: \(error)")
        }
    }

    /// Fetches `predicate` from both stores of every data set and entity; different results
    /// from two stores that both answered are a finding.
    func compare(_ predicate: FetchPredicate, text: String) {
        for dataSet in dataSets {
            for entity in dataSet.entities {
                var request = FetchRequest(entityName: entity, predicate: predicate)
                request.resultType = .objectIDs
                guard case .objectIDs(let memory)? = try? dataSet.inMemory.execute(request),
                    case .objectIDs(let sqlite)? = try? dataSet.sqlite.execute(request)
                else { continue }
                let memoryLabels = Set(memory.compactMap { dataSet.labels[$0] })
                let sqliteLabels = Set(sqlite.compactMap { dataSet.labels[$0] })
                if memoryLabels != sqliteLabels {
                    FuzzDriver.propertyFailed(
                        "\(text.debugDescription) on \(entity) of data set \(dataSet.name): InMemory returns \(memoryLabels.sorted()), SQLite \(sqliteLabels.sorted())")
                }
            }
        }
    }
}
