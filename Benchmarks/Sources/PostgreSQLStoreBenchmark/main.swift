// The PostgreSQL store against the same work written directly with libpq, in the same run, on
// the same server (issue 18; W1–W4 and W6 of specs/performance.md):
//
//     URL=$(bash scripts/postgres-scratch.sh start)
//     swift run -c release --package-path Benchmarks PostgreSQLStoreBenchmark --url "$URL" [--sizes 10000,100000] [--runs 3]
//     bash scripts/postgres-scratch.sh stop
//
// Data: Person {name (indexed), email, age Int32, score Double, born Date}, N rows. Each run
// writes a fresh store (its own PostgreSQL schema) and a fresh raw table with the same columns,
// types and index, then times on each:
// - W1 insert N and commit: the framework inserts through a context and saves once (multi-row
//   INSERTs of up to 1,024 rows in one transaction); the raw baselines run, in one transaction,
//   the INSERT of one row, prepared once with `PQprepare`, per row with `PQexecPrepared`, and
//   (W1 multi-row) prepared INSERTs of 1,024 rows and one of the rest (neither uses COPY).
//   Every statement of the baseline is prepared once, before timing;
// - W2 fetch all N and read every attribute: a fetch through a new context reading the five
//   values of each object, against `SELECT` of the five columns converted to Swift values;
// - W3 count with a predicate (`age > 40`) and fetch the object IDs of the same rows;
// - W4 `age BETWEEN {20, 40} AND name BEGINSWITH 'A'`, sorted by name, limit 100, values read;
// - W6 batch update of half the rows (`score = 0` where `age < 48`), then batch delete of the
//   other half, against the hand-written UPDATE (Z_OPT incremented too) and DELETE.
import BenchmarkLibPQ
import BenchmarkSupport
import Foundation
import PersistentStores

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PostgreSQLStoreBenchmark: \(message)\n".utf8))
    exit(1)
}

var sizes = [10_000, 100_000]
var runs = 3
var base = ProcessInfo.processInfo.environment["PERSISTENTSTORES_POSTGRES_URL"] ?? ""
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--sizes": sizes = (arguments.next() ?? "").split(separator: ",").compactMap { Int($0) }
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    case "--url": base = arguments.next() ?? ""
    default: fail("usage: PostgreSQLStoreBenchmark --url postgresql://… [--sizes 10000,100000] [--runs 3]")
    }
}
guard !base.isEmpty else { fail("no server: pass --url (scripts/postgres-scratch.sh start prints one)") }

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
let firstNames = ["Ada", "Bea", "Cyd", "Dot", "Eve", "Fay", "Gus", "Hal", "Ida", "Jon", "Kim", "Lou", "Max",
    "Ned", "Oz", "Pam", "Quin", "Roy", "Sue", "Tom", "Uma", "Val", "Wes", "Xan", "Yul", "Zed"]

/// The values of person `i` (computed before timing).
struct Row {
    let name: String
    let email: String
    let age: Int32
    let score: Double
    let born: Date
}

func rows(_ count: Int) -> [Row] {
    (0..<count).map { (index: Int) -> Row in
        let name = firstNames[index % 26] + " " + String(index)
        let email = "person" + String(index) + "@example.com"
        let age = Int32(18 + index % 60)
        let score = Double(index % 1000) / 7
        let born = Date(timeIntervalSinceReferenceDate: -1e9 + Double(index) * 1234.5)
        return Row(name: name, email: email, age: age, score: score, born: born)
    }
}

func storeURL(_ schema: String, base: String) -> URL {
    guard let url = URL(string: base + (base.contains("?") ? "&" : "?") + "schema=\(schema)") else { fail("not a URL: \(base)") }
    return url
}

// MARK: Raw libpq

/// One libpq connection with the few calls the baseline needs.
final class Raw {
    let connection: OpaquePointer

