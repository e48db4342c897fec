import BenchmarkSupport
// W1–W4 and W6 of specs/performance.md (and behaviour #51): the SQLite store against the raw
// sqlite3 C API and GRDB 7, all in the same run; medians of several runs and their ratios.
//
//     swift run -c release SQLiteStoreBenchmark [--sizes 10000,100000] [--runs 5] [--svg chart.svg] [--no-grdb]
//         [--only w1 | w1.framework | w2.framework | w2.raw | obs] [--observability off | quiet]
//
// `--only w1` runs W1 alone (framework, raw, GRDB); `--only w1.framework` runs the framework's
// W1 alone (for profiling it, e.g. under callgrind). `--only w2.framework --file F` and
// `--only w2.raw --file F` run one contender's W2 alone on the database F and print the peak RSS
// while it ran (the first run writes F with raw sqlite3 and stops): each in its own process, so
// that the peaks compare.
//
// `--observability quiet` gives every framework coordinator a logger at `info` with the no-op
// metrics backend and tracer bootstrapped (issue 31: observability off as a server has it);
// `--only obs` times W1 and W2 with nothing given against that, in turns, in one run.
//
// The framework and the raw baseline work on the same tables (the raw baseline writes into a
// file the store created, and reads the file the store wrote); GRDB works on its own tables
// with the same rows. Every file uses the WAL journal and SQLite's default synchronous mode.
// Opening a store or connection is not timed; each timed part is described in its function.

import Foundation
import PersistentStores

func fail(_ message: String) -> Never {
    print("error: \(message)")
    exit(1)
}

var sizes = [10_000, 100_000]
var runs = 5
var svgPath: String?
var withGRDB = true
/// `w1` or `w1.framework` to run only those contenders; nil for everything.
var only: String?
/// The database `--only w2.*` reads.
var w2File: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    case "--svg": svgPath = arguments.next()
    case "--no-grdb": withGRDB = false
    case "--file": w2File = arguments.next()
    case "--observability": _ = arguments.next()  // read by `Framework.observability`
    case "--only":
        only = arguments.next()
        guard ["w1", "w1.framework", "w2.framework", "w2.raw", "obs"].contains(only ?? "") else {
            fail("--only takes w1, w1.framework, w2.framework, w2.raw or obs")
        }
    default:
        print("usage: SQLiteStoreBenchmark [--sizes 10000,100000] [--runs 5] [--svg chart.svg] [--no-grdb] [--only w1 | w1.framework | w2.framework | w2.raw | obs] [--observability off | quiet]")
        exit(64)
    }
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("SQLiteStoreBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// Removes a database file and its journal files.
func removeDatabase(_ url: URL) {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        try? FileManager.default.removeItem(atPath: url.path + suffix)
    }
}

/// Copies a closed database (and a WAL left behind, if any).
func copyDatabase(_ source: URL, to target: URL) throws {
    removeDatabase(target)
    try FileManager.default.copyItem(at: source, to: target)
    if FileManager.default.fileExists(atPath: source.path + "-wal") {
        try FileManager.default.copyItem(atPath: source.path + "-wal", toPath: target.path + "-wal")
    }
    // Write the copy out now, so that no contender's commit pays for flushing it.
    sync()
}

func mib(_ value: Double?) -> String { value.map { String(format: "%.1f MiB", $0) } ?? "–" }

func expectSame(_ a: Checksum, _ b: Checksum, _ what: String) {
    guard a.rows == b.rows, a.characters == b.characters, a.ages == b.ages else {
        fail("\(what): the contenders read different data: \(a) vs \(b)")
    }
}

/// One workload line: contenders' keys, the target ratio (framework / baseline) and what it is.
struct Workload {
    let key: String
    let title: String
    let framework: String
    let baseline: String
    let peers: [(key: String, label: String)]
    let target: Double?
    let targetText: String
}

