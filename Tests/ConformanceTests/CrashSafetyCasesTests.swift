import Conformance
import Foundation
import JSONFileStore
import PersistentStores
import PlantedStores
import StoreTestSupport
import Testing

/// The conformance suite's crash-safety cases (#56) with `crash-saver` as the child: every
/// built-in file store and the example JSONFile store pass them, and a store planted with the
/// bug they exist for — it writes its file in place — fails them.
@Suite("Crash-safety cases", .enabled(if: CrashTestHarness.saver != nil, "the crash-saver executable was not found beside the tests"))
struct CrashSafetyCasesTests {
    /// The store types crash-saver registers, in this process too (for the cases' final load).
    static let registry: StoreRegistry = {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        registry.register(JSONFileStore.self)
        registry.register(InPlaceJSONFileStore.self)
        return registry
    }()

    static let runs: [ConformanceRun] = {
        guard let saver = CrashTestHarness.saver else { return [] }
        let cases = ConformanceSuite.crashSafetyCases(child: saver)
        return ["SQLite", "Binary", "XML", "PipeCSV", "JSONFile"].flatMap { ConformanceSuite.runs(storeType: $0, cases: cases) }
    }()

    @Test(arguments: runs)
    func fileStoresPass(_ run: ConformanceRun) {
        let result = run.execute(registry: Self.registry)
        if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
        #expect(result.outcome == .passed)
    }

    @Test func theCasesAreCrashSafetyCasesOfBehaviour56() throws {
        let saver = try #require(CrashTestHarness.saver)
        let cases = ConformanceSuite.crashSafetyCases(child: saver, kills: 3)
        #expect(cases.count == 2)
        #expect(cases.allSatisfy { $0.area == .crashSafety && $0.behaviour == 56 && $0.requires == .persistent })
        // Not part of the cases that need no executable.
        #expect(Set(ConformanceSuite.allCases.map(\.name)).isDisjoint(with: cases.map(\.name)))
    }

    @Test func aStoreThatWritesInPlaceFails() throws {
        let saver = try #require(CrashTestHarness.saver)
        let killTest = try #require(ConformanceSuite.crashSafetyCases(child: saver, kills: 30).first)
        let result = ConformanceRun(storeType: "InPlaceJSONFile", testCase: killTest, variant: .fromCache)
            .execute(registry: Self.registry)
        guard case .failed(let message) = result.outcome else {
            Issue.record("the in-place store passed the crash-safety case: \(result.outcome)")
            return
        }
        #expect(message.contains("was not one whole generation"), "\(message)")
    }

    @Test func theInPlaceStorePassesWithoutKills() throws {
        // The planted store is otherwise correct: saved and reopened without a kill, it holds
        // the generation saved last — so the failure above is the kills' doing.
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("store.json")
            let model = try CrashSafetyGenerations.model()
            let writer = PersistentStoreCoordinator(model: model, registry: Self.registry)
            let store = try writer.addPersistentStore(type: "InPlaceJSONFile", at: url)
            for g in 1...3 { try CrashSafetyGenerations.save(Int64(g), writer, store) }
            try writer.remove(store)
            let reader = PersistentStoreCoordinator(model: model, registry: Self.registry)
            let reopened = try reader.addPersistentStore(type: "InPlaceJSONFile", at: url)
            #expect(try CrashSafetyGenerations.verify(reader, reopened) == 3)
        }
    }
}
