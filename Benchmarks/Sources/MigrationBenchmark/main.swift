// Lightweight migration of a large SQLite store (issue 17) against what SQLite itself does for
// the same schema change, on copies of the same file, in the same run:
//
//     swift build -c release --package-path Benchmarks --product MigrationBenchmark
//     Benchmarks/.build/release/MigrationBenchmark [--sizes 1000000] [--runs 3]
//
// The store: Person {name (indexed), email, age Int32, score Double, born Date}, N rows written by
// one batch insert. Three changes, each timed from the call to its end (the file closed):
// - "add optional": a new optional attribute; the framework's `MigrationManager` against
//   `ALTER TABLE ZPERSON ADD COLUMN ZNICKNAME VARCHAR` with the raw sqlite3 API;
// - "add with default": a new required attribute with a default value (7) against
//   `ALTER TABLE … ADD COLUMN ZRANK INTEGER DEFAULT 7`;
// - "rebuild": `score` removed and `age` renamed to `years` (renaming identifier), which needs the
//   table rebuilt, against a hand-written rebuild in one transaction (`CREATE TABLE` of the new
//   columns, `INSERT … SELECT` of every row, `DROP TABLE`, `ALTER TABLE … RENAME`, the index made
//   again).
// Each contender works on its own fresh copy of the store; the copy is not timed. The
// framework's metadata update is part of its time (the raw baseline changes the schema only).
import BenchmarkSQLite
import BenchmarkSupport
import Foundation
import PersistentStores

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("MigrationBenchmark: \(message)\n".utf8))
    exit(1)
}

var sizes = [1_000_000]
var runs = 3
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    default: fail("usage: MigrationBenchmark [--sizes 1000000] [--runs 3]")
    }
}

func model(_ extra: [AttributeDescription] = [], rebuilt: Bool = false) -> ObjectModel {
    var attributes = [
        Attribute("name", .string, indexed: true), Attribute("email", .string),
        rebuilt ? Attribute("years", .integer32, renamingIdentifier: "age") : Attribute("age", .integer32),
        Attribute("born", .date),
    ]
    if !rebuilt { attributes.insert(Attribute("score", .double), at: 3) }
    do {
        var person = Entity("Person")
        person.attributes = attributes + extra
        return try ObjectModel(entities: [person])
    } catch {
        fail("model: \(error)")
    }
}

let v1 = model()
let withNickname = model([Attribute("nickname", .string)])
let withRank = model([Attribute("rank", .integer32, optional: false, defaultValue: 7)])
let rebuilt = model(rebuilt: true)