let workloads = [
    Workload(
        key: "W1", title: "insert N objects through a context, save once", framework: "w1.framework", baseline: "w1.raw",
        peers: [("w1.grdb", "GRDB records"), ("w1.rawGroups", "raw sqlite3, 32 rows per INSERT as the store writes them")],
        target: 1.5, targetText: "≤ 1.5× raw; faster than GRDB records"),
    Workload(
        key: "#51", title: "batch insert of N dictionaries", framework: "w1.batch", baseline: "w1.raw",
        peers: [("w1.framework", "through a context")], target: nil, targetText: "faster than through a context"),
    Workload(
        key: "W2", title: "fetch all N as objects, read every attribute", framework: "w2.framework", baseline: "w2.raw",
        peers: [("w2.grdb", "GRDB records"), ("w2.grdbRows", "GRDB rows")], target: 2, targetText: "≤ 2× raw; faster than GRDB records"),
    Workload(
        key: "W3", title: "object IDs with a predicate (age BETWEEN {20, 40})", framework: "w3.framework.ids", baseline: "w3.raw.ids",
        peers: [], target: 1.3, targetText: "≤ 1.3× raw"),
    Workload(
        key: "W3", title: "count with the same predicate", framework: "w3.framework.count", baseline: "w3.raw.count", peers: [],
        target: 1.3, targetText: "≤ 1.3× raw"),
    Workload(
        key: "W4", title: "age BETWEEN {20, 40} AND name BEGINSWITH 'A', by name, limit 100", framework: "w4.framework",
        baseline: "w4.raw", peers: [], target: 1.5, targetText: "≤ 1.5× hand-written SQL"),
    Workload(
        key: "W6", title: "batch update of 50% of N rows", framework: "w6.framework.update", baseline: "w6.raw.update", peers: [],
        target: 1.2, targetText: "≤ 1.2× hand-written UPDATE"),
    Workload(
        key: "W6", title: "batch delete of 50% of N rows", framework: "w6.framework.delete", baseline: "w6.raw.delete", peers: [],
        target: 1.2, targetText: "≤ 1.2× hand-written DELETE"),
]

struct SizeResult {
    var size = 0
    var medians: [String: Double] = [:]
    /// Medians of the measuring thread's CPU time (steadier than wall-clock on a busy machine).
    var cpuMedians: [String: Double] = [:]
    var resident: [String: Double] = [:]
    var peakResident = 0.0
}

if only == "obs" {
    try ObservabilityComparison.run(sizes: sizes, runs: runs, folder: folder)
    try? FileManager.default.removeItem(at: folder)
    exit(0)
}
if Framework.observability != nil { print("observability: quiet (a logger at info, the no-op metrics backend and tracer bootstrapped)") }

var results: [SizeResult] = []
print("SQLite store vs raw sqlite3 vs GRDB \(withGRDB ? "7.10.0" : "(skipped)"); medians of \(runs) runs")
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)")
// `--only w2.framework|w2.raw --file F`: W2 alone on the file F (written first, by a run that
// then stops, when F does not exist), with the peak RSS while it runs.
if let only, only.hasPrefix("w2.") {
    guard let w2File else { fail("--only \(only) needs --file") }
    let url = URL(fileURLWithPath: w2File)
    guard FileManager.default.fileExists(atPath: url.path) else {
        try Framework.createEmpty(url)
        RawSQLite(url).insert(Dataset(persons: sizes.first ?? 10_000))
        print("wrote \(sizes.first ?? 10_000) persons to \(url.path); run again to measure \(only) on it")
        exit(0)
    }
    // Linux: "5" resets the process's peak RSS, so the peak below is W2's alone.
    try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    let before = residentMiB()
    var timing = Timing(name: only)
    var checksum: Checksum?
    for _ in 0..<runs {
        if only == "w2.framework" {
            checksum = try Framework.readAll(at: url, measurement: &timing).0
        } else {
            let raw = RawSQLite(url)
            checksum = timing.time { raw.readAll() }.0
        }
    }
    print("\(only): median \(format(timing.median)); peak RSS during W2 \(Int(peakResidentMiB())) MiB (\(Int(before)) MiB when it started); \(checksum.map { "\($0)" } ?? "")")
    exit(0)
}

