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
            ConformanceCatalogue.versioning, ConformanceCatalogue.migration, ConformanceCatalogue.batch,
            ConformanceCatalogue.files, ConformanceCatalogue.constraints, ConformanceCatalogue.derived,
            ConformanceCatalogue.undo, ConformanceCatalogue.history, ConformanceCatalogue.children,
        ].flatMap { $0 }
            // Catalogue order; cases outside the catalogue (behaviour 0) last.
            .sorted { ($0.behaviour == 0 ? Int.max : $0.behaviour, $0.name) < ($1.behaviour == 0 ? Int.max : $1.behaviour, $1.name) }
    }

    /// Every (case × variant) run for a store type: each case once from the cache, and again
    /// after reopen when it asks for it.
    ///
    /// `storeURLs` gives the URL of each store of a run whose stores are not files (a server's
    /// store type): called with the run's fresh folder, which no other run shares, and the
    /// store's name in the case.
    public static func runs(
        storeType: String, cases: [ConformanceCase] = allCases,
        storeURLs: (@Sendable (_ directory: URL, _ name: String) -> URL?)? = nil
    ) -> [ConformanceRun] {
        cases.flatMap { testCase -> [ConformanceRun] in
            var runs = [ConformanceRun(storeType: storeType, testCase: testCase, variant: .fromCache, storeURLs: storeURLs)]
            if testCase.runsAfterReopen {
                runs.append(ConformanceRun(storeType: storeType, testCase: testCase, variant: .afterReopen, storeURLs: storeURLs))
            }
            return runs
        }
    }

    /// Runs every case on a registered store type and returns the report. `progress`, when
    /// given, is called with each result as soon as its run ends (`storectl conformance` prints
    /// a line per run with it).
    public static func run(
        storeType: String, registry: StoreRegistry = .shared, cases: [ConformanceCase] = allCases,
        progress: ((ConformanceResult) -> Void)? = nil
    ) -> ConformanceReport {
        run(storeType: storeType, registry: registry, cases: cases, storeURLs: nil, progress: progress)
    }

    /// ``run(storeType:registry:cases:progress:)`` for a store type whose stores are not files:
    /// `storeURLs` gives the URL of each store of a run (see ``runs(storeType:cases:storeURLs:)``).
    public static func run(
        storeType: String, registry: StoreRegistry = .shared, cases: [ConformanceCase] = allCases,
        storeURLs: (@Sendable (_ directory: URL, _ name: String) -> URL?)?, progress: ((ConformanceResult) -> Void)? = nil
    ) -> ConformanceReport {
        ConformanceReport(
            results: runs(storeType: storeType, cases: cases, storeURLs: storeURLs).map { run in
                let result = run.execute(registry: registry)
                progress?(result)
                return result
            })
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
    /// The URL of each store of the run when they are not files (see
    /// ``ConformanceSuite/runs(storeType:cases:storeURLs:)``).
    public let storeURLs: (@Sendable (_ directory: URL, _ name: String) -> URL?)?

    /// Creates a run.
    public init(
        storeType: String, testCase: ConformanceCase, variant: ConformanceEnvironment.Variant,
        storeURLs: (@Sendable (_ directory: URL, _ name: String) -> URL?)? = nil
    ) {
        self.storeType = storeType
        self.testCase = testCase
        self.variant = variant
        self.storeURLs = storeURLs
    }

    /// "<store> #<n> <name> [variant]".
    public var description: String {
        "\(storeType) #\(testCase.behaviour) \(testCase.name)" + (variant == .afterReopen ? " [after reopen]" : "")
    }

    /// The capabilities the run needs (reopen needs persistence).
    public var requiredCapabilities: StoreCapabilities {
        variant == .afterReopen ? testCase.requires.union(.persistent) : testCase.requires
    }

    /// Whether the case applies to the run's stores: false for a case about store files when
    /// the stores are not files (``storeURLs`` is set).
    public var appliesToItsStores: Bool { !(testCase.filesOnly && storeURLs != nil) }

    /// The capabilities the run needs that the store type lacks; empty when it can run.
    public func missingCapabilities(registry: StoreRegistry = .shared) -> StoreCapabilities {
        guard let type = registry.storeType(named: storeType) else { return [] }
        return requiredCapabilities.subtracting(type.capabilities)
    }

    /// Runs the case in a fresh temporary folder (removed afterwards).
    ///
    /// A failure message reads `<store> #<n> <case> [variant]: <difference> (most likely at
    /// fault: <protocol methods>)`. A type registered under a name other than its own
    /// `storeType` fails every run: its files would say `NSStoreType = <storeType>` while
    /// coordinators look it up by the registered name.
    public func execute(registry: StoreRegistry = .shared) -> ConformanceResult {
        let clock = ContinuousClock()
        let start = clock.now
        var result = run(registry: registry)
        result.duration = clock.now - start
        return result
    }

    private func run(registry: StoreRegistry) -> ConformanceResult {
        guard let type = registry.storeType(named: storeType) else {
            return ConformanceResult(run: self, outcome: .failed("store type \(storeType) is not registered"))
        }
        guard type.storeType == storeType else {
            return ConformanceResult(
                run: self,
                outcome: .failed(
                    "\(self): \(type) is registered as \"\(storeType)\" but its storeType is \"\(type.storeType)\"; "
                        + "register it under its own name (register(_:)) or override storeType"))
        }
        let missing = requiredCapabilities.subtracting(type.capabilities)
        if !missing.isEmpty {
            return ConformanceResult(run: self, outcome: .skipped("needs \(missing.names.joined(separator: ", "))"))
        }
        if !appliesToItsStores {
            return ConformanceResult(run: self, outcome: .skipped("applies to stores kept in files"))
        }
        let suspects = testCase.suspects(incremental: type.capabilities.contains(.incremental))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("conformance-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            var urls: (@Sendable (String) -> URL?)?
            if let storeURLs {
                let folder = directory
                urls = { name in storeURLs(folder, name) }
            }
            let environment = ConformanceEnvironment(
                storeType: storeType, registry: registry, directory: directory, variant: variant,
                capabilities: type.capabilities, storeURLs: urls)
            try testCase.body(environment)
            return ConformanceResult(run: self, outcome: .passed)
        } catch let failure as ConformanceFailure {
            return ConformanceResult(run: self, outcome: .failed("\(self): \(failure.message) (most likely at fault: \(suspects))"))
        } catch {
            return ConformanceResult(
                run: self, outcome: .failed("\(self): unexpected error: \(error) (most likely at fault: \(suspects))"))
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
    /// How long the run took.
    public internal(set) var duration: Duration = .zero

    /// Creates a result.
    public init(run: ConformanceRun, outcome: Outcome, duration: Duration = .zero) {
        self.run = run
        self.outcome = outcome
        self.duration = duration
    }

    /// One line of the report: `<store> | <n> | <case> | <variant> | <outcome>`, the columns
    /// padded to the given widths.
    public func line(widths: ConformanceReport.ColumnWidths) -> String {
        let text: String
        switch outcome {
        case .passed: text = "passed"
        case .failed(let message): text = "FAILED: \(message)"
        case .skipped(let reason): text = "skipped (\(reason))"
        }
        return [
            ConformanceReport.pad(run.storeType, widths.store), ConformanceReport.pad(String(run.testCase.behaviour), widths.behaviour),
            ConformanceReport.pad(run.testCase.name, widths.name), ConformanceReport.pad(run.variant.rawValue, widths.variant), text,
        ].joined(separator: " | ")
    }
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

    /// The widths of the report's columns.
    public struct ColumnWidths: Sendable, Equatable {
        /// The store type column.
        public var store: Int
        /// The behaviour number column.
        public var behaviour: Int
        /// The case name column.
        public var name: Int
        /// The variant column.
        public var variant: Int

        /// Widths that fit every run given (and the headings).
        public init(fitting runs: [ConformanceRun]) {
            store = max("store".count, runs.map(\.storeType.count).max() ?? 0)
            behaviour = max("#".count, runs.map { String($0.testCase.behaviour).count }.max() ?? 0)
            name = max("case".count, runs.map(\.testCase.name.count).max() ?? 0)
            variant = max("variant".count, ConformanceEnvironment.Variant.allCases.map(\.rawValue.count).max() ?? 0)
        }
    }

    /// A readable table: one line per run, every column as wide as its longest entry, and a
    /// summary line per store type.
    public var table: String {
        let widths = ColumnWidths(fitting: results.map(\.run))
        let heading = [
            Self.pad("store", widths.store), Self.pad("#", widths.behaviour), Self.pad("case", widths.name),
            Self.pad("variant", widths.variant), "result",
        ].joined(separator: " | ")
        var lines = [heading, String(repeating: "-", count: heading.count + 20)]
        for result in results { lines.append(result.line(widths: widths)) }
        for store in Set(results.map(\.run.storeType)).sorted() {
            let mine = ConformanceReport(results: results.filter { $0.run.storeType == store })
            lines.append("\(store): \(mine.passed) passed, \(mine.failed) failed, \(mine.skipped) skipped")
        }
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
