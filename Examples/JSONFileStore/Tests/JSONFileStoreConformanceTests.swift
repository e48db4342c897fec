import Conformance
import JSONFileStore
import StoreCore
import Testing

@Test func jsonFileStorePassesTheConformanceSuite() {
    let registry = StoreRegistry()
    registry.register(JSONFileStore.self)       // your store type, under its own storeType
    let report = ConformanceSuite.run(storeType: "JSONFile", registry: registry) { result in
        if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
    }
    print(report.table)     // one line per case: passed / FAILED: <why> / skipped (<missing capability>)
    #expect(report.failed == 0)
}
