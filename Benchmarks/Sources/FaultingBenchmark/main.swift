// W11 and W12 of specs/performance.md: faults, prefetching and the memory of a fault, on the
// SQLite store, against the raw sqlite3 C API on the same file in the same run.
//
//     swift build -c release --package-path Benchmarks --product FaultingBenchmark
//     Benchmarks/.build/release/FaultingBenchmark [--sizes 10000,100000] [--runs 5]
//
// W11: N persons. "one by one" registers N faults from their IDs and fires each (one store
// query per object); "prefetched" fetches the N objects (their rows come with the fetch) and
// reads each. Memory per fault: the heap the N registered faults of `object(with:)` occupy.
// W12: 3,417 persons, each with one address (to-one). IDs only, faults (fetched, not read),
// objects with values (every attribute read), and with the address prefetched (the address's
// attributes read too); the raw baselines select the same columns (a join for the last).
import BenchmarkSQLite
import BenchmarkSupport
import Foundation
import PersistentStores

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FaultingBenchmark: \(message)\n".utf8))
    exit(1)
}

var sizes = [10_000, 100_000]
var runs = 5
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    default: fail("usage: FaultingBenchmark [--sizes 10000,100000] [--runs 5]")
    }
}

let model: ObjectModel = {
    do {
        return try ObjectModel {
            Entity("Person") {
                Attribute("name", .string)
                Attribute("age", .integer32)
                Relationship("address", to: "Address", inverse: "person", optional: true)
            }
            Entity("Address") {
                Attribute("street", .string)
                Attribute("city", .string)
                Relationship("person", to: "Person", inverse: "address", optional: true)
            }
        }
    } catch {
        fail("model: \(error)")
    }
}()

let registry: StoreRegistry = {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    return registry
}()

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FaultingBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

func open(_ url: URL) throws -> PersistentStoreCoordinator {
    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
    try coordinator.addPersistentStore(type: "SQLite", at: url)
    return coordinator
}

/// A store of `count` persons, each with an address.
func makeStore(_ count: Int) throws -> URL {
    let url = folder.appendingPathComponent("persons-\(count).sqlite")
    let coordinator = try open(url)
    let context = ManagedObjectContext(coordinator: coordinator)
    for index in 0..<count {
        let person = try context.insert(entityName: "Person")
        try person.setValue(.string("person \(index)"), forKey: "name")
        try person.setValue(.int(Int64(index % 90)), forKey: "age")
        let address = try context.insert(entityName: "Address")
        try address.setValue(.string("\(index) Main Street"), forKey: "street")
        try address.setValue(.string("City \(index % 100)"), forKey: "city")
        try person.setObject(address, forKey: "address")
    }
    try context.save()
    return url
}

/// The raw sqlite3 baseline on the store's own file.
final class Raw {
    private var db: OpaquePointer?
    init(_ url: URL) {
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { fail("raw: cannot open") }
    }
    deinit { sqlite3_close_v2(db) }

    /// Runs `sql` and calls `row` per result row; returns the number of rows.
    @discardableResult
    func query(_ sql: String, row: (OpaquePointer?) -> Void) -> Int {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { fail("raw: \(sql)") }
        defer { sqlite3_finalize(statement) }
        var count = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            row(statement)
            count += 1
        }
        return count
    }

    static func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: pointer)
    }
}

struct PersonRow { var key: Int64; var name: String; var age: Int; var address: Int64 }
struct PersonWithAddress { var name: String; var age: Int; var street: String; var city: String }

func report(_ workload: String, _ size: Int, _ framework: Timing, _ raw: Timing, target: String, limit: Double) {
    let line = "| \(workload) | \(size) | \(format(framework.median)) | \(format(raw.median)) | \(ratio(framework.median / raw.median)) | \(target) |"
    print(line)
    Summary.line("\(workload) ÷ raw", size: nil, framework.median / raw.median, target: .atMost(limit))
}

print("W11/W12, SQLite store vs raw sqlite3; medians of \(runs) runs")
print("| workload | N | framework | raw sqlite3 | framework / raw | target |")
print("|---|---:|---:|---:|---:|---|")

// W11.
for size in sizes {
    let url = try makeStore(size)
    var oneByOne = Timing(name: "one by one")
    var prefetched = Timing(name: "prefetched")
    var rawTiming = Timing(name: "raw")
    var faultBytes: [Double] = []
    for _ in 0..<runs {
        do {
            let coordinator = try open(url)
            let ids = try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest(entityName: "Person"))
            let context = ManagedObjectContext(coordinator: coordinator)
            let before = Double(benchmark_heap_in_use())
            let faults = ids.map { context.object(with: $0) }
            faultBytes.append((Double(benchmark_heap_in_use()) - before) / Double(size))
            var ages = 0
            try oneByOne.time { for fault in faults { ages += fault.value(forKey: "age", as: Int.self) ?? 0 } }
            if ages == 0 && size > 90 { fail("W11 read nothing") }
        }
        do {
            let coordinator = try open(url)
            let context = ManagedObjectContext(coordinator: coordinator)
            var ages = 0
            try prefetched.time {
                for person in try context.fetch(FetchRequest(entityName: "Person")) { ages += person.value(forKey: "age", as: Int.self) ?? 0 }
            }
            if ages == 0 && size > 90 { fail("W11 read nothing") }
        }
        let raw = Raw(url)
        rawTiming.time {
            var rows: [PersonRow] = []
            raw.query("SELECT Z_PK, ZNAME, ZAGE, ZADDRESS FROM ZPERSON") { statement in
                rows.append(PersonRow(
                    key: sqlite3_column_int64(statement, 0), name: Raw.text(statement, 1),
                    age: Int(sqlite3_column_int64(statement, 2)), address: sqlite3_column_int64(statement, 3)))
            }
        }
    }
    let oneByOneMedian = oneByOne.median
    let line = "| W11 fire N faults one by one / prefetched | \(size) | \(format(oneByOneMedian)) / \(format(prefetched.median)) | \(format(rawTiming.median)) | prefetching \(ratio(oneByOneMedian / prefetched.median)) faster; \(Int(Timing.median(faultBytes))) B per fault | prefetching ≥ 10× faster; ≤ 100 B per fault |"
    print(line)
    Summary.line("W11 faults fired one by one ÷ prefetched", size: size, oneByOneMedian / prefetched.median, target: .atLeast(10))
    Summary.line("W11 bytes per fault", size: size, Timing.median(faultBytes), unit: "B", target: .atMost(100))
}

