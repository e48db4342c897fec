import BenchmarkSupport
// W7 of specs/performance.md: save then load N nodes in the Binary store, against
// JSONEncoder/JSONDecoder of equivalent Codable structs and raw reads and writes of the same
// bytes, all in the same run; medians of several runs and their ratios.
//
//     swift run -c release BinaryStoreBenchmark [--sizes 10000,100000,1000000] [--runs 5] [--svg chart.svg]
//
// Every file is written the same durable way (temporary file, fsync, rename), so the ratios
// compare encoding and decoding, not durability. Loads read files the run has just written
// (warm page cache), for every contender alike. Each contender runs in a fresh child process
// (this executable with --child), in turn within each run, so that one contender's heap does
// not slow down the next; the peak memory of each child is reported too.

import Foundation
import PersistentStores

var sizes = [10_000, 100_000, 1_000_000]
var runs = 5
var svgPath: String?
var contenders = Contender.allCases
var child: (contender: Contender, size: Int, folder: URL)?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    case "--svg": svgPath = arguments.next()
    case "--only": contenders = (arguments.next() ?? "").split(separator: ",").compactMap { Contender(rawValue: String($0)) }
    case "--child":
        // Internal: one measurement in this process (see Contender).
        guard let contender = arguments.next().flatMap(Contender.init(rawValue:)), let size = arguments.next().flatMap({ Int($0) }),
            let path = arguments.next()
        else { fail("--child needs a contender, a size and a folder") }
        child = (contender, size, URL(fileURLWithPath: path))
    default:
        print("usage: BinaryStoreBenchmark [--sizes 10000,100000,1000000] [--runs 5] [--svg chart.svg] [--only binary,deflate1,deflate6,raw,json]")
        exit(64)
    }
}

if let child {
    try child.contender.run(size: child.size, folder: child.folder)
    exit(0)
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("BinaryStoreBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// The medians of one size.
struct Row {
    var size = 0
    var bytes: [String: Int] = [:]
    var medians: [String: Double] = [:]
    var cpuMedians: [String: Double] = [:]
    var peakResident: [String: Double] = [:]
}

/// Runs one contender once in a child process and adds what it reports.
func runChild(_ contender: Contender, size: Int, into measurements: inout [String: Timing], row: inout Row) throws {
    let process = Process()
    process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    process.arguments = ["--child", contender.rawValue, String(size), folder.path]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        fail("the \(contender) child failed: \(String(decoding: data, as: UTF8.self))")
    }
    for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
        let fields = line.split(separator: " ").map(String.init)
        switch fields.first {
        case "bytes" where fields.count == 3: row.bytes[fields[1]] = Int(fields[2])
        case "rss" where fields.count == 3: row.peakResident[fields[1]] = max(row.peakResident[fields[1]] ?? 0, Double(fields[2]) ?? 0)
        case let key? where fields.count == 3:
            guard let wall = Double(fields[1]), let cpu = Double(fields[2]) else { continue }
            measurements[key, default: Timing(name: key)].seconds.append(wall)
            measurements[key, default: Timing(name: key)].cpuSeconds.append(cpu)
        default: continue
        }
    }
}

