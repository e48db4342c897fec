import Conformance
import PersistentStores
import Testing

/// Every (built-in store type × conformance case × variant): the runs a store type can take
/// each become their own test case, so a failure names the store, the case and the difference;
/// the runs it cannot take are listed, each with the capability it lacks.
enum BuiltInRuns {
    /// The built-in store types alone. Not the shared registry: other tests register types
    /// there (a `ModelContainer` with a custom `DataStore`'s configuration registers its type),
    /// and case #48 copies a store to every registered type, so it would depend on which of
    /// those tests ran first.
    static let registry: StoreRegistry = {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        return registry
    }()
    static let all: [ConformanceRun] = {
        PersistentStores.registerBuiltInStoreTypes()
        return PersistentStores.builtInStoreTypes.flatMap { ConformanceSuite.runs(storeType: $0.storeType) }
    }()
    static let runnable = all.filter { $0.missingCapabilities().isEmpty }
    static let skipped = all.filter { !$0.missingCapabilities().isEmpty }
}

extension ConformanceRun: CustomTestStringConvertible {
    public var testDescription: String { description }
}

@Test("Conformance", arguments: BuiltInRuns.runnable)
func conformance(_ run: ConformanceRun) {
    let result = run.execute(registry: BuiltInRuns.registry)
    if case .failed(let message) = result.outcome {
        Issue.record(Comment(rawValue: message))
    }
    #expect(result.outcome == .passed)
}

@Test("Conformance runs skipped for a missing capability")
func skippedRunsNameTheirMissingCapability() {
    for run in BuiltInRuns.skipped {
        let result = run.execute(registry: BuiltInRuns.registry)
        guard case .skipped(let reason) = result.outcome else {
            Issue.record("\(run) was expected to be skipped")
            continue
        }
        print("skipped: \(run): \(reason)")
        #expect(!run.missingCapabilities().isEmpty)
    }
    #expect(BuiltInRuns.runnable.count + BuiltInRuns.skipped.count == BuiltInRuns.all.count)
}

@Test func everyBuiltInTypeHasRuns() {
    let types = Set(BuiltInRuns.all.map(\.storeType))
    #expect(types == Set(PersistentStores.builtInStoreTypes.map { $0.storeType }))
    #expect(BuiltInRuns.all.count >= ConformanceSuite.allCases.count * types.count)
}
