// The fixed cost of a fetch request on the SQLite store (W3 and W4 of specs/performance.md)
// against the hand-written queries with the raw sqlite3 C API on the same file, in the same
// run: the workloads where a request returns few rows, so what the framework spends before
// the first row (validation, compiling, routing, the read transaction) is most of the time.
// SQLiteStoreBenchmark measures the same workloads next to GRDB; this one builds without it.
//
//     swift build -c release --package-path Benchmarks --product FetchRequestBenchmark
//     Benchmarks/.build/release/FetchRequestBenchmark [--sizes 10000,100000] [--runs 5]
//
// The data of SQLiteStoreBenchmark (Person {name (indexed), email, age Int32, score, born}),
// written by one batch insert. W3: `age BETWEEN {20, 40}` as object IDs and as a count through
// a context; W4: `age BETWEEN {20, 40} AND name BEGINSWITH 'A'`, sorted by name, limit 100, a new
// context per query, every attribute read; "W4, other constants" runs W4 with the letter and
// the ages changing from query to query (each a new request). Times per query, medians.
import BenchmarkSQLite
import BenchmarkSupport
import Foundation
import PersistentStores

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("FetchRequestBenchmark: \(message)\n".utf8))
    exit(1)
}

var sizes = [10_000, 100_000]
var runs = 5
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    default: fail("usage: FetchRequestBenchmark [--sizes 10000,100000] [--runs 5]")
    }
}

