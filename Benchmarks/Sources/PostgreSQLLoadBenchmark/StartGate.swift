import Dispatch
import Foundation
import Synchronization

/// Starts a worker process's threads together: each prepares (connects, fetches the shared
/// objects), then waits at the gate; the process prints `ready`, the driver answers `go` on its
/// standard input once every worker is ready, and every thread of every process starts then.
final class StartGate: Sendable {
    private let prepared = DispatchGroup()
    private let go = DispatchSemaphore(value: 0)
    private let start = Mutex<ContinuousClock.Instant?>(nil)
    private let reports = Mutex<[WorkerReport]>([])

    /// Runs `body` on `threads` threads, opens the gate when all are prepared and the driver says
    /// `go`, and returns their reports merged. `body` calls ``waitForStart()`` once, after
    /// preparing, and runs from the instant it returns.
    static func run(threads: Int, counters: Int, lists: Int, _ body: @escaping @Sendable (Int, StartGate) -> WorkerReport) -> WorkerReport {
        let gate = StartGate()
        let finished = DispatchGroup()
        for index in 0..<threads {
            gate.prepared.enter()
            finished.enter()
            let thread = Thread {
                let report = body(index, gate)
                gate.reports.withLock { $0.append(report) }
                finished.leave()
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        gate.prepared.wait()
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        guard readLine() == "go" else { fail("worker: the driver did not say go") }
        gate.start.withLock { $0 = ContinuousClock.now }
        for _ in 0..<threads { gate.go.signal() }
        finished.wait()
        var merged = WorkerReport(counters: counters, lists: lists)
        for report in gate.reports.withLock({ $0 }) { merged.merge(report) }
        return merged
    }

    /// Marks the calling thread prepared, waits for the start and returns its instant.
    func waitForStart() -> ContinuousClock.Instant {
        prepared.leave()
        go.wait()
        return start.withLock { $0 } ?? ContinuousClock.now
    }
}

/// A worker process: runs its side's threads and prints its report as one line of JSON.
func runWorker(_ options: LoadOptions, side: String) {
    let report: WorkerReport
    switch side {
    case "store": report = StoreWorker.run(options)
    case "libpq": report = RawWorker.run(options, atomic: false)
    case "libpq-atomic": report = RawWorker.run(options, atomic: true)
    default: fail("unknown side \(side)")
    }
    do {
        let json = try JSONEncoder().encode(report)
        FileHandle.standardOutput.write(Data("result ".utf8) + json + Data("\n".utf8))
    } catch {
        fail("worker: cannot encode the report: \(error)")
    }
}
