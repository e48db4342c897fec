import Foundation
import StoreCore

/// The suite: every case of the catalogue, and a runner that reports passed / failed / skipped
/// per (store type × case × variant).
///
/// ```swift
/// StoreRegistry.shared.register(MyStore.self, forStoreType: "Mine")
/// let report = ConformanceSuite.run(storeType: "Mine")
/// print(report.table)
/// ```
public enum ConformanceSuite {
    /// Every case, in catalogue order.
    public static var allCases: [ConformanceCase] {
        [
            ConformanceCatalogue.lifecycle, ConformanceCatalogue.crud, ConformanceCatalogue.relationships,
            ConformanceCatalogue.graph, ConformanceCatalogue.deleteRules, ConformanceCatalogue.validation,
            ConformanceCatalogue.faults, ConformanceCatalogue.contexts, ConformanceCatalogue.stores,
            ConformanceCatalogue.fetch, ConformanceCatalogue.predicateCorpus, ConformanceCatalogue.values,
            ConformanceCatalogue.versioning,
        ].flatMap { $0 }
            .sorted { ($0.behaviour, $0.name) < ($1.behaviour, $1.name) }
    }

    /// Every (case × variant) run for a store type: each case once from the cache, and again
    /// after reopen when it asks for it.
    public static func runs(storeType: String, cases: [ConformanceCase] = allCases) -> [ConformanceRun] {
        cases.flatMap { testCase -> [ConformanceRun] in
            var runs = [ConformanceRun(storeType: storeType, testCase: testCase, variant: .fromCache)]
            if testCase.runsAfterReopen {
                runs.append(ConformanceRun(storeType: storeType, testCase: testCase, variant: .afterReopen))
            }
            return runs
        }
    }

    /// Runs every case on a registered store type and returns the report.
    public static func run(
        storeType: String, registry: StoreRegistry = .shared, cases: [ConformanceCase] = allCases
    ) -> ConformanceReport {
        ConformanceReport(results: runs(storeType: storeType, cases: cases).map { $0.execute(registry: registry) })
    }
}

/// One case in one variant on one store type.
public struct ConformanceRun: Sendable, CustomStringConvertible {
    /// The store type name.
    public let storeType: String
    /// The case.
    public let testCase: ConformanceCase
    /// The variant.
    public let variant: ConformanceEnvironment.Variant

    /// Creates a run.
    public init(storeType: String, testCase: ConformanceCase, variant: ConformanceEnvironment.Variant) {
        self.storeType = storeType
        self.testCase = testCase
        self.variant = variant
    }

    /// "<store> #<n> <name> [variant]".
    public var description: String {
        "\(storeType) #\(testCase.behaviour) \(testCase.name)" + (variant == .afterReopen ? " [after reopen]" : "")
    }

    /// The capabilities the run needs (reopen needs persistence).
    public var requiredCapabilities: StoreCapabilities {
        variant == .afterReopen ? testCase.requires.union(.persistent) : testCase.requires
    }

    /// The capabilities the run needs that the store type lacks; empty when it can run.
    public func missingCapabilities(registry: StoreRegistry = .shared) -> StoreCapabilities {
        guard let type = registry.storeType(named: storeType) else { return [] }
        return requiredCapabilities.subtracting(type.capabilities)
    }

    /// Runs the case in a fresh temporary folder (removed afterwards).
    public func execute(registry: StoreRegistry = .shared) -> ConformanceResult {
        guard let type = registry.storeType(named: storeType) else {
            return ConformanceResult(run: self, outcome: .failed("store type \(storeType) is not registered"))
        }
        let missing = requiredCapabilities.subtracting(type.capabilities)
        if !missing.isEmpty {
            return ConformanceResult(run: self, outcome: .skipped("needs \(missing.names.joined(separator: ", "))"))
        }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("conformance-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let environment = ConformanceEnvironment(
                storeType: storeType, registry: registry, directory: directory, variant: variant,
                capabilities: type.capabilities)
            try testCase.body(environment)
            return ConformanceResult(run: self, outcome: .passed)
        } catch let failure as ConformanceFailure {
            return ConformanceResult(run: self, outcome: .failed("\(self): \(failure.message)"))
        } catch {
            return ConformanceResult(run: self, outcome: .failed("\(self): unexpected error: \(error)"))
        }
    }
}

/// The result of one run.
public struct ConformanceResult: Sendable {
    /// What happened.
    public enum Outcome: Sendable, Equatable {
        /// Every expectation held.
        case passed
        /// An expectation failed or an error was thrown; the message names case, store and difference.
        case failed(String)
        /// The store type lacks a capability the case needs.
        case skipped(String)
    }

    /// The run.
    public let run: ConformanceRun
    /// What happened.
    public let outcome: Outcome
}

/// The results of a suite run, with a printable table.
public struct ConformanceReport: Sendable {
    /// Every result, in run order.
    public let results: [ConformanceResult]

    /// Number of passed runs.
    public var passed: Int { results.filter { $0.outcome == .passed }.count }
    /// Number of failed runs.
    public var failed: Int { results.filter { if case .failed = $0.outcome { return true } else { return false } }.count }
    /// Number of skipped runs.
    public var skipped: Int { results.filter { if case .skipped = $0.outcome { return true } else { return false } }.count }

    /// A readable table: one line per run and a summary line per store type.
    public var table: String {
        var lines = ["store       | #  | case                                         | variant      | result"]
        lines.append(String(repeating: "-", count: lines[0].count + 20))
        for result in results {
            let outcome: String
            switch result.outcome {
            case .passed: outcome = "passed"
            case .failed(let message): outcome = "FAILED: \(message)"
            case .skipped(let reason): outcome = "skipped (\(reason))"
            }
            lines.append(
                [
                    pad(result.run.storeType, 11), pad(String(result.run.testCase.behaviour), 2),
                    pad(result.run.testCase.name, 44), pad(result.run.variant.rawValue, 12), outcome,
                ].joined(separator: " | "))
        }
        for store in Set(results.map(\.run.storeType)).sorted() {
            let mine = ConformanceReport(results: results.filter { $0.run.storeType == store })
            lines.append("\(store): \(mine.passed) passed, \(mine.failed) failed, \(mine.skipped) skipped")
        }
        return lines.joined(separator: "\n")
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