for size in sizes {
    let dataset = Dataset(persons: size)
    let dictionaries = dataset.dictionaries
    var measurements: [String: Timing] = [:]
    var residents: [String: [Double]] = [:]
    func measure<T>(_ key: String, _ body: (inout Timing) throws -> T) rethrows -> T {
        var measurement = measurements[key] ?? Timing(name: key)
        defer { measurements[key] = measurement }
        return try body(&measurement)
    }
    // Queries that take well under a millisecond are repeated inside one timing.
    let w3Repetitions = max(1, 200_000 / size)
    let w4Repetitions = 200
    let frameworkURL = folder.appendingPathComponent("framework.sqlite")
    let batchURL = folder.appendingPathComponent("batch.sqlite")
    let rawURL = folder.appendingPathComponent("raw.sqlite")
    let grdbURL = folder.appendingPathComponent("grdb.sqlite")
    let workURL = folder.appendingPathComponent("work.sqlite")
    for _ in 0..<runs {
        // W1 and #51.
        removeDatabase(frameworkURL)
        try measure("w1.framework") { try Framework.insertThroughContext(dataset, at: frameworkURL, measurement: &$0) }
        if only == "w1.framework" { continue }
        removeDatabase(batchURL)
        try measure("w1.batch") { try Framework.batchInsert(dictionaries, at: batchURL, measurement: &$0) }
        removeDatabase(rawURL)
        try Framework.createEmpty(rawURL)
        do {
            let raw = RawSQLite(rawURL)
            measure("w1.raw") { $0.time { raw.insert(dataset) } }
        }
        removeDatabase(rawURL)
        try Framework.createEmpty(rawURL)
        do {
            let raw = RawSQLite(rawURL)
            measure("w1.rawGroups") { $0.time { raw.insertInGroups(dataset) } }
        }
        var grdb: GRDBQueue?
        if withGRDB {
            removeDatabase(grdbURL)
            let queue = try GRDBPeer.open(grdbURL)
            try GRDBPeer.createSchema(queue)
            try measure("w1.grdb") { measurement in try measurement.time { try GRDBPeer.insert(dataset, into: queue) } }
            grdb = GRDBQueue(queue: queue)
        }
        if only != nil { continue }

        // W2, on the file the framework wrote (the raw baseline reads the same file). Each
        // contender's heap is what its read added, from its open database (Framework.readAll).
        let (read, frameworkResident) = try measure("w2.framework") { try Framework.readAll(at: frameworkURL, measurement: &$0) }
        residents["w2.framework", default: []].append(frameworkResident)
        do {
            let raw = RawSQLite(frameworkURL)
            let rawBefore = heapInUseMiB()
            let (rawRead, rawResident) = measure("w2.raw") { $0.time { raw.readAll() } }
            residents["w2.raw", default: []].append(rawResident - rawBefore)
            expectSame(read, rawRead, "W2 raw")
        }
        if let grdb {
            let grdbBefore = heapInUseMiB()
            let (records, grdbResident) = try measure("w2.grdb") { measurement in try measurement.time { try GRDBPeer.readRecords(grdb.queue) } }
            residents["w2.grdb", default: []].append(grdbResident - grdbBefore)
            expectSame(read, records, "W2 GRDB records")
            let rows = try measure("w2.grdbRows") { measurement in try measurement.time { try GRDBPeer.readRows(grdb.queue) } }
            expectSame(read, rows, "W2 GRDB rows")
        }
        grdb = nil

        // W3.
        var ids = measurements["w3.framework.ids"] ?? Timing(name: "w3.framework.ids")
        var count = measurements["w3.framework.count"] ?? Timing(name: "w3.framework.count")
        let frameworkW3 = try Framework.idsAndCount(at: frameworkURL, repetitions: w3Repetitions, ids: &ids, count: &count)
        (measurements["w3.framework.ids"], measurements["w3.framework.count"]) = (ids, count)
        var rawIDs = measurements["w3.raw.ids"] ?? Timing(name: "w3.raw.ids")
        var rawCount = measurements["w3.raw.count"] ?? Timing(name: "w3.raw.count")
        let rawW3 = RawSQLite(frameworkURL).idsAndCount(repetitions: w3Repetitions, ids: &rawIDs, count: &rawCount)
        (measurements["w3.raw.ids"], measurements["w3.raw.count"]) = (rawIDs, rawCount)
        guard frameworkW3 == rawW3, frameworkW3.0 == frameworkW3.1 else { fail("W3: \(frameworkW3) vs \(rawW3)") }

        // W4.
        let hundred = try measure("w4.framework") { try Framework.firstHundred(at: frameworkURL, repetitions: w4Repetitions, measurement: &$0) }
        let rawHundred = measure("w4.raw") { RawSQLite(frameworkURL).firstHundred(repetitions: w4Repetitions, measurement: &$0) }
        expectSame(hundred, rawHundred, "W4")

        // W6, each on a fresh copy of the framework's file.
        try copyDatabase(frameworkURL, to: workURL)
        let updated = try measure("w6.framework.update") { try Framework.batchUpdate(at: workURL, measurement: &$0) }
        try copyDatabase(frameworkURL, to: workURL)
        let rawUpdated = measure("w6.raw.update") { RawSQLite(workURL).update(measurement: &$0) }
        try copyDatabase(frameworkURL, to: workURL)
        let deleted = try measure("w6.framework.delete") { try Framework.batchDelete(at: workURL, measurement: &$0) }
        try copyDatabase(frameworkURL, to: workURL)
        let rawDeleted = measure("w6.raw.delete") { RawSQLite(workURL).delete(measurement: &$0) }
        guard updated == rawUpdated, deleted == rawDeleted, abs(updated - size / 2) <= size / 100 else {
            fail("W6: updated \(updated) / \(rawUpdated), deleted \(deleted) / \(rawDeleted) of \(size)")
        }
    }
    var result = SizeResult(size: size)
    result.medians = measurements.mapValues(\.median)
    result.cpuMedians = measurements.mapValues(\.cpuMedian)
    for key in ["w3.framework.ids", "w3.framework.count", "w3.raw.ids", "w3.raw.count"] {
        result.medians[key] = (result.medians[key] ?? .nan) / Double(w3Repetitions)
    }
    for key in ["w4.framework", "w4.raw"] { result.medians[key] = (result.medians[key] ?? .nan) / Double(w4Repetitions) }
    result.resident = residents.mapValues { Timing(name: "", seconds: $0).median }
    result.peakResident = peakResidentMiB()
    results.append(result)

    print("")
    print("N = \(size) persons + \(dataset.teams) teams (W3 ×\(w3Repetitions) and W4 ×\(w4Repetitions) per timing; times per query)")
    for workload in workloads where only == nil || workload.key == "W1" {
        let m = result.medians
        let framework = m[workload.framework] ?? .nan
        let baseline = m[workload.baseline] ?? .nan
        var line = "  \(workload.key) \(workload.title): framework \(format(framework)), raw \(format(baseline)) → \(ratio(framework / baseline))"
        for peer in workload.peers {
            let value = m[peer.key] ?? .nan
            line += ", \(peer.label) \(format(value)) (framework / peer \(ratio(framework / value)))"
        }
        print(line + "   [target \(workload.targetText)]")
        if workload.key == "W1" {
            let c = result.cpuMedians
            let cpu = c["w1.framework"] ?? .nan
            print("     CPU time: framework \(format(cpu)), raw \(format(c["w1.raw"] ?? .nan)) → \(ratio(cpu / (c["w1.raw"] ?? .nan))), GRDB records \(format(c["w1.grdb"] ?? .nan)) (framework / peer \(ratio(cpu / (c["w1.grdb"] ?? .nan))))")
        }
    }
    print("  W2 heap in use while the results are alive: framework +\(mib(result.resident["w2.framework"])), raw +\(mib(result.resident["w2.raw"])), GRDB records +\(mib(result.resident["w2.grdb"])); peak RSS so far \(Int(result.peakResident)) MiB")
}

