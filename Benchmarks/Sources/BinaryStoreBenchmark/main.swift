// W7 of specs/performance.md: save then load N nodes in the Binary store, against
// JSONEncoder/JSONDecoder of equivalent Codable structs and raw reads and writes of the same
// bytes, all in the same run; medians of several runs and their ratios.
//
//     swift run -c release BinaryStoreBenchmark [--sizes 10000,100000,1000000] [--runs 5] [--svg chart.svg]
//
// Every file is written the same durable way (temporary file, fsync, rename), so the ratios
// compare encoding and decoding, not durability. Loads read files the run has just written
// (warm page cache), for every contender alike.

import Foundation
import PersistentStores

var sizes = [10_000, 100_000, 1_000_000]
var runs = 5
var svgPath: String?
var binaryOnly = false
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    case "--svg": svgPath = arguments.next()
    case "--binary-only": binaryOnly = true  // for profiling the store alone
    default:
        print("usage: BinaryStoreBenchmark [--sizes 10000,100000,1000000] [--runs 5] [--svg chart.svg] [--binary-only]")
        exit(64)
    }
}

let registry = StoreRegistry()
registry.register(AtomicBinaryStore.self)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("BinaryStoreBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// The medians of one size.
struct Row {
    var size = 0
    var binaryBytes = 0
    var jsonBytes = 0
    var compressedBytes: [Int32: Int] = [:]
    var medians: [String: Double] = [:]
    var cpuMedians: [String: Double] = [:]
    var residentAfterLoad = 0.0
}

func fileSize(_ url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path)[.size]) as? Int) ?? 0
}

func fail(_ message: String) -> Never {
    print("error: \(message)")
    exit(1)
}

/// Saves the dataset into a new Binary store at `url` (timing the coordinator's save and a
/// rewrite of the loaded store), then loads it (timing the add).
func measureBinary(
    _ dataset: Dataset, at url: URL, options: StoreOptions, save: inout Measurement, write: inout Measurement,
    load: inout Measurement
) throws -> Double {
    try? FileManager.default.removeItem(at: url)
    do {
        let coordinator = PersistentStoreCoordinator(model: Dataset.model, registry: registry)
        let store = try coordinator.addPersistentStore(type: "Binary", at: url, options: options)
        let request = try dataset.insertRequest(for: coordinator)
        try save.time { _ = try coordinator.save(request) }
        // The store's save() alone: a metadata change makes the next save rewrite the file.
        var metadata = try coordinator.metadata(for: store)
        metadata["BenchmarkRun"] = .string(UUID().uuidString)
        try coordinator.setMetadata(metadata, for: store)
        try write.time { _ = try coordinator.save(SaveChangesRequest()) }
    }
    let before = residentMiB()
    let coordinator = PersistentStoreCoordinator(model: Dataset.model, registry: registry)
    try load.time { _ = try coordinator.addPersistentStore(type: "Binary", at: url, options: options) }
    let resident = residentMiB() - before
    guard case .count(let count) = try coordinator.execute({
        var request = FetchRequest(entityName: "Person")
        request.resultType = .count
        return request
    }()), count == dataset.persons else { fail("the Binary store did not load \(dataset.persons) persons") }
    return resident
}

