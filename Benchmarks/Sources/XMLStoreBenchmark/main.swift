// XMLStoreBenchmark — workload W8 of specs/performance.md: save then load N nodes in the XML
// store, next to two baselines measured in the same run on the same data:
//   - a plain libxml2 xmlTextReader scan of the same file (every node read, nothing converted),
//   - JSONDecoder decoding the same objects from JSON into Swift structs.
//
//     swift run -c release --package-path Benchmarks XMLStoreBenchmark [--runs N] [people ...]
//
// Each count of Person objects (default 10,000, 100,000 and 150,000, the last giving a file of
// about 100 MB) belongs to one of 1 + count/50 teams. Times are medians of several runs; RSS is
// the resident size after the step and the process's peak so far.

import BenchmarkLibXML2
import BenchmarkSupport
import Foundation
import PersistentStores

let model: ObjectModel
do {
    model = try ObjectModel {
        Entity("Team") {
            Attribute("name", .string, optional: false, defaultValue: "")
            Attribute("founded", .date)
            Relationship("members", to: "Person", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Person") {
            Attribute("name", .string, optional: false, defaultValue: "")
            Attribute("email", .string)
            Attribute("age", .integer64, optional: false, defaultValue: 0)
            Attribute("score", .double)
            Attribute("born", .date)
            Attribute("active", .boolean)
            Attribute("bio", .string)
            Relationship("team", to: "Team", inverse: "members")
        }
    }
} catch {
    print("the benchmark model is invalid: \(error)")
    exit(1)
}

/// One person as a JSON baseline decodes it.
struct PersonRecord: Codable {
    var id: Int64
    var name: String
    var email: String
    var age: Int64
    var score: Double
    var born: Double
    var active: Bool
    var bio: String
    var team: Int64
}

/// One team as a JSON baseline decodes it.
struct TeamRecord: Codable {
    var id: Int64
    var name: String
    var founded: Double
    var members: [Int64]
}

/// The whole data set as JSON.
struct JSONFile: Codable {
    var teams: [TeamRecord]
    var people: [PersonRecord]
}

/// The values of person `index`, for the store and for the JSON baseline.
func personRecord(_ index: Int, teamCount: Int) -> PersonRecord {
    PersonRecord(
        id: Int64(index), name: "Person \(index)", email: "person\(index)@example.com", age: Int64(18 + index % 60),
        score: Double(index) * 0.731 + 0.125, born: -1e9 + Double(index) * 977.25, active: index % 3 != 0,
        bio: "Plays <left> & right; note \(index % 97) \"quoted\"", team: Int64(index % teamCount))
}

func person(_ index: Int, teamCount: Int) -> [String: StoreValue] {
    let record = personRecord(index, teamCount: teamCount)
    return [
        "name": .string(record.name), "email": .string(record.email), "age": .int(record.age), "score": .double(record.score),
        "born": .date(Date(timeIntervalSinceReferenceDate: record.born)), "active": .bool(record.active), "bio": .string(record.bio),
    ]
}

// MARK: Measuring

/// Resident and peak resident memory in MB (Linux; zero elsewhere).
func memory() -> (rss: Int, peak: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func value(_ key: String) -> Int {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }
    return (value("VmRSS:"), value("VmHWM:"))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ duration: Duration) -> String { String(format: "%8.3f s", seconds(duration)) }

/// A plain libxml2 streaming scan: every node read, nothing looked at.
func scan(_ url: URL) -> Int {
    let options = Int32(bitPattern: XML_PARSE_NONET.rawValue | XML_PARSE_HUGE.rawValue)
    guard let reader = xmlReaderForFile(url.path, nil, options) else { return -1 }
    defer { xmlFreeTextReader(reader) }
    var count = 0
    while xmlTextReaderRead(reader) == 1 { count += 1 }
    return count
}

// MARK: Running

PersistentStores.registerBuiltInStoreTypes()
// `--runs N` sets the number of runs (default 7 up to 100k people, 5 above).
var arguments = Array(CommandLine.arguments.dropFirst())
var requestedRuns: Int?
if let flag = arguments.firstIndex(of: "--runs"), flag + 1 < arguments.count {
    requestedRuns = Int(arguments[flag + 1]).map { max(1, $0) }
    arguments.removeSubrange(flag...(flag + 1))
}
let counts = arguments.compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
let peopleCounts = counts.isEmpty ? [10_000, 100_000, 150_000] : counts
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("XMLStoreBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

print("XML store (W8): medians; RSS = resident MB after the step / peak MB of the process so far")
print("people  | file MB | save       | load       | xmlTextReader scan | load/scan | JSONDecoder | load/JSON | RSS after load")
for people in peopleCounts {
    let url = directory.appendingPathComponent("People-\(people).xml")
    let teamCount = 1 + people / 50
    let runs = requestedRuns ?? (people <= 100_000 ? 7 : 5)

    // Save: a fresh store holding every object, written in one save.
    var saveTimes: [Duration] = []
    var teamIDs: [ObjectID] = []
    var personIDs: [ObjectID] = []
    for _ in 0..<runs {
        try? FileManager.default.removeItem(at: url)
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: "XML", at: url)
        teamIDs = try coordinator.obtainPermanentIDs(for: (0..<teamCount).map { _ in .temporary(entityName: "Team") })
        personIDs = try coordinator.obtainPermanentIDs(for: (0..<people).map { _ in .temporary(entityName: "Person") })
        var members = [[ObjectID]](repeating: [], count: teamCount)
        var inserted: [StoreNode] = []
        inserted.reserveCapacity(people + teamCount)
        for (index, id) in personIDs.enumerated() {
            members[index % teamCount].append(id)
            inserted.append(StoreNode(objectID: id, attributes: person(index, teamCount: teamCount), toOne: ["team": teamIDs[index % teamCount]], version: 0))
        }
        for (index, id) in teamIDs.enumerated() {
            inserted.append(StoreNode(
                objectID: id, attributes: ["name": .string("Team \(index)"), "founded": .date(Date(timeIntervalSinceReferenceDate: Double(index) * 86_400))],
                toMany: ["members": members[index]], version: 0))
        }
        let request = SaveChangesRequest(insertedObjects: inserted)
        saveTimes.append(try ContinuousClock().measure { _ = try coordinator.save(request) })
    }
    let saveTime = saveTimes.sorted()[saveTimes.count / 2]
    let size = (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0

    // The JSON baseline's data: the same objects.
    var teams: [TeamRecord] = []
    var records: [PersonRecord] = []
    for index in 0..<teamCount {
        teams.append(TeamRecord(
            id: Int64(index), name: "Team \(index)", founded: Double(index) * 86_400,
            members: stride(from: index, to: people, by: teamCount).map { Int64($0) }))
    }
    for index in 0..<people { records.append(personRecord(index, teamCount: teamCount)) }
    let json = try JSONEncoder().encode(JSONFile(teams: teams, people: records))
    teams = []
    records = []

    // Load (adding the store reads the whole file into cache nodes) and the two baselines,
    // interleaved run by run so that a busy machine slows all three alike.
    let clock = ContinuousClock()
    var loadTimes: [Duration] = []
    var scanTimes: [Duration] = []
    var jsonTimes: [Duration] = []
    // CPU time of the measuring thread: on a busy machine the steadier figure.
    var loadCPU: [Double] = []
    var scanCPU: [Double] = []
    var jsonCPU: [Double] = []
    var afterLoad = (rss: 0, peak: 0)
    for _ in 0..<runs {
        // The results stay alive until after the clock stops: freeing them is not loading.
        var loaded = 0
        var coordinator: PersistentStoreCoordinator?
        var cpuStart = threadCPUSeconds()
        loadTimes.append(try clock.measure {
            let opened = PersistentStoreCoordinator(model: model)
            _ = try opened.addPersistentStore(type: "XML", at: url)
            var request = FetchRequest(entityName: "Person")
            request.resultType = .count
            if case .count(let count) = try opened.execute(request) { loaded = count }
            coordinator = opened
        })
        loadCPU.append(threadCPUSeconds() - cpuStart)
        afterLoad = memory()
        coordinator = nil
        guard loaded == people else {
            print("error: loaded \(loaded) people, expected \(people)")
            exit(1)
        }
        var scanned = 0
        cpuStart = threadCPUSeconds()
        scanTimes.append(clock.measure { scanned = scan(url) })
        scanCPU.append(threadCPUSeconds() - cpuStart)
        guard scanned > people else {
            print("error: the scan read \(scanned) nodes")
            exit(1)
        }
        var decoded: JSONFile?
        cpuStart = threadCPUSeconds()
        jsonTimes.append(try clock.measure { decoded = try JSONDecoder().decode(JSONFile.self, from: json) })
        jsonCPU.append(threadCPUSeconds() - cpuStart)
        guard decoded?.people.count == people else { exit(1) }
        decoded = nil
    }
    let loadTime = loadTimes.sorted()[runs / 2]
    let scanTime = scanTimes.sorted()[runs / 2]
    let jsonTime = jsonTimes.sorted()[runs / 2]

    print(
        String(format: "%7d | %7.1f | ", people, Double(size) / 1e6) + format(saveTime) + " | " + format(loadTime) + " | "
            + format(scanTime) + "         | " + String(format: "%8.2f×", seconds(loadTime) / seconds(scanTime)) + " | "
            + format(jsonTime) + "  | " + String(format: "%8.2f×", seconds(loadTime) / seconds(jsonTime)) + " | "
            + "\(afterLoad.rss) / \(afterLoad.peak) MB")
    let (load, scanned, decoded) = (Timing.median(loadCPU), Timing.median(scanCPU), Timing.median(jsonCPU))
    print(
        "        CPU of the measuring thread: load \(BenchmarkSupport.format(load)) | scan \(BenchmarkSupport.format(scanned)) | "
            + "load/scan \(ratio(load / scanned)) | JSONDecoder \(BenchmarkSupport.format(decoded)) | load/JSON \(ratio(load / decoded))")
    // The run's summary (scripts/bench.sh), in CPU time.
    Summary.line("W8 XML load ÷ xmlTextReader scan (CPU)", size: people, load / scanned, target: .atMost(2))
    Summary.line("W8 XML load ÷ JSONDecoder (CPU)", size: people, load / decoded, target: .atMost(1))
    try? FileManager.default.removeItem(at: url)
}
