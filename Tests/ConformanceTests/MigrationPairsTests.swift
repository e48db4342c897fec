import Conformance
import JSONFileStore
import PersistentStores
import Testing

/// Behaviour #48 with the example custom type beside the built-ins: every built-in type copied
/// to `JSONFile` and back, each run copying its source type to the six file and memory types
/// (the built-in runs of the suite already cover the 25 built-in pairs; the PostgreSQL store,
/// registered too, is copied to and from in its own tests, where the runs have its URLs).
@Test(arguments: PersistentStores.builtInStoreTypes.map { $0.storeType } + [JSONFileStore.storeType])
func migrationPairsIncludeTheCustomType(sourceType: String) throws {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    registry.register(JSONFileStore.self)
    #expect(registry.registeredStoreTypes.count == 7)
    let copying = try #require(ConformanceSuite.allCases.first { $0.behaviour == 48 })
    let result = ConformanceRun(storeType: sourceType, testCase: copying, variant: .fromCache).execute(registry: registry)
    if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
    #expect(result.outcome == .passed)
}