var rows: [Row] = []
print("W7 — Binary store vs JSONEncoder/JSONDecoder vs raw bytes; medians of \(runs) runs")
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString)")
for size in sizes {
    let dataset = Dataset(persons: size)
    var row = Row(size: size)
    var measurements: [String: Measurement] = [:]
    func take(_ name: String) -> Measurement { measurements[name] ?? Measurement(name: name) }
    let binaryURL = folder.appendingPathComponent("people.store")
    let jsonURL = folder.appendingPathComponent("people.json")
    let rawURL = folder.appendingPathComponent("people.raw")
    for _ in 0..<runs {
        var save = take("binary.save"), write = take("binary.write"), load = take("binary.load")
        row.residentAfterLoad = try measureBinary(dataset, at: binaryURL, options: [:], save: &save, write: &write, load: &load)
        (measurements["binary.save"], measurements["binary.write"], measurements["binary.load"]) = (save, write, load)
        row.binaryBytes = fileSize(binaryURL)
        if binaryOnly { continue }

        // Raw bytes: the same file's bytes written the same way and read back.
        let bytes = try Data(contentsOf: binaryURL)
        var rawWrite = take("raw.write"), rawRead = take("raw.read")
        try rawWrite.time { try AtomicFileWriter.write(bytes, to: rawURL) }
        let readBack = try rawRead.time { try Data(contentsOf: rawURL) }
        guard readBack.count == bytes.count else { fail("raw read") }
        (measurements["raw.write"], measurements["raw.read"]) = (rawWrite, rawRead)

        // JSON of the same objects as Codable structs.
        var jsonSave = take("json.save"), jsonLoad = take("json.load")
        do {
            let records = dataset.records
            try jsonSave.time { try AtomicFileWriter.write(try JSONEncoder().encode(records), to: jsonURL) }
        }
        let decoded = try jsonLoad.time { try JSONDecoder().decode(Dataset.File.self, from: try Data(contentsOf: jsonURL)) }
        guard decoded.persons.count == size else { fail("JSON decode") }
        (measurements["json.save"], measurements["json.load"]) = (jsonSave, jsonLoad)
        row.jsonBytes = fileSize(jsonURL)
    }
    // Compression, fewer runs: its cost and what it saves.
    for level: Int32 in binaryOnly ? [] : [1, 6] {
        for _ in 0..<max(1, runs / 2) {
            var save = take("deflate\(level).save"), write = take("deflate\(level).write"), load = take("deflate\(level).load")
            _ = try measureBinary(
                dataset, at: binaryURL, options: [AtomicBinaryStore.compressionOption: .int(Int64(level))],
                save: &save, write: &write, load: &load)
            (measurements["deflate\(level).save"], measurements["deflate\(level).write"], measurements["deflate\(level).load"]) = (save, write, load)
            row.compressedBytes[level] = fileSize(binaryURL)
        }
    }
    row.medians = measurements.mapValues(\.median)
    row.cpuMedians = measurements.mapValues(\.cpuMedian)
    rows.append(row)

    let m = row.medians
    func value(_ key: String) -> Double { m[key] ?? .nan }
    func cpu(_ key: String) -> Double { row.cpuMedians[key] ?? .nan }
    print("")
    print("N = \(size) persons + \(dataset.teams) teams: Binary file \(row.binaryBytes / 1024) KiB, JSON \(row.jsonBytes / 1024) KiB")
    print("  Binary save (N inserts through the coordinator)  \(format(value("binary.save"))) wall, \(format(cpu("binary.save"))) CPU")
    print("  Binary write (the store's save() alone)           \(format(value("binary.write"))) wall, \(format(cpu("binary.write"))) CPU")
    print("  Binary load (add the store: read, check, decode)  \(format(value("binary.load"))) wall, \(format(cpu("binary.load"))) CPU   +\(Int(row.residentAfterLoad)) MiB resident")
    print("  JSONEncoder + write                               \(format(value("json.save"))) wall, \(format(cpu("json.save"))) CPU")
    print("  read + JSONDecoder                                \(format(value("json.load"))) wall, \(format(cpu("json.load"))) CPU")
    print("  raw write of the Binary file's bytes              \(format(value("raw.write"))) wall, \(format(cpu("raw.write"))) CPU")
    print("  raw read of the Binary file's bytes               \(format(value("raw.read"))) wall, \(format(cpu("raw.read"))) CPU")
    print("  load: JSON / Binary = \(ratio(value("json.load") / value("binary.load"))) wall, \(ratio(cpu("json.load") / cpu("binary.load"))) CPU (target ≥ 5×); Binary / raw = \(ratio(value("binary.load") / value("raw.read"))) (target ≤ 3×)")
    print("  save: JSON / Binary save = \(ratio(value("json.save") / value("binary.save"))), JSON / Binary write = \(ratio(value("json.save") / value("binary.write"))) wall, \(ratio(cpu("json.save") / cpu("binary.write"))) CPU (target ≥ 3×); Binary write / raw = \(ratio(value("binary.write") / value("raw.write"))) (target ≤ 3×)")
    for level: Int32 in [1, 6] {
        let bytes = row.compressedBytes[level] ?? 0
        print("  deflate level \(level): \(bytes / 1024) KiB (\(String(format: "%.0f", 100 * Double(bytes) / Double(max(row.binaryBytes, 1))))%), write \(format(value("deflate\(level).write"))), load \(format(value("deflate\(level).load")))")
    }
    print("  peak RSS so far \(Int(peakResidentMiB())) MiB")
}

// The Markdown table for docs/benchmarks.md.
print("")
print("| N (persons) | Binary save | Binary write | Binary load | JSON save | JSON load | raw write | raw read | JSON/Binary load | JSON/Binary write | Binary/raw load | Binary/raw write |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
for row in rows {
    let m = row.medians
    func value(_ key: String) -> Double { m[key] ?? .nan }
    print("| \(row.size) | \(format(value("binary.save"))) | \(format(value("binary.write"))) | \(format(value("binary.load"))) | \(format(value("json.save"))) | \(format(value("json.load"))) | \(format(value("raw.write"))) | \(format(value("raw.read"))) | \(ratio(value("json.load") / value("binary.load"))) | \(ratio(value("json.save") / value("binary.write"))) | \(ratio(value("binary.load") / value("raw.read"))) | \(ratio(value("binary.write") / value("raw.write"))) |")
}
print("")
print("| N (persons) | uncompressed | deflate 1 | deflate 6 | write 0 / 1 / 6 | load 0 / 1 / 6 |")
print("|---|---|---|---|---|---|")
for row in rows {
    let m = row.medians
    func value(_ key: String) -> Double { m[key] ?? .nan }
    let kib = { (bytes: Int) in "\(bytes / 1024) KiB" }
    print("| \(row.size) | \(kib(row.binaryBytes)) | \(kib(row.compressedBytes[1] ?? 0)) | \(kib(row.compressedBytes[6] ?? 0)) | \(format(value("binary.write"))) / \(format(value("deflate1.write"))) / \(format(value("deflate6.write"))) | \(format(value("binary.load"))) / \(format(value("deflate1.load"))) / \(format(value("deflate6.load"))) |")
}

if let svgPath {
    let series: [(String, String, String)] = [
        ("binary.load", "Binary load", "#1f77b4"), ("binary.write", "Binary write", "#2ca02c"),
        ("json.load", "JSONDecoder load", "#d62728"), ("json.save", "JSONEncoder save", "#ff7f0e"),
        ("raw.read", "raw read", "#7f7f7f"), ("raw.write", "raw write", "#bcbd22"),
    ]
    let svg = Chart.svg(
        title: "W7: Binary store vs JSON vs raw bytes (median seconds, log-log)",
        sizes: rows.map(\.size), series: series.map { key, label, color in (label, color, rows.map { $0.medians[key] ?? .nan }) })
    try svg.write(toFile: svgPath, atomically: true, encoding: .utf8)
    print("")
    print("chart written to \(svgPath)")
}
