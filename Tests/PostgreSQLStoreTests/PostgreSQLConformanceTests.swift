import Conformance
import Foundation
import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// The shared conformance suite on "PostgreSQL": each run's stores live in PostgreSQL schemas of
/// their own on the test server (named after the run's fresh folder and the store's name).
/// Cases about store files do not apply (`ConformanceCase.filesOnly`).
enum PostgreSQLRuns {
    /// The registry the runs use: the PostgreSQL type alone. It is kept out of the shared
    /// registry, where the other stores' conformance runs (in the same test process) would try
    /// to copy their stores to it at file URLs (#48).
    static let registry: StoreRegistry = {
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        return registry
    }()
    static let all = ConformanceSuite.runs(storeType: PostgreSQLStore.storeType, storeURLs: storeURL)
    static let applicable = all.filter { $0.missingCapabilities(registry: registry).isEmpty && $0.appliesToItsStores }

    /// A URL on the test server for the store `name` of the run in `directory`.
    @Sendable static func storeURL(_ directory: URL, _ name: String) -> URL? {
        let run = directory.lastPathComponent.lowercased().filter { $0.isHexDigit }.prefix(32)
        let store = name.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20)
        guard case .success(let base) = TestPostgreSQLServer.base else { return nil }
        return URL(string: "\(base)&schema=c\(run)_\(store)")
    }
}

@Suite struct PostgreSQLConformanceTests {
    @Test("Conformance on PostgreSQL", arguments: PostgreSQLRuns.applicable)
    func conformance(_ run: ConformanceRun) throws {
        _ = try TestPostgreSQLServer.uri()
        let result = run.execute(registry: PostgreSQLRuns.registry)
        if case .failed(let message) = result.outcome {
            Issue.record(Comment(rawValue: message))
        }
        #expect(result.outcome == .passed)
    }

    /// The runs left out are the cases about store files and those needing a capability the
    /// store does not have; everything else runs.
    @Test func everyRunLeftOutIsAboutFilesOrACapability() {
        let left = PostgreSQLRuns.all.filter { run in !PostgreSQLRuns.applicable.contains { $0.description == run.description } }
        for run in left {
            #expect(!run.appliesToItsStores || !run.missingCapabilities(registry: PostgreSQLRuns.registry).isEmpty, "\(run)")
        }
        #expect(PostgreSQLRuns.applicable.count >= 160)
    }
}
