import Conformance
import Foundation
import JSONFileStore
import StoreCore
import Testing

/// The example store passes the whole conformance suite.
@Test func jsonFileStorePassesTheConformanceSuite() {
    let registry = StoreRegistry()
    registry.register(JSONFileStore.self)
    let report = ConformanceSuite.run(storeType: "JSONFile", registry: registry)
    print(report.table)
    for result in report.results {
        if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
    }
    #expect(report.failed == 0)
    #expect(report.passed > 0)
}

/// A deliberately broken store: it forgets every relationship when it writes the file.
final class ForgetfulStore: JSONFileStore {
    override class var storeType: String { "Forgetful" }

    override func save() throws {
        let nodes = cacheNodes
        for var node in nodes {
            node.toOne = [:]
            node.toMany = node.toMany.mapValues { _ in [] }
            addCacheNodes([node])
        }
        try super.save()
    }
}

/// Breaking a store makes the relationship cases fail, each message naming the case, the store
/// and the difference.
@Test func aStoreThatDropsRelationshipsFailsTheRelationshipCases() throws {
    let registry = StoreRegistry()
    registry.register(ForgetfulStore.self)
    let report = ConformanceSuite.run(storeType: "Forgetful", registry: registry)
    let failures = report.results.compactMap { result -> (ConformanceRun, String)? in
        if case .failed(let message) = result.outcome { return (result.run, message) }
        return nil
    }
    let failedBehaviours = Set(failures.map(\.0.testCase.behaviour))
    #expect(failedBehaviours.isSuperset(of: [18, 21]))
    let cascade = try #require(failures.first { $0.0.testCase.behaviour == 21 })
    #expect(cascade.1.contains("Forgetful"))
    #expect(cascade.1.contains(cascade.0.testCase.name))
    #expect(cascade.1.contains("expected"))
    #expect(report.table.contains("Forgetful:"))
}