// The Markdown table for docs/benchmarks.md.
print("")
print("| workload | N | framework | raw sqlite3 | framework / raw | peers | target | met |")
print("|---|---|---|---|---|---|---|---|")
for workload in workloads where only == nil || workload.key == "W1" {
    for result in results {
        let m = result.medians
        let framework = m[workload.framework] ?? .nan
        let baseline = m[workload.baseline] ?? .nan
        let peers = workload.peers.map { "\($0.label) \(format(m[$0.key] ?? .nan)) (\(ratio(framework / (m[$0.key] ?? .nan))))" }
            .joined(separator: "; ")
        var met: String
        if let target = workload.target {
            met = framework / baseline <= target ? "yes" : "no"
            if let peer = workload.peers.first, peer.label == "GRDB records", let value = m[peer.key], framework >= value {
                met += " / slower than GRDB"
            }
        } else {
            met = framework < (m[workload.peers.first?.key ?? ""] ?? .nan) ? "yes" : "no"
        }
        print("| \(workload.key) \(workload.title) | \(result.size) | \(format(framework)) | \(format(baseline)) | \(ratio(framework / baseline)) | \(peers.isEmpty ? "–" : peers) | \(workload.targetText) | \(met) |")
    }
}
print("")
print("| N | W2 heap while the results are alive: framework | raw | GRDB records | peak RSS of the process so far |")
print("|---|---|---|---|---|")
for result in results {
    print("| \(result.size) | \(mib(result.resident["w2.framework"])) | \(mib(result.resident["w2.raw"])) | \(mib(result.resident["w2.grdb"])) | \(Int(result.peakResident)) MiB |")
}