let registry: StoreRegistry = {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    return registry
}()

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("MigrationBenchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }

/// A v1 store of `count` persons, closed (its WAL folded into the file).
func makeStore(_ count: Int) throws -> URL {
    let url = folder.appendingPathComponent("persons-\(count).sqlite")
    let coordinator = PersistentStoreCoordinator(model: v1, registry: registry)
    let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
    let chunk = 100_000
    for start in stride(from: 0, to: count, by: chunk) {
        let objects: [[String: StoreValue]] = (start..<min(count, start + chunk)).map { index in
            [
                "name": .string("person \(index)"), "email": .string("person\(index)@example.com"),
                "age": .int(Int64(18 + index % 60)), "score": .double(Double(index) * 0.5),
                "born": .date(Date(timeIntervalSinceReferenceDate: Double(index) * 1000)),
            ]
        }
        try coordinator.execute(BatchInsertRequest(entityName: "Person", objects: objects))
    }
    try coordinator.remove(store)
    return url
}

func removeDatabase(_ url: URL) {
    for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

func copy(_ source: URL) throws -> URL {
    let target = folder.appendingPathComponent("work.sqlite")
    removeDatabase(target)
    try FileManager.default.copyItem(at: source, to: target)
    return target
}

/// Runs SQL with the raw sqlite3 API on a connection of its own, then closes it.
func raw(_ url: URL, _ sql: String) {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { fail("cannot open \(url.path)") }
    defer { sqlite3_close_v2(db) }
    var message: UnsafeMutablePointer<CChar>?
    guard sqlite3_exec(db, sql, nil, nil, &message) == SQLITE_OK else {
        fail("\(sql): \(message.map { String(cString: $0) } ?? "error")")
    }
}

/// The number of rows of ZPERSON and the sum of a column, read with raw sqlite3 (to check that
/// both contenders end with the same data).
func check(_ url: URL, _ column: String) -> String {
    var db: OpaquePointer?
    guard sqlite3_open_v2(url.path, &db, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let db else { fail("cannot open \(url.path)") }
    defer { sqlite3_close_v2(db) }
    var statement: OpaquePointer?
    guard sqlite3_prepare_v2(db, "SELECT COUNT(*), TOTAL(\(column)) FROM ZPERSON", -1, &statement, nil) == SQLITE_OK else {
        fail("no column \(column) in \(url.path)")
    }
    defer { sqlite3_finalize(statement) }
    guard sqlite3_step(statement) == SQLITE_ROW else { fail("no count") }
    return "\(sqlite3_column_int64(statement, 0)) rows, total \(sqlite3_column_double(statement, 1))"
}

func migrate(_ url: URL, to destination: ObjectModel) throws {
    try MigrationManager(sourceModel: v1, destinationModel: destination, registry: registry).migrateStore(
        at: url, type: "SQLite", mapping: try MappingModel.inferred(from: v1, to: destination))
}

struct Change {
    let name: String
    let destination: ObjectModel
    let sql: String
    /// The column both results are checked on.
    let column: String
}

let changes = [
    Change(name: "add optional", destination: withNickname, sql: "ALTER TABLE ZPERSON ADD COLUMN ZNICKNAME VARCHAR", column: "ZAGE"),
    Change(name: "add with default", destination: withRank, sql: "ALTER TABLE ZPERSON ADD COLUMN ZRANK INTEGER DEFAULT 7", column: "ZRANK"),
    Change(
        name: "rebuild", destination: rebuilt,
        sql: """
            BEGIN;
            CREATE TABLE ZPERSON_NEW (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZNAME VARCHAR, ZEMAIL VARCHAR, ZYEARS INTEGER, ZBORN TIMESTAMP);
            INSERT INTO ZPERSON_NEW (Z_PK, Z_ENT, Z_OPT, ZNAME, ZEMAIL, ZYEARS, ZBORN) SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZEMAIL, ZAGE, ZBORN FROM ZPERSON;
            DROP TABLE ZPERSON;
            ALTER TABLE ZPERSON_NEW RENAME TO ZPERSON;
            CREATE INDEX ZPERSON_ZNAME_INDEX ON ZPERSON (ZNAME);
            COMMIT;
            """,
        column: "ZYEARS"),
]

print("Lightweight migration of an SQLite store vs SQLite's own schema change; medians of \(runs) runs")
print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, load \((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?")")
print("N | change | framework | raw sqlite3 | framework ÷ raw")
for size in sizes {
    let store = try makeStore(size)
    for change in changes {
        var framework = Timing(name: "framework")
        var baseline = Timing(name: "raw")
        var results: (String, String) = ("", "")
        for _ in 0..<runs {
            let frameworkCopy = try copy(store)
            try framework.time { try migrate(frameworkCopy, to: change.destination) }
            results.0 = check(frameworkCopy, change.column)
            let rawCopy = try copy(store)
            baseline.time { raw(rawCopy, change.sql) }
            results.1 = check(rawCopy, change.column)
        }
        guard results.0 == results.1 else { fail("\(change.name): framework \(results.0), raw \(results.1)") }
        print("\(size) | \(change.name) | \(format(framework.median)) | \(format(baseline.median)) | \(ratio(framework.median / baseline.median))")
    }
}