var rows: [Row] = []
print("W7 — Binary store vs JSONEncoder/JSONDecoder vs raw bytes; medians of \(runs) runs, each contender in a fresh process")
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)")
for size in sizes {
    var row = Row(size: size)
    var measurements: [String: Timing] = [:]
    for run in 0..<runs {
        for contender in contenders {
            // Compression is measured in fewer runs: it shows its cost and what it saves.
            if (contender == .deflate1 || contender == .deflate6) && run >= max(1, (runs + 1) / 2) { continue }
            try runChild(contender, size: size, into: &measurements, row: &row)
        }
    }
    row.medians = measurements.mapValues(\.median)
    row.cpuMedians = measurements.mapValues(\.cpuMedian)
    rows.append(row)

    func value(_ key: String) -> Double { row.medians[key] ?? .nan }
    func cpu(_ key: String) -> Double { row.cpuMedians[key] ?? .nan }
    print("")
    print("N = \(size) persons + \(Dataset(persons: size).teams) teams: Binary file \((row.bytes["binary"] ?? 0) / 1024) KiB, JSON \((row.bytes["json"] ?? 0) / 1024) KiB")
    print("  Binary save (N inserts through the coordinator)  \(format(value("binary.save"))) wall, \(format(cpu("binary.save"))) CPU")
    print("  Binary write (the store's save() alone)           \(format(value("binary.write"))) wall, \(format(cpu("binary.write"))) CPU")
    print("  Binary load (add the store: read, check, decode)  \(format(value("binary.load"))) wall, \(format(cpu("binary.load"))) CPU; again: \(format(value("binary.reload"))) wall, \(format(cpu("binary.reload"))) CPU")
    print("  JSONEncoder + write                               \(format(value("json.save"))) wall, \(format(cpu("json.save"))) CPU")
    print("  read + JSONDecoder                                \(format(value("json.load"))) wall, \(format(cpu("json.load"))) CPU; again: \(format(value("json.reload"))) wall, \(format(cpu("json.reload"))) CPU")
    print("  raw write of the Binary file's bytes              \(format(value("raw.write"))) wall, \(format(cpu("raw.write"))) CPU")
    print("  raw read of the Binary file's bytes               \(format(value("raw.read"))) wall, \(format(cpu("raw.read"))) CPU; again: \(format(value("raw.reread"))) wall, \(format(cpu("raw.reread"))) CPU")
    print("  load: JSON / Binary = \(ratio(value("json.load") / value("binary.load"))) wall, \(ratio(cpu("json.load") / cpu("binary.load"))) CPU; again: \(ratio(value("json.reload") / value("binary.reload"))) wall (target ≥ 5×); Binary / raw = \(ratio(value("binary.load") / value("raw.read"))) (target ≤ 3×)")
    print("  save: JSON / Binary write = \(ratio(value("json.save") / value("binary.write"))) wall, \(ratio(cpu("json.save") / cpu("binary.write"))) CPU (target ≥ 3×); JSON / Binary save through the coordinator = \(ratio(value("json.save") / value("binary.save"))); Binary write / raw = \(ratio(value("binary.write") / value("raw.write"))) (target ≤ 3×)")
    for level in ["deflate1", "deflate6"] {
        let bytes = row.bytes[level] ?? 0
        print("  \(level): \(bytes / 1024) KiB (\(String(format: "%.0f", 100 * Double(bytes) / Double(max(row.bytes["binary"] ?? 1, 1))))%), write \(format(value("\(level).write"))) wall, \(format(cpu("\(level).write"))) CPU, load \(format(value("\(level).load"))) wall, \(format(cpu("\(level).load"))) CPU")
    }
    print("  peak RSS per contender: " + row.peakResident.keys.sorted().map { "\($0) \(Int(row.peakResident[$0] ?? 0)) MiB" }.joined(separator: ", "))
    // The run's summary (scripts/bench.sh), in CPU time.
    Summary.line("W7 JSONDecoder ÷ Binary load (CPU)", size: size, cpu("json.load") / cpu("binary.load"), target: .atLeast(5))
    Summary.line("W7 JSONDecoder ÷ Binary load again (CPU)", size: size, cpu("json.reload") / cpu("binary.reload"), target: .atLeast(5))
    Summary.line("W7 Binary load ÷ raw read (CPU)", size: size, cpu("binary.load") / cpu("raw.read"), target: .atMost(3))
    Summary.line("W7 JSONEncoder ÷ Binary write (CPU)", size: size, cpu("json.save") / cpu("binary.write"), target: .atLeast(3))
}