    init(schema: String, base: String) {
        guard let connection = PQconnectdb(base), PQstatus(connection) == CONNECTION_OK else { fail("cannot connect to \(base)") }
        self.connection = connection
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        exec("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        exec("CREATE SCHEMA \(schema)")
        exec("SET search_path TO \(schema)")
        exec(
            "CREATE TABLE zperson (z_pk bigint PRIMARY KEY, z_ent bigint, z_opt bigint, zname text COLLATE \"C\", zemail text COLLATE \"C\", zage integer, zscore double precision, zborn double precision)"
        )
        exec("CREATE INDEX zperson_zname_index ON zperson (zname)")
    }

    deinit { PQfinish(connection) }

    /// Runs `sql` with text parameters; returns the result (cleared by the caller with `PQclear`).
    @discardableResult
    func exec(_ sql: String, _ parameters: [String?] = [], keep: Bool = false) -> OpaquePointer? {
        run(sql, parameters, keep: keep) { count, values in PQexecParams(connection, sql, count, nil, values, nil, nil, 0) }
    }

    /// Prepares `sql` once on this connection as the statement `name` (what a real application
    /// and the store do for a statement run many times: parsed and planned once).
    func prepare(_ name: String, _ sql: String) {
        let result = PQprepare(connection, name, sql, 0, nil)
        guard PQresultStatus(result) == PGRES_COMMAND_OK else { fail("prepare \(sql): \(String(cString: PQerrorMessage(connection)))") }
        PQclear(result)
    }

    /// Runs the prepared statement `name` with text parameters; returns the result when `keep`.
    @discardableResult
    func execPrepared(_ name: String, _ parameters: [String?], keep: Bool = false) -> OpaquePointer? {
        run(name, parameters, keep: keep) { count, values in PQexecPrepared(connection, name, count, values, nil, nil, 0) }
    }

    private func run(
        _ what: String, _ parameters: [String?], keep: Bool,
        _ call: (Int32, UnsafePointer<UnsafePointer<CChar>?>?) -> OpaquePointer?
    ) -> OpaquePointer? {
        var copies = parameters.map { $0.flatMap { strdup($0) } }
        defer { for pointer in copies { free(pointer) } }
        let result = copies.withUnsafeMutableBufferPointer { buffer -> OpaquePointer? in
            guard let start = buffer.baseAddress, !buffer.isEmpty else { return call(0, nil) }
            return start.withMemoryRebound(to: UnsafePointer<CChar>?.self, capacity: buffer.count) { values in
                call(Int32(parameters.count), values)
            }
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else {
            fail("\(what): \(String(cString: PQerrorMessage(connection)))")
        }
        if keep { return result }
        PQclear(result)
        return nil
    }
}

/// The rows of a result converted to Swift values (what reading every attribute costs).
func read(_ result: OpaquePointer?, columns: Int) -> Int {
    var checksum = 0
    for row in 0..<PQntuples(result) {
        for column in 0..<Int32(columns) {
            guard PQgetisnull(result, row, column) == 0, let text = PQgetvalue(result, row, column) else { continue }
            switch column {
            case 0, 1: checksum &+= String(cString: text).utf8.count
            case 2: checksum &+= Int(Int32(String(cString: text)) ?? 0)
            default: checksum &+= Int(Double(String(cString: text)) ?? 0)
            }
        }
    }
    PQclear(result)
    return checksum
}

// MARK: Runs

PersistentStores.registerBuiltInStoreTypes()
var table: [(String, Int, String, String, String)] = []
for size in sizes {
    let data = rows(size)
    var framework: [String: Timing] = [:]
    var raw: [String: Timing] = [:]
    func frameworkTime<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        var timing = framework[name] ?? Timing(name: name)
        defer { framework[name] = timing }
        return try timing.time(body)
    }
    func rawTime<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        var timing = raw[name] ?? Timing(name: name)
        defer { raw[name] = timing }
        return try timing.time(body)
    }
    for run in 0..<runs {
        let schema = "bench_fw_\(size)_\(run)"
        do {
            // A fresh schema for the store.
            try? PersistentStoreCoordinator(model: model).destroyPersistentStore(at: storeURL(schema, base: base), type: "PostgreSQL")
            let coordinator = PersistentStoreCoordinator(model: model)
            try coordinator.addPersistentStore(type: "PostgreSQL", at: storeURL(schema, base: base))
            try frameworkTime("W1 insert N, save") {
                let context = ManagedObjectContext(coordinator: coordinator)
                for row in data {
                    let person = try context.insert(entityName: "Person")
                    try person.setValue(.string(row.name), forKey: "name")
                    try person.setValue(.string(row.email), forKey: "email")
                    try person.setValue(.int(Int64(row.age)), forKey: "age")
                    try person.setValue(.double(row.score), forKey: "score")
                    try person.setValue(.date(row.born), forKey: "born")
                }
                try context.save()
            }
            let reader = PersistentStoreCoordinator(model: model)
            try reader.addPersistentStore(type: "PostgreSQL", at: storeURL(schema, base: base))
            let all = try frameworkTime("W2 fetch N, read all") { () -> Int in
                let context = ManagedObjectContext(coordinator: reader)
                var checksum = 0
                for person in try context.fetch(FetchRequest(entityName: "Person")) {
                    for key in ["name", "email", "age", "score", "born"] {
                        if case .string(let text) = person.value(forKey: key) { checksum &+= text.utf8.count }
                    }
                }
                return checksum
            }
            _ = all
            let older = try FetchPredicate(format: "age > 40")
            _ = try frameworkTime("W3 count age > 40") {
                try ManagedObjectContext(coordinator: reader).count(for: FetchRequest(entityName: "Person", predicate: older))
            }
            _ = try frameworkTime("W3 IDs age > 40") { () -> Int in
                var request = FetchRequest(entityName: "Person", predicate: older)
                request.resultType = .objectIDs
                return try ManagedObjectContext(coordinator: reader).fetchObjectIDs(request).count
            }
            // Parsed once, as the SQLite store's W4 does: the workload is the fetch.
            let w4Predicate = try FetchPredicate(format: "age BETWEEN {20, 40} AND name BEGINSWITH 'A'")
            _ = try frameworkTime("W4 BETWEEN + BEGINSWITH, sorted, 100") { () -> Int in
                var request = FetchRequest(entityName: "Person", predicate: w4Predicate)
                request.sortKeys = [SortKey("name")]
                request.fetchLimit = 100
                // The context lives while its objects are read (as in the SQLite store's W4): the
                // objects are faults filled from the rows the fetch remembered for the context.
                let context = ManagedObjectContext(coordinator: reader)
                var checksum = 0
                for person in try context.fetch(request) {
                    for key in ["name", "email", "age", "score", "born"] {
                        if case .string(let text) = person.value(forKey: key) { checksum &+= text.utf8.count }
                    }
                }
                return checksum
            }
            let younger = try FetchPredicate(format: "age < 48")
            _ = try frameworkTime("W6 batch update 50%") {
                try reader.execute(BatchUpdateRequest(entityName: "Person", predicate: younger, propertiesToUpdate: ["score": 0.0], resultType: .count))
            }
            _ = try frameworkTime("W6 batch delete 50%") {
                try reader.execute(BatchDeleteRequest(entityName: "Person", predicate: try FetchPredicate(format: "age >= 48"), resultType: .count))
            }
        } catch {
            fail("framework, \(size) rows: \(error)")
        }

        let rawSchema = "bench_raw_\(size)_\(run)"
        let connection = Raw(schema: rawSchema, base: base)
        // Every statement the baseline repeats is prepared once, before timing (W14: raw libpq
        // with prepared statements); the store prepares its statements once per connection too.
        connection.prepare(
            "insert", "INSERT INTO zperson (z_pk, z_ent, z_opt, zname, zemail, zage, zscore, zborn) VALUES ($1, 1, 1, $2, $3, $4, $5, $6)")
        // W1 multi-row: 1,024 rows a statement, then one statement of the rest.
        let batch = 1_024
        func valuesList(rows: Int) -> String {
            (0..<rows).map { row in "($\(row * 6 + 1), 1, 1, " + (2...6).map { "$\(row * 6 + $0)" }.joined(separator: ", ") + ")" }
                .joined(separator: ", ")
        }
        let columns = "INSERT INTO zperson (z_pk, z_ent, z_opt, zname, zemail, zage, zscore, zborn) VALUES "
        connection.prepare("insert_batch", columns + valuesList(rows: batch))
        if data.count % batch > 0 { connection.prepare("insert_rest", columns + valuesList(rows: data.count % batch)) }
        connection.prepare("all", "SELECT zname, zemail, zage, zscore, zborn FROM zperson ORDER BY z_pk")
        connection.prepare("count", "SELECT COUNT(*) FROM zperson WHERE zage > $1")
        connection.prepare("ids", "SELECT z_pk FROM zperson WHERE zage > $1 ORDER BY z_pk")
        connection.prepare(
            "w4",
            "SELECT zname, zemail, zage, zscore, zborn FROM zperson WHERE zage >= $1 AND zage <= $2 AND zname >= $3 AND zname < $4 ORDER BY zname, z_pk LIMIT 100"
        )
        rawTime("W1 insert N, save") {
            connection.exec("BEGIN")
            for (index, row) in data.enumerated() {
                connection.execPrepared(
                    "insert",
                    [String(index + 1), row.name, row.email, String(row.age), "\(row.score)", "\(row.born.timeIntervalSinceReferenceDate)"])
            }
            connection.exec("COMMIT")
        }
        connection.exec("TRUNCATE zperson")
        rawTime("W1 insert N, save (raw multi-row)") {
            connection.exec("BEGIN")
            var start = 0
            while start < data.count {
                let rows = min(batch, data.count - start)
                var parameters: [String?] = []
                parameters.reserveCapacity(rows * 6)
                for index in start..<start + rows {
                    let row = data[index]
                    parameters += [
                        String(index + 1), row.name, row.email, String(row.age), "\(row.score)", "\(row.born.timeIntervalSinceReferenceDate)",
                    ]
                }
                connection.execPrepared(rows == batch ? "insert_batch" : "insert_rest", parameters)
                start += rows
            }
            connection.exec("COMMIT")
        }
        _ = rawTime("W2 fetch N, read all") {
            read(connection.execPrepared("all", [], keep: true), columns: 5)
        }
        _ = rawTime("W3 count age > 40") {
            read(connection.execPrepared("count", ["40"], keep: true), columns: 1)
        }
        _ = rawTime("W3 IDs age > 40") {
            read(connection.execPrepared("ids", ["40"], keep: true), columns: 1)
        }
        _ = rawTime("W4 BETWEEN + BEGINSWITH, sorted, 100") {
            read(connection.execPrepared("w4", ["20", "40", "A", "B"], keep: true), columns: 5)
        }
        rawTime("W6 batch update 50%") { connection.exec("UPDATE zperson SET zscore = 0, z_opt = z_opt + 1 WHERE zage < $1", ["48"]) }
        rawTime("W6 batch delete 50%") { connection.exec("DELETE FROM zperson WHERE zage >= $1", ["48"]) }
        connection.exec("DROP SCHEMA \(rawSchema) CASCADE")
    }
    // The framework's one W1 time against both baselines.
    framework["W1 insert N, save (raw multi-row)"] = framework["W1 insert N, save"]
    for name in framework.keys.sorted() {
        guard let ours = framework[name], let theirs = raw[name] else { continue }
        table.append((name, size, format(ours.median), format(theirs.median), ratio(ours.median / theirs.median)))
        // The run's summary (scripts/bench.sh), against the targets of issue 29.
        let limits: [String: Double] = ["W1": 1.3, "W2": 2, "W3": 1.3, "W4": 1.5, "W6": 1.2]
        Summary.line(
            "PostgreSQL \(name) ÷ raw libpq", size: size, ours.median / theirs.median,
            target: limits[String(name.prefix(2))].map { .atMost($0) })
    }
}

print("| workload | N | PostgreSQL store | raw libpq | ratio |")
print("|---|---|---|---|---|")
for (name, size, ours, theirs, ratio) in table {
    print("| \(name) | \(size) | \(ours) | \(theirs) | \(ratio) |")
}
