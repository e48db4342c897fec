import Foundation

/// The driver: sets each side up, starts its worker processes, starts them together, collects
/// their reports, checks the invariants against the database and prints the tables.
enum Driver {
    /// One side's outcome.
    struct Outcome {
        let side: String
        let report: WorkerReport
        let seconds: Double
        let invariant: String
        let holds: Bool
        let loadBefore: String
        let loadAfter: String
    }

    static func run(_ options: LoadOptions) {
        let topology = options.workerPrefixes.isEmpty ? "all workers on this host" : "workers under " + options.workerPrefixes.joined(separator: " | ")
        print("\(options.processes) processes × \(options.contexts) contexts, \(Int(options.duration)) s per side, mix fetch/increment/append "
            + "\(options.mix.fetch)/\(options.mix.increment)/\(options.mix.append), \(options.counters) counters, \(options.lists) lists; "
            + "\(ProcessInfo.processInfo.activeProcessorCount) cores; primary \(options.url)" + (options.replicas.isEmpty ? "" : ", replicas \(options.replicas.joined(separator: " "))") + "; \(topology)")
        var outcomes: [Outcome] = []
        for side in options.sides {
            outcomes.append(runSide(side, options))
        }
        print("")
        print("| side | ops | ops/s | p50 | p99 | conflicts | retries | errors | invariant |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for outcome in outcomes {
            let all = outcome.report.allLatencies
            let total = outcome.report.totalOperations
            print(
                "| \(outcome.side) | \(total) | \(String(format: "%.0f", Double(total) / outcome.seconds)) | \(milliseconds(all.percentile(0.5))) | "
                    + "\(milliseconds(all.percentile(0.99))) | \(outcome.report.conflicts) | \(outcome.report.retries) | \(outcome.report.errors) | "
                    + "\(outcome.holds ? "OK" : "FAILED"): \(outcome.invariant) |")
        }
        print("")
        print("| side | operation | ops | ops/s | p50 | p99 | conflicts |")
        print("|---|---|---:|---:|---:|---:|---:|")
        for outcome in outcomes {
            for operation in Operation.allCases {
                let count = outcome.report.operations[operation.rawValue] ?? 0
                let histogram = outcome.report.latencies[operation.rawValue] ?? LatencyHistogram()
                print(
                    "| \(outcome.side) | \(operation.rawValue) | \(count) | \(String(format: "%.0f", Double(count) / outcome.seconds)) | "
                        + "\(milliseconds(histogram.percentile(0.5))) | \(milliseconds(histogram.percentile(0.99))) | "
                        + "\(outcome.report.conflictsByOperation[operation.rawValue] ?? 0) |")
            }
        }
        print("")
        for outcome in outcomes {
            print("\(outcome.side): load average before \(outcome.loadBefore), after \(outcome.loadAfter)")
            for message in outcome.report.errorMessages { print("\(outcome.side) error: \(message)") }
        }
        if outcomes.contains(where: { !$0.holds }) { exit(2) }
    }

