import Conformance
import Foundation
import JSONFileStore
import StoreCore
import Testing

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

/// Treats a file it cannot read as a new, empty store (and would write over it at save).
final class TrustingStore: JSONFileStore {
    override class var storeType: String { "Trusting" }
    override func load() throws { try? super.load() }
}

/// Reads every object back at row version 1, as if versions were never saved.
final class VersionlessStore: JSONFileStore {
    override class var storeType: String { "Versionless" }
    override func load() throws {
        try super.load()
        for var node in cacheNodes {
            node.version = 1
            addCacheNodes([node])
        }
    }
}

/// Stores doubles with the precision of a Float.
final class TruncatingStore: JSONFileStore {
    override class var storeType: String { "Truncating" }
    override func save() throws {
        for var node in cacheNodes {
            node.attributes = node.attributes.mapValues { value in
                if case .double(let double) = value { return .double(Double(Float(double))) }
                return value
            }
            addCacheNodes([node])
        }
        try super.save()
    }
}

/// Runs the cases of some behaviours on a broken type; returns the failed runs' case names
/// and messages.
private func failures(of type: JSONFileStore.Type, behaviours: Set<Int>) -> [(name: String, message: String)] {
    let registry = StoreRegistry()
    registry.register(type)
    let report = ConformanceSuite.run(
        storeType: type.storeType, registry: registry, cases: ConformanceSuite.allCases.filter { behaviours.contains($0.behaviour) })
    return report.results.compactMap { result in
        if case .failed(let message) = result.outcome { return (result.run.testCase.name, message) }
        return nil
    }
}

@Test func aStoreThatTreatsForeignFilesAsNewFailsTheSuite() throws {
    let failed = failures(of: TrustingStore.self, behaviours: [4])
    let failure = try #require(failed.first { $0.name == "a file of another type fails with 134010 untouched" })
    #expect(failure.message.contains("Trusting"))
    #expect(failure.message.contains("expected error 134010"))
}

@Test func aStoreThatLosesRowVersionsFailsTheSuite() {
    let failed = failures(of: VersionlessStore.self, behaviours: [45])
    #expect(failed.contains { $0.name == "row versions survive reopen" && $0.message.contains("expected 3, got 1") })
}

@Test func aStoreThatTruncatesDoublesFailsTheSuite() {
    let failed = failures(of: TruncatingStore.self, behaviours: [12])
    #expect(failed.contains { $0.name == "every attribute type round-trips exactly" && $0.message.contains("AllTypes.double") })
}

/// The report's columns stay aligned when a case or store name is longer than usual.
@Test func theReportTableFitsLongNames() {
    let registry = StoreRegistry()
    registry.register(JSONFileStore.self, forStoreType: "JSONFile")
    let long = ConformanceCase(
        "a case whose name is much longer than any case name the table was first laid out for", behaviour: 1, area: .lifecycle
    ) { _ in }
    let report = ConformanceSuite.run(storeType: "JSONFile", registry: registry, cases: [long] + ConformanceSuite.allCases.prefix(3))
    let lines = report.table.split(separator: "\n").filter { $0.contains(" | ") }
    let barPositions = Set(lines.map { line in line.indices.filter { line[$0] == "|" }.prefix(4).map { line.distance(from: line.startIndex, to: $0) } })
    #expect(barPositions.count == 1)
    #expect(lines.count == 5)
}

/// A type registered under a name other than its `storeType` fails, saying so.
@Test func aTypeRegisteredUnderAnotherNameFails() throws {
    let registry = StoreRegistry()
    registry.register(JSONFileStore.self, forStoreType: "Renamed")
    let report = ConformanceSuite.run(storeType: "Renamed", registry: registry, cases: Array(ConformanceSuite.allCases.prefix(1)))
    let result = try #require(report.results.first)
    guard case .failed(let message) = result.outcome else {
        Issue.record("expected a failure, got \(result.outcome)")
        return
    }
    #expect(message.contains("its storeType is \"JSONFile\""))
}