// The run's summary (scripts/bench.sh): each ratio with its target.
for result in results {
    let m = result.medians
    for workload in workloads where only == nil || workload.key == "W1" {
        let framework = m[workload.framework] ?? .nan
        if let target = workload.target {
            Summary.line("\(workload.key) \(workload.title) ÷ raw", size: result.size, framework / (m[workload.baseline] ?? .nan), target: .atMost(target))
        } else if let peer = workload.peers.first {
            Summary.line("\(workload.key) \(workload.title) ÷ \(peer.label)", size: result.size, framework / (m[peer.key] ?? .nan), target: .atMost(1))
        }
        if let peer = workload.peers.first, peer.label == "GRDB records" {
            Summary.line("\(workload.key) ÷ GRDB records", size: result.size, framework / (m[peer.key] ?? .nan), target: .atMost(1))
        }
        if workload.key == "W1" {
            // No target: the spec's baseline is the single-row INSERT; this is the same
            // statements as the store's, by hand.
            Summary.line("W1 ÷ raw sqlite3 with 32 rows per INSERT", size: result.size, framework / (m["w1.rawGroups"] ?? .nan), target: nil)
        }
    }
    if only == nil, let framework = result.resident["w2.framework"], let raw = result.resident["w2.raw"] {
        Summary.line("W2 heap while the results are alive ÷ raw structs", size: result.size, framework / raw, target: .atMost(2))
    }
}

if let svgPath {
    let series: [(String, String, String)] = [
        ("w1.framework", "W1 framework", "#1f77b4"), ("w1.raw", "W1 raw", "#aec7e8"), ("w1.grdb", "W1 GRDB", "#9edae5"),
        ("w2.framework", "W2 framework", "#d62728"), ("w2.raw", "W2 raw", "#ff9896"), ("w2.grdb", "W2 GRDB", "#f7b6d2"),
        ("w6.framework.update", "W6 update", "#2ca02c"), ("w6.raw.update", "W6 raw update", "#98df8a"),
    ]
    let svg = Chart.svg(
        title: "SQLite store: W1, W2, W6 vs raw sqlite3 and GRDB (median seconds, log-log)",
        sizes: results.map(\.size), series: series.map { key, label, color in (label, color, results.map { $0.medians[key] ?? .nan }) })
    try svg.write(toFile: svgPath, atomically: true, encoding: .utf8)
    print("")
    print("chart written to \(svgPath)")
}