// The Markdown tables for docs/benchmarks.md: wall-clock medians, CPU-time medians in brackets.
func both(_ row: Row, _ key: String) -> String {
    "\(format(row.medians[key] ?? .nan)) (\(format(row.cpuMedians[key] ?? .nan)))"
}
func ratios(_ row: Row, _ numerator: String, _ denominator: String) -> String {
    let wall = (row.medians[numerator] ?? .nan) / (row.medians[denominator] ?? .nan)
    let cpu = (row.cpuMedians[numerator] ?? .nan) / (row.cpuMedians[denominator] ?? .nan)
    return "\(ratio(wall)) (\(ratio(cpu)))"
}
print("")
print("| N persons | Binary save through the coordinator | Binary write (store save) | Binary load (first / again) | JSONEncoder + write | read + JSONDecoder (first / again) | raw write | raw read (first / again) |")
print("|---|---|---|---|---|---|---|---|")
for row in rows {
    print("| \(row.size) | \(both(row, "binary.save")) | \(both(row, "binary.write")) | \(both(row, "binary.load")) / \(both(row, "binary.reload")) | \(both(row, "json.save")) | \(both(row, "json.load")) / \(both(row, "json.reload")) | \(both(row, "raw.write")) | \(both(row, "raw.read")) / \(both(row, "raw.reread")) |")
}
print("")
print("| N persons | JSON load ÷ Binary load, first (≥ 5×) | again (≥ 5×) | JSON save ÷ Binary write (≥ 3×) | JSON save ÷ Binary save through the coordinator | Binary load ÷ raw read, first / again (≤ 3×) | Binary write ÷ raw write (≤ 3×) |")
print("|---|---|---|---|---|---|---|")
for row in rows {
    print("| \(row.size) | \(ratios(row, "json.load", "binary.load")) | \(ratios(row, "json.reload", "binary.reload")) | \(ratios(row, "json.save", "binary.write")) | \(ratios(row, "json.save", "binary.save")) | \(ratios(row, "binary.load", "raw.read")) / \(ratios(row, "binary.reload", "raw.reread")) | \(ratios(row, "binary.write", "raw.write")) |")
}
print("")
print("| N persons | file: plain / deflate 1 / deflate 6 | write: plain / deflate 1 / deflate 6 | load: plain / deflate 1 / deflate 6 |")
print("|---|---|---|---|")
for row in rows {
    let kib = { (bytes: Int) in "\(bytes / 1024) KiB" }
    print("| \(row.size) | \(kib(row.bytes["binary"] ?? 0)) / \(kib(row.bytes["deflate1"] ?? 0)) / \(kib(row.bytes["deflate6"] ?? 0)) | \(both(row, "binary.write")) / \(both(row, "deflate1.write")) / \(both(row, "deflate6.write")) | \(both(row, "binary.load")) / \(both(row, "deflate1.load")) / \(both(row, "deflate6.load")) |")
}
print("")
print("| N persons | peak RSS: Binary (save + load) | JSON (encode + decode) | raw |")
print("|---|---|---|---|")
for row in rows {
    let mib = { (key: String) in row.peakResident[key].map { "\(Int($0)) MiB" } ?? "–" }
    print("| \(row.size) | \(mib("binary")) | \(mib("json")) | \(mib("raw")) |")
}

if let svgPath {
    let series: [(String, String, String)] = [
        ("binary.load", "Binary load", "#1f77b4"), ("binary.reload", "Binary load again", "#17becf"),
        ("binary.write", "Binary write", "#2ca02c"), ("json.load", "JSONDecoder load", "#d62728"),
        ("json.save", "JSONEncoder save", "#ff7f0e"),
        ("raw.read", "raw read", "#7f7f7f"), ("raw.write", "raw write", "#bcbd22"),
    ]
    let svg = Chart.svg(
        title: "W7: Binary store vs JSON vs raw bytes (median CPU seconds, log-log)",
        sizes: rows.map(\.size), series: series.map { key, label, color in (label, color, rows.map { $0.cpuMedians[key] ?? .nan }) })
    try svg.write(toFile: svgPath, atomically: true, encoding: .utf8)
    print("")
    print("chart written to \(svgPath)")
}
