import Conformance
import DirectoryStore
import Foundation
import JSONFileStore
import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// The typed-model conformance cases (ModelConformance) on every built-in store type, the
/// PostgreSQL store and the example stores JSONFile and Directory: every value type round-trips,
/// enum and composite attributes are stored as documented, every `#Predicate` answers as its
/// string predicate. Each (store type × case × variant) is its own test case.
enum ModelConformanceRuns {
    /// The built-in store types, JSONFile and Directory, each registered in a registry of its own.
    static let registries: [String: StoreRegistry] = {
        var registries: [String: StoreRegistry] = [:]
        for type in PersistentStores.builtInStoreTypes {
            let registry = StoreRegistry()
            PersistentStores.registerBuiltInStoreTypes(in: registry)
            registries[type.storeType] = registry
        }
        let examples: [any PersistentStore.Type] = [JSONFileStore.self, DirectoryStore.self]
        for type in examples {
            let registry = StoreRegistry()
            registry.register(type)
            registries[type.storeType] = registry
        }
        let postgreSQL = StoreRegistry()
        postgreSQL.register(PostgreSQLStore.self)
        registries[PostgreSQLStore.storeType] = postgreSQL
        return registries
    }()

    static let all: [ConformanceRun] = registries.keys.sorted().flatMap { storeType in
        ConformanceSuite.runs(
            storeType: storeType, cases: ModelConformanceSuite.allCases,
            storeURLs: storeType == PostgreSQLStore.storeType ? postgreSQLURL : nil)
    }
    static let runnable = all.filter { $0.missingCapabilities(registry: registries[$0.storeType] ?? .shared).isEmpty }

    /// A URL on the test server for the store `name` of the run in `directory`.
    @Sendable static func postgreSQLURL(_ directory: URL, _ name: String) -> URL? {
        let run = directory.lastPathComponent.lowercased().filter { $0.isHexDigit }.prefix(32)
        let store = name.lowercased().filter { $0.isLetter || $0.isNumber }.prefix(20)
        guard case .success(let base) = TestPostgreSQLServer.base else { return nil }
        return URL(string: "\(base)&schema=m\(run)_\(store)")
    }
}

@Suite struct ModelConformanceTests {
    @Test("Typed-model conformance", arguments: ModelConformanceRuns.runnable)
    func conformance(_ run: ConformanceRun) throws {
        if run.storeType == PostgreSQLStore.storeType { _ = try TestPostgreSQLServer.uri() }
        let result = run.execute(registry: ModelConformanceRuns.registries[run.storeType] ?? .shared)
        if case .failed(let message) = result.outcome {
            Issue.record(Comment(rawValue: message))
        }
        #expect(result.outcome == .passed)
    }

    /// Every store type takes every case, and in both variants where it keeps its objects.
    @Test func everyStoreTypeTakesEveryCase() {
        let storeTypes = Set(ModelConformanceRuns.runnable.map(\.storeType))
        #expect(storeTypes == ["SQLite", "InMemory", "Binary", "XML", "PipeCSV", "PostgreSQL", "JSONFile", "Directory"])
        for storeType in storeTypes {
            let cases = Set(ModelConformanceRuns.runnable.filter { $0.storeType == storeType }.map(\.testCase.name))
            #expect(cases.count == ModelConformanceSuite.allCases.count, "\(storeType)")
        }
        #expect(ModelConformanceRuns.runnable.count == ModelConformanceRuns.all.count - ModelConformanceSuite.allCases.count,
                "only InMemory's after-reopen variants are left out")
    }
}