// W12.
do {
    let size = 3_417
    let url = try makeStore(size)
    var timings: [String: Timing] = [:]
    func measure(_ key: String, _ body: () throws -> Void) rethrows {
        var timing = timings[key] ?? Timing(name: key)
        try timing.time(body)
        timings[key] = timing
    }
    let raw = Raw(url)
    // One round first, untimed, so every contender reads a warm file.
    for round in 0...runs {
        if round == 1 { timings = [:] }
        let coordinator = try open(url)
        _ = try ManagedObjectContext(coordinator: coordinator).count(for: FetchRequest(entityName: "Person"))
        try measure("ids") {
            let ids = try ManagedObjectContext(coordinator: coordinator).fetchObjectIDs(FetchRequest(entityName: "Person"))
            if ids.count != size { fail("W12 ids") }
        }
        try measure("faults") {
            let context = ManagedObjectContext(coordinator: coordinator)
            let objects = try context.fetch(FetchRequest(entityName: "Person"))
            if objects.count != size { fail("W12 faults") }
        }
        try measure("values") {
            var rows: [PersonRow] = []
            let context = ManagedObjectContext(coordinator: coordinator)
            for person in try context.fetch(FetchRequest(entityName: "Person")) {
                rows.append(PersonRow(
                    key: 0, name: person.value(forKey: "name", as: String.self) ?? "",
                    age: person.value(forKey: "age", as: Int.self) ?? 0, address: 0))
            }
            if rows.count != size || rows.contains(where: { $0.name.isEmpty }) { fail("W12 values") }
        }
        try measure("prefetched") {
            var request = FetchRequest(entityName: "Person")
            request.relationshipKeyPathsForPrefetching = ["address"]
            var rows: [PersonWithAddress] = []
            let context = ManagedObjectContext(coordinator: coordinator)
            for person in try context.fetch(request) {
                let address = person.object(forKey: "address")
                rows.append(PersonWithAddress(
                    name: person.value(forKey: "name", as: String.self) ?? "", age: person.value(forKey: "age", as: Int.self) ?? 0,
                    street: address?.value(forKey: "street", as: String.self) ?? "",
                    city: address?.value(forKey: "city", as: String.self) ?? ""))
            }
            if rows.count != size || rows.contains(where: { $0.street.isEmpty }) { fail("W12 prefetched") }
        }
        measure("raw.ids") {
            var keys: [Int64] = []
            raw.query("SELECT Z_PK FROM ZPERSON") { keys.append(sqlite3_column_int64($0, 0)) }
        }
        measure("raw.rows") {
            var rows: [PersonRow] = []
            raw.query("SELECT Z_PK, ZNAME, ZAGE, ZADDRESS FROM ZPERSON") { statement in
                rows.append(PersonRow(
                    key: sqlite3_column_int64(statement, 0), name: Raw.text(statement, 1),
                    age: Int(sqlite3_column_int64(statement, 2)), address: sqlite3_column_int64(statement, 3)))
            }
        }
        measure("raw.join") {
            var rows: [PersonWithAddress] = []
            raw.query("SELECT p.ZNAME, p.ZAGE, a.ZSTREET, a.ZCITY FROM ZPERSON p LEFT JOIN ZADDRESS a ON a.Z_PK = p.ZADDRESS") { s in
                rows.append(PersonWithAddress(
                    name: Raw.text(s, 0), age: Int(sqlite3_column_int64(s, 1)), street: Raw.text(s, 2), city: Raw.text(s, 3)))
            }
        }
    }
    func timing(_ key: String) -> Timing { timings[key] ?? Timing(name: key) }
    report("W12 IDs only", size, timing("ids"), timing("raw.ids"), target: "≤ 1.3× raw", limit: 1.3)
    report("W12 faults", size, timing("faults"), timing("raw.rows"), target: "≤ 2× raw", limit: 2)
    report("W12 objects with values", size, timing("values"), timing("raw.rows"), target: "≤ 2× raw", limit: 2)
    report("W12 with the address prefetched", size, timing("prefetched"), timing("raw.join"), target: "≤ 2× raw (a join)", limit: 2)
}
print("peak RSS \(String(format: "%.0f", peakResidentMiB())) MiB")
