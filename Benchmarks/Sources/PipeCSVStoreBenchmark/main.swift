// PipeCSVStoreBenchmark — workload W9 of specs/performance.md: save then load N nodes in the
// PipeCSV store, next to the baseline measured in the same run on the same file: reading the
// file and splitting it into lines and fields (escapes honoured, each field's start and end
// offsets recorded, nothing converted).
//
//     swift run -c release --package-path Benchmarks PipeCSVStoreBenchmark [--runs N] [persons ...]
//
// `--runs N` sets the number of runs (default 7 up to 100k persons, 3 above); `--runs 1` is the
// form for a profile under callgrind.
//
// The data of specs/performance.md: Person {name, email, age Int32, score Double, born Date,
// team → Team} and one Team {name, players →> Person} per 100 persons. "load" adds the store to
// a new coordinator (reading, checking and decoding the whole file into cache nodes) and counts
// the persons. Load and split runs are interleaved; times are medians (wall clock, and the CPU
// time of the measuring thread in brackets).

import BenchmarkSupport
import Foundation
import PersistentStores

let model: ObjectModel
do {
    model = try ObjectModel {
        Entity("Team") {
            Attribute("name", .string, optional: false, defaultValue: "")
            Relationship("players", to: "Person", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Person") {
            Attribute("name", .string, optional: false, defaultValue: "")
            Attribute("email", .string)
            Attribute("age", .integer32, optional: false, defaultValue: 0)
            Attribute("score", .double)
            Attribute("born", .date)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
} catch {
    print("the benchmark model is invalid: \(error)")
    exit(1)
}

/// Splits the file into lines and fields, honouring backslash escapes, and records where each
/// field of a line starts and ends, as a real splitter hands its fields to a decoder: the least
/// any reader of the format must do. Returns the number of fields; the offsets are folded into
/// `checksum` so that recording them cannot be optimised away.
func split(_ url: URL, checksum: inout Int) throws -> Int {
    let data = try Data(contentsOf: url)
    return data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> Int in
        var fields = 0
        var index = 0
        let count = raw.count
        // One buffer of field boundaries for the line being split, reused line after line
        // (a field is `bounds[2k] ..< bounds[2k + 1]`).
        var bounds: [Int] = []
        bounds.reserveCapacity(64)
        var fieldStart = 0
        var sum = 0
        while index < count {
            switch raw[index] {
            case UInt8(ascii: "\\"): index += 1
            case UInt8(ascii: "|"), UInt8(ascii: "="), UInt8(ascii: ","):
                bounds.append(fieldStart)
                bounds.append(index)
                fieldStart = index + 1
            case UInt8(ascii: "\n"):
                bounds.append(fieldStart)
                bounds.append(index)
                fieldStart = index + 1
                fields += bounds.count / 2
                // What a decoder would do next: look at each field of the line.
                var field = 0
                while field < bounds.count {
                    sum &+= bounds[field + 1] &- bounds[field]
                    field += 2
                }
                bounds.removeAll(keepingCapacity: true)
            default: break
            }
            index += 1
        }
        checksum &+= sum
        return fields
    }
}

PersistentStores.registerBuiltInStoreTypes()
var arguments = Array(CommandLine.arguments.dropFirst())
var requestedRuns: Int?
if let flag = arguments.firstIndex(of: "--runs"), flag + 1 < arguments.count {
    requestedRuns = Int(arguments[flag + 1]).map { max(1, $0) }
    arguments.removeSubrange(flag...(flag + 1))
}
let counts = arguments.compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
let personCounts = counts.isEmpty ? [10_000, 100_000] : counts
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("PipeCSVStoreBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

print("PipeCSV store (W9): medians, wall clock (CPU of the measuring thread)")
print("persons | file MB | save | load | split into fields | load / split | RSS after load / peak MiB")
for persons in personCounts {
    let url = directory.appendingPathComponent("People-\(persons).txt")
    let teamCount = max(1, persons / 100)
    let runs = requestedRuns ?? (persons <= 100_000 ? 7 : 3)

    var save = Timing(name: "save")
    for _ in 0..<runs {
        try? FileManager.default.removeItem(at: url)
        try? FileManager.default.removeItem(at: PipeCSVStore.metadataURL(forStoreAt: url))
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: "PipeCSV", at: url)
        let teamIDs = try coordinator.obtainPermanentIDs(for: (0..<teamCount).map { _ in .temporary(entityName: "Team") })
        let personIDs = try coordinator.obtainPermanentIDs(for: (0..<persons).map { _ in .temporary(entityName: "Person") })
        var players = [[ObjectID]](repeating: [], count: teamCount)
        var inserted: [StoreNode] = []
        inserted.reserveCapacity(persons + teamCount)
        for (index, id) in personIDs.enumerated() {
            players[index % teamCount].append(id)
            inserted.append(StoreNode(
                objectID: id,
                attributes: [
                    "name": .string("Person \(index)"), "email": .string("person\(index)@example.com"),
                    "age": .int(Int64(18 + index % 60)), "score": .double(Double(index) * 0.731 + 0.125),
                    "born": .date(Date(timeIntervalSinceReferenceDate: -1e9 + Double(index) * 977.25)),
                ],
                toOne: ["team": teamIDs[index % teamCount]], version: 0))
        }
        for (index, id) in teamIDs.enumerated() {
            inserted.append(StoreNode(objectID: id, attributes: ["name": .string("Team \(index)")], toMany: ["players": players[index]], version: 0))
        }
        let request = SaveChangesRequest(insertedObjects: inserted)
        try save.time { _ = try coordinator.save(request) }
    }
    let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0

    var load = Timing(name: "load")
    var splitting = Timing(name: "split")
    var afterLoad = 0.0
    for _ in 0..<runs {
        var loaded = 0
        var coordinator: PersistentStoreCoordinator?
        try load.time {
            let opened = PersistentStoreCoordinator(model: model)
            _ = try opened.addPersistentStore(type: "PipeCSV", at: url)
            var request = FetchRequest(entityName: "Person")
            request.resultType = .count
            if case .count(let count) = try opened.execute(request) { loaded = count }
            coordinator = opened
        }
        afterLoad = residentMiB()
        coordinator = nil
        guard loaded == persons else {
            print("error: loaded \(loaded) persons, expected \(persons)")
            exit(1)
        }
        var fieldBytes = 0
        let fields = try splitting.time { try split(url, checksum: &fieldBytes) }
        guard fields > persons * 7, fieldBytes > 0, fieldBytes < size else {
            print("error: the split found \(fields) fields")
            exit(1)
        }
    }
    print(
        "\(persons) | \(String(format: "%.1f", Double(size) / 1e6)) | \(format(save.median)) (\(format(save.cpuMedian))) | "
            + "\(format(load.median)) (\(format(load.cpuMedian))) | \(format(splitting.median)) (\(format(splitting.cpuMedian))) | "
            + "\(ratio(load.median / splitting.median)) (\(ratio(load.cpuMedian / splitting.cpuMedian))) | "
            + "\(Int(afterLoad)) / \(Int(peakResidentMiB()))")
    // The run's summary (scripts/bench.sh), in CPU time.
    Summary.line("W9 PipeCSV load ÷ splitting into fields (CPU)", size: persons, load.cpuMedian / splitting.cpuMedian, target: .atMost(2))
}