let model: ObjectModel = {
    do {
        return try ObjectModel {
            Entity("Person") {
                Attribute("name", .string, indexed: true)
                Attribute("email", .string)
                Attribute("age", .integer32)
                Attribute("score", .double)
                Attribute("born", .date)
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

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("FetchRequestBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

func makeStore(_ count: Int) throws -> URL {
    let url = folder.appendingPathComponent("persons-\(count).sqlite")
    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
    let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
    let objects: [[String: StoreValue]] = (0..<count).map { index in
        [
            "name": .string("\(letters[index % 26])person \(index)"), "email": .string("person\(index)@example.com"),
            "age": .int(Int64(18 + index % 60)), "score": .double(Double(index) * 0.5),
            "born": .date(Date(timeIntervalSinceReferenceDate: Double(index) * 1000)),
        ]
    }
    try coordinator.execute(BatchInsertRequest(entityName: "Person", objects: objects))
    try coordinator.remove(store)
    return url
}

struct Row {
    var name = "", email = "", age: Int32 = 0, score = 0.0, born = 0.0
}

/// The hand-written queries, prepared once.
final class Raw {
    let db: OpaquePointer?
    let ids, count, hundred: OpaquePointer?
    static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    init(_ url: URL) {
        var db: OpaquePointer?
        guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else { fail("raw: cannot open") }
        self.db = db
        func prepare(_ sql: String) -> OpaquePointer? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK else { fail("raw: \(sql)") }
            return statement
        }
        ids = prepare("SELECT Z_PK FROM ZPERSON WHERE ZAGE BETWEEN ?1 AND ?2")
        count = prepare("SELECT COUNT(*) FROM ZPERSON WHERE ZAGE BETWEEN ?1 AND ?2")
        hundred = prepare(
            "SELECT Z_PK, ZNAME, ZEMAIL, ZAGE, ZSCORE, ZBORN FROM ZPERSON WHERE ZAGE BETWEEN ?1 AND ?2 AND ZNAME >= ?3 AND ZNAME < ?4 ORDER BY ZNAME LIMIT 100")
    }

    deinit {
        for statement in [ids, count, hundred] { sqlite3_finalize(statement) }
        sqlite3_close_v2(db)
    }

    func text(_ statement: OpaquePointer?, _ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        return String(cString: bytes)
    }

    func bind(_ text: String, _ statement: OpaquePointer?, _ index: Int32) {
        var text = text
        text.withUTF8 { buffer in
            _ = sqlite3_bind_text(
                statement, index, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self), Int32(buffer.count),
                Self.transient)
        }
    }

    func objectIDs() -> Int {
        sqlite3_bind_int64(ids, 1, 20)
        sqlite3_bind_int64(ids, 2, 40)
        var keys: [Int64] = []
        while sqlite3_step(ids) == SQLITE_ROW { keys.append(sqlite3_column_int64(ids, 0)) }
        sqlite3_reset(ids)
        return keys.count
    }

    func counted() -> Int {
        sqlite3_bind_int64(count, 1, 20)
        sqlite3_bind_int64(count, 2, 40)
        let result = sqlite3_step(count) == SQLITE_ROW ? Int(sqlite3_column_int64(count, 0)) : -1
        sqlite3_reset(count)
        return result
    }

    func firstHundred(letter: Character, low: Int64, high: Int64) -> Int {
        sqlite3_bind_int64(hundred, 1, low)
        sqlite3_bind_int64(hundred, 2, high)
        bind(String(letter), hundred, 3)
        bind(String(UnicodeScalar((letter.asciiValue ?? 65) + 1)), hundred, 4)
        var rows: [Row] = []
        while sqlite3_step(hundred) == SQLITE_ROW {
            rows.append(
                Row(
                    name: text(hundred, 1), email: text(hundred, 2), age: sqlite3_column_int(hundred, 3),
                    score: sqlite3_column_double(hundred, 4), born: sqlite3_column_double(hundred, 5)))
        }
        sqlite3_reset(hundred)
        return rows.count
    }
}

func firstHundred(_ coordinator: PersistentStoreCoordinator, _ request: FetchRequest) throws -> Int {
    let context = ManagedObjectContext(coordinator: coordinator)
    var rows: [Row] = []
    for person in try context.fetch(request) {
        rows.append(
            Row(
                name: person.value(forKey: "name", as: String.self) ?? "", email: person.value(forKey: "email", as: String.self) ?? "",
                age: person.value(forKey: "age", as: Int32.self) ?? 0, score: person.value(forKey: "score", as: Double.self) ?? 0,
                born: person.value(forKey: "born", as: Date.self)?.timeIntervalSinceReferenceDate ?? 0))
    }
    return rows.count
}

func w4Request(letter: Character, low: Int, high: Int) throws -> FetchRequest {
    var request = FetchRequest(
        entityName: "Person", predicate: try FetchPredicate(format: "age BETWEEN {%@, %@} AND name BEGINSWITH %@", low, high, String(letter)),
        sortKeys: [SortKey("name")])
    request.fetchLimit = 100
    return request
}

print("Fetch requests on the SQLite store: time per query, medians of \(runs) runs (CPU of the measuring thread)")
print("workload | N | framework | raw sqlite3 | framework / raw (CPU)")
for size in sizes {
    let url = try makeStore(size)
    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
    try coordinator.addPersistentStore(type: "SQLite", at: url)
    let raw = Raw(url)
    let repetitions = max(20, 2_000_000 / size)
    var timings: [String: Timing] = [:]
    func measure(_ name: String, _ body: () throws -> Int) rethrows -> Int {
        var timing = timings[name] ?? Timing(name: name)
        var result = 0
        try timing.time { for _ in 0..<repetitions { result = try body() } }
        timings[name] = timing
        return result
    }
    let context = ManagedObjectContext(coordinator: coordinator)
    let w3 = FetchRequest(entityName: "Person", predicate: try FetchPredicate(format: "age BETWEEN {20, 40}"))
    let w4 = try w4Request(letter: "A", low: 20, high: 40)
    // Other constants each query: prebuilt, so building them is not timed.
    let varied = try (0..<repetitions).map { index in try w4Request(letter: letters[index % 26], low: 20 + index % 5, high: 40 + index % 7) }
    for _ in 0..<runs {
        let ids = try measure("w3.ids") { try context.fetchObjectIDs(w3).count }
        let rawIDs = measure("w3.raw.ids") { raw.objectIDs() }
        let count = try measure("w3.count") { try context.count(for: w3) }
        let rawCount = measure("w3.raw.count") { raw.counted() }
        let hundred = try measure("w4") { try firstHundred(coordinator, w4) }
        let rawHundred = measure("w4.raw") { raw.firstHundred(letter: "A", low: 20, high: 40) }
        var next = 0
        _ = try measure("w4.varied") {
            defer { next += 1 }
            return try firstHundred(coordinator, varied[next % varied.count])
        }
        next = 0
        _ = measure("w4.raw.varied") {
            defer { next += 1 }
            return raw.firstHundred(letter: letters[next % 26], low: Int64(20 + next % 5), high: Int64(40 + next % 7))
        }
        guard ids == rawIDs, count == rawCount, ids == count, hundred == rawHundred, hundred == 100 else {
            fail("results differ: \(ids)/\(rawIDs) IDs, \(count)/\(rawCount) counted, \(hundred)/\(rawHundred) of W4")
        }
    }
    func micro(_ seconds: Double) -> String { String(format: "%.1f µs", seconds / Double(repetitions) * 1e6) }
    func row(_ title: String, _ framework: String, _ baseline: String, limit: Double) {
        guard let f = timings[framework], let b = timings[baseline] else { return }
        print(
            "\(title) | \(size) | \(micro(f.median)) (\(micro(f.cpuMedian))) | \(micro(b.median)) (\(micro(b.cpuMedian))) | "
                + "\(ratio(f.median / b.median)) (\(ratio(f.cpuMedian / b.cpuMedian)))")
        // The run's summary (scripts/bench.sh), in CPU time.
        Summary.line("\(title) ÷ raw (CPU, a request run again)", size: size, f.cpuMedian / b.cpuMedian, target: .atMost(limit))
    }
    row("W3 object IDs", "w3.ids", "w3.raw.ids", limit: 1.3)
    row("W3 count", "w3.count", "w3.raw.count", limit: 1.3)
    row("W4 limit 100, same request", "w4", "w4.raw", limit: 1.5)
    row("W4 limit 100, other constants", "w4.varied", "w4.raw.varied", limit: 1.5)
}