    /// Runs one side: set-up, workers, invariants.
    static func runSide(_ side: String, _ options: LoadOptions) -> Outcome {
        do {
            if side == "store" { try StoreWorker.setUp(options) } else { try RawWorker.setUp(options) }
            try waitForReplicas(options)
        } catch {
            fail("\(side): set-up: \(error)")
        }
        let loadBefore = loadAverage()
        let executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var workers: [(process: Process, input: Pipe, output: Pipe)] = []
        for index in 0..<options.processes {
            let process = Process()
            let arguments = options.workerArguments(side: side, index: index)
            if options.workerPrefixes.isEmpty {
                process.executableURL = URL(fileURLWithPath: executable)
                process.arguments = arguments
            } else {
                let prefix = options.workerPrefixes[index % options.workerPrefixes.count].split(separator: " ").map(String.init)
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = prefix + [executable] + arguments
            }
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            do {
                try process.run()
            } catch {
                fail("\(side): cannot start worker \(index): \(error)")
            }
            workers.append((process, input, output))
        }
        // Every worker connected and its contexts prepared before any starts.
        for (index, worker) in workers.enumerated() {
            guard readLine(from: worker.output.fileHandleForReading) == "ready" else { fail("\(side): worker \(index) did not get ready") }
        }
        let start = ContinuousClock.now
        for worker in workers { worker.input.fileHandleForWriting.write(Data("go\n".utf8)) }
        var merged = WorkerReport(counters: options.counters, lists: options.lists)
        for (index, worker) in workers.enumerated() {
            let rest = String(decoding: worker.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            worker.process.waitUntilExit()
            guard let line = rest.split(separator: "\n").last(where: { $0.hasPrefix("result ") }),
                let report = try? JSONDecoder().decode(WorkerReport.self, from: Data(line.dropFirst("result ".count).utf8))
            else {
                fail("\(side): worker \(index) exited with \(worker.process.terminationStatus) and no report")
            }
            merged.merge(report)
        }
        let elapsed = max(merged.elapsed, options.duration)
        _ = start
        let loadAfter = loadAverage()
        let contents: (counters: [Int], lists: [Int], items: Int)
        do {
            contents = side == "store" ? try StoreWorker.contents(options) : try RawWorker.contents(options)
        } catch {
            fail("\(side): reading the counters and lists: \(error)")
        }
        let (holds, invariant) = check(merged, contents)
        print("\(side): \(merged.totalOperations) operations in \(String(format: "%.1f", elapsed)) s; \(invariant)")
        return Outcome(side: side, report: merged, seconds: elapsed, invariant: invariant, holds: holds, loadBefore: loadBefore, loadAfter: loadAfter)
    }

    /// Each counter's value must equal its acknowledged increments, each list's item count its
    /// acknowledged appends, and the items in all the appends in all.
    static func check(_ report: WorkerReport, _ contents: (counters: [Int], lists: [Int], items: Int)) -> (Bool, String) {
        var problems: [String] = []
        for (index, value) in contents.counters.enumerated() where value != report.increments[index] {
            problems.append("\(counterName(index)) = \(value), \(report.increments[index]) increments acknowledged")
        }
        for (index, count) in contents.lists.enumerated() where count != report.appends[index] {
            problems.append("\(listName(index)) has \(count) items, \(report.appends[index]) appends acknowledged")
        }
        let appended = report.appends.reduce(0, +)
        if contents.items != appended { problems.append("\(contents.items) items in all, \(appended) appends acknowledged") }
        let summary = "counters \(contents.counters.reduce(0, +)) = increments \(report.increments.reduce(0, +)), items \(contents.items) = appends \(appended)"
        return problems.isEmpty ? (true, summary) : (false, problems.prefix(5).joined(separator: "; "))
    }

    /// Waits until every replica has replayed the primary's current WAL position (the set-up).
    static func waitForReplicas(_ options: LoadOptions) throws {
        guard !options.replicas.isEmpty else { return }
        let primary = try RawConnection(options.url)
        guard let position = try primary.query("SELECT pg_current_wal_lsn()::text").rows.first?.first else { return }
        for replica in options.replicas {
            let connection = try RawConnection(replica)
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(30)
            while try connection.query("SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, true)", [position]).rows.first?.first != "t" {
                guard clock.now < deadline else { throw RawError("\(replica) has not replayed \(position) after 30 s") }
                usleep(10_000)
            }
        }
    }

    /// A line of `handle` (without its newline); nil at the end.
    static func readLine(from handle: FileHandle) -> String? {
        var bytes: [UInt8] = []
        while true {
            let data = handle.readData(ofLength: 1)
            guard let byte = data.first else { return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self) }
            if byte == UInt8(ascii: "\n") { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(byte)
        }
    }

    /// The first three fields of /proc/loadavg.
    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// A latency for the tables: "0.84 ms".
    static func milliseconds(_ seconds: Double) -> String {
        seconds.isNaN ? "–" : String(format: "%.2f ms", seconds * 1000)
    }
}
