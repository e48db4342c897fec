import Foundation

/// The libpq side: the same mix on the same shared objects, written directly against libpq, one
/// connection per thread (and one to the first replica for the fetches, when replicas are given).
/// A list's items are read with their columns (`id, worker`), as the store's fetch reads them.
///
/// Increments are optimistic by default, as the store's are: each connection keeps the value and
/// version it last read of each counter and writes `value = read + 1, opt = opt + 1 WHERE opt =
/// read version`; no row changed is a conflict, after which it reads the counter again (from the
/// primary) and retries. With `atomic` they are `UPDATE … SET value = value + 1` (what one would
/// write by hand without an object layer: never a conflict, the server serialises them).
enum RawWorker {
    /// A fresh schema with the counters at 0 and the lists empty.
    static func setUp(_ options: LoadOptions) throws {
        let connection = try RawConnection(options.url)
        try connection.exec(
            """
            DROP SCHEMA IF EXISTS \(rawSchema) CASCADE; CREATE SCHEMA \(rawSchema); SET search_path TO \(rawSchema);
            CREATE TABLE counter (id bigint PRIMARY KEY, name text NOT NULL UNIQUE, value bigint NOT NULL, opt bigint NOT NULL);
            CREATE TABLE list (id bigint PRIMARY KEY, name text NOT NULL UNIQUE);
            CREATE TABLE item (id bigserial PRIMARY KEY, list bigint NOT NULL REFERENCES list, worker bigint NOT NULL);
            CREATE INDEX item_list ON item (list);
            """)
        _ = try connection.query(
            "INSERT INTO counter SELECT i + 1, 'counter ' || i, 0, 1 FROM generate_series(0, $1::int - 1) i", [String(options.counters)])
        _ = try connection.query("INSERT INTO list SELECT i + 1, 'list ' || i FROM generate_series(0, $1::int - 1) i", [String(options.lists)])
    }

    /// Each counter's value, each list's item count, and the number of items in all.
    static func contents(_ options: LoadOptions) throws -> (counters: [Int], lists: [Int], items: Int) {
        let connection = try RawConnection(options.url)
        try connection.exec("SET search_path TO \(rawSchema)")
        let counters = try connection.query("SELECT value FROM counter ORDER BY id").rows.map { Int($0[0]) ?? -1 }
        let lists = try connection.query("SELECT (SELECT count(*) FROM item WHERE item.list = list.id) FROM list ORDER BY id").rows.map {
            Int($0[0]) ?? -1
        }
        let items = try connection.query("SELECT count(*) FROM item").rows.first.flatMap { Int($0[0]) } ?? -1
        return (counters, lists, items)
    }

    /// A worker process of the libpq side.
    static func run(_ options: LoadOptions, atomic: Bool) -> WorkerReport {
        StartGate.run(threads: options.contexts, counters: options.counters, lists: options.lists) { thread, gate in
            do {
                return try runThread(options, atomic: atomic, thread: thread, gate: gate)
            } catch {
                fail("worker \(options.workerIndex), connection \(thread): \(error)")
            }
        }
    }

    /// Opens a connection with the statements prepared.
    static func connect(_ uri: String) throws(RawError) -> RawConnection {
        let connection = try RawConnection(uri)
        try connection.exec("SET search_path TO \(rawSchema)")
        try connection.prepare("fetch_counter", "SELECT id, name, value, opt FROM counter WHERE name = $1")
        try connection.prepare("read_counter", "SELECT value, opt FROM counter WHERE id = $1")
        try connection.prepare("read_list", "SELECT id, worker FROM item WHERE list = $1")
        try connection.prepare("increment", "UPDATE counter SET value = $2, opt = opt + 1 WHERE id = $1 AND opt = $3")
        try connection.prepare("increment_atomic", "UPDATE counter SET value = value + 1 WHERE id = $1")
        try connection.prepare("append", "INSERT INTO item (list, worker) VALUES ($1, $2)")
        return connection
    }

    /// One connection's loop until the deadline.
    static func runThread(_ options: LoadOptions, atomic: Bool, thread: Int, gate: StartGate) throws -> WorkerReport {
        var report = WorkerReport(counters: options.counters, lists: options.lists)
        var random = SplitMix(state: UInt64(options.workerIndex * 1000 + thread))
        let primary = try connect(options.url)
        let reader = try options.replicas.first.map(connect) ?? primary
        // What this connection last read of each counter (value, version), as a context keeps
        // its objects' snapshots.
        var known = try (0..<options.counters).map { index -> (Int, Int) in
            let row = try primary.execute("read_counter", [String(index + 1)]).rows
            guard let first = row.first, let value = Int(first[0]), let opt = Int(first[1]) else { throw RawError("counter \(index) missing") }
            return (value, opt)
        }
        let start = gate.waitForStart()
        let deadline = start + .milliseconds(Int(options.duration * 1000))
        while ContinuousClock.now < deadline {
            let (operation, index) = nextOperation(options, &random)
            let began = ContinuousClock.now
            var attempts = 0
            do {
                switch operation {
                case .fetchCounter:
                    guard let row = try reader.execute("fetch_counter", [counterName(index)]).rows.first, Int(row[2]) != nil else {
                        throw RawError("\(counterName(index)) not found")
                    }
                case .readList:
                    _ = try reader.execute("read_list", [String(index + 1)]).rows.compactMap { Int($0[0]) }.count
                case .increment where atomic:
                    attempts = 1
                    guard try primary.execute("increment_atomic", [String(index + 1)]).changed == 1 else {
                        throw RawError("\(counterName(index)) not updated")
                    }
                    report.increments[index] += 1
                case .increment:
                    while true {
                        attempts += 1
                        let (value, opt) = known[index]
                        if try primary.execute("increment", [String(index + 1), String(value + 1), String(opt)]).changed == 1 {
                            known[index] = (value + 1, opt + 1)
                            report.increments[index] += 1
                            break
                        }
                        // Changed since it was read: read it again and retry.
                        guard let row = try primary.execute("read_counter", [String(index + 1)]).rows.first,
                            let newValue = Int(row[0]), let newOpt = Int(row[1])
                        else { throw RawError("\(counterName(index)) not found") }
                        known[index] = (newValue, newOpt)
                    }
                case .append:
                    attempts = 1
                    _ = try primary.execute("append", [String(index + 1), String(options.workerIndex)])
                    report.appends[index] += 1
                }
                report.record(operation, seconds: seconds(since: began))
            } catch {
                report.fail("\(operation.rawValue): \(error)")
            }
            if attempts > 1 { report.conflicted(operation, retries: attempts - 1) }
        }
        report.elapsed = seconds(since: start)
        return report
    }
}
