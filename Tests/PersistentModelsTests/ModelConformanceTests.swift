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

/// A store planted with a bug: it keeps doubles with the precision of a Float.
final class FloatDoublesStore: JSONFileStore {
    override class var storeType: String { "FloatDoubles" }
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

/// The typed-model cases catch a store that changes values, naming the property.
@Test func aStoreThatTruncatesDoublesFailsTheTypedRoundTrip() {
    let registry = StoreRegistry()
    registry.register(FloatDoublesStore.self)
    let report = ConformanceSuite.run(storeType: FloatDoublesStore.storeType, registry: registry, cases: ModelConformanceSuite.allCases)
    let failures = report.results.compactMap { result -> (name: String, message: String)? in
        if case .failed(let message) = result.outcome { return (result.run.testCase.name, message) }
        return nil
    }
    #expect(
        failures.contains { $0.name == "typed models: every value type round-trips" && $0.message.contains("Sample[0].double: expected 2.1") },
        "\(failures)")
    #expect(report.passed > 0, "the cases without doubles pass")
}
