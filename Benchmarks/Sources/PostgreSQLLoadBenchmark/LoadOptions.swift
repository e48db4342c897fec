import Foundation

/// The benchmark's settings, from the command line; the driver passes them on to its workers.
struct LoadOptions: Sendable {
    /// The primary's connection URI (libpq form, without a schema parameter).
    var url = ProcessInfo.processInfo.environment["PERSISTENTSTORES_POSTGRES_URL"] ?? ""
    /// Standbys' URIs: the store gets them as `PostgreSQLOptionKey.replicas`, the libpq side sends
    /// its fetches to the first.
    var replicas: [String] = []
    /// Worker processes per side.
    var processes = 8
    /// Contexts (store) or connections (libpq) per process, each on a thread of its own.
    var contexts = 4
    /// Seconds each side runs.
    var duration = 60.0
    /// Shared counters and lists.
    var counters = 8
    var lists = 64
    /// Percentages of fetches (half counters by name, half list reads), increments and appends.
    var mix = (fetch: 50, increment: 30, append: 20)
    /// The sides to run, in order: `store`, `libpq` (optimistic increments, as the store does
    /// them) and `libpq-atomic` (`value = value + 1`).
    var sides = ["store", "libpq"]
    /// Commands put before each worker's command line (e.g. `ip netns exec app1`), used in turn.
    var workerPrefixes: [String] = []
    /// The merge policy of the store side's appends: `error` (a conflict on the list's row is
    /// 133020, the worker rolls back, refreshes the list and retries, as for increments) or
    /// `merge` (`.mergeByPropertyObjectTrump`: the save resolves it itself).
    var appendPolicy = "error"
    /// Contexts are reset (and the shared objects fetched again) after this many operations, so a
    /// long run does not accumulate every item it has read.
    var resetEvery = 500
    /// In a worker process: its side and number.
    var workerSide: String?
    var workerIndex = 0

    static let usage = """
        usage: PostgreSQLLoadBenchmark --url postgresql://… [--replica URI]… [--processes 8] [--contexts 4]
               [--duration 60] [--counters 8] [--lists 64] [--mix fetch,increment,append (50,30,20)]
               [--sides store,libpq,libpq-atomic] [--worker-prefix "ip netns exec app1"]… [--reset-every 500]
               [--append-policy error|merge]
        """

    /// Reads `arguments` (without the program's name); exits with the usage on a mistake.
    init(arguments: [String]) {
        var iterator = arguments.makeIterator()
        func next(_ name: String) -> String {
            guard let value = iterator.next() else { fail("\(name) needs a value\n\(Self.usage)") }
            return value
        }
        func number(_ name: String) -> Int {
            guard let value = Int(next(name)), value > 0 else { fail("\(name) needs a positive integer") }
            return value
        }
        while let argument = iterator.next() {
            switch argument {
            case "--url": url = next(argument)
            case "--replica": replicas.append(next(argument))
            case "--processes": processes = number(argument)
            case "--contexts": contexts = number(argument)
            case "--duration":
                guard let seconds = Double(next(argument)), seconds > 0 else { fail("--duration needs a positive number") }
                duration = seconds
            case "--counters": counters = number(argument)
            case "--lists": lists = number(argument)
            case "--mix":
                let parts = next(argument).split(separator: ",").compactMap { Int($0) }
                guard parts.count == 3, parts.allSatisfy({ $0 >= 0 }), parts.reduce(0, +) == 100 else {
                    fail("--mix needs three percentages adding up to 100 (fetch,increment,append)")
                }
                mix = (parts[0], parts[1], parts[2])
            case "--sides":
                sides = next(argument).split(separator: ",").map(String.init)
                guard sides.allSatisfy(["store", "libpq", "libpq-atomic"].contains) else { fail("--sides: store, libpq, libpq-atomic") }
            case "--worker-prefix": workerPrefixes.append(next(argument))
            case "--reset-every": resetEvery = number(argument)
            case "--append-policy":
                appendPolicy = next(argument)
                guard ["error", "merge"].contains(appendPolicy) else { fail("--append-policy: error or merge") }
            case "--worker":
                workerSide = next(argument)
                guard let index = Int(next(argument)) else { fail("--worker needs a side and a number") }
                workerIndex = index
            default: fail(Self.usage)
            }
        }
        guard !url.isEmpty else { fail("no server: pass --url (scripts/postgres-scratch.sh start prints one)") }
    }

    /// The command line of worker `index` of `side` (everything but the executable).
    func workerArguments(side: String, index: Int) -> [String] {
        var arguments = [
            "--url", url, "--processes", String(processes), "--contexts", String(contexts), "--duration", String(duration),
            "--counters", String(counters), "--lists", String(lists), "--mix", "\(mix.fetch),\(mix.increment),\(mix.append)",
            "--reset-every", String(resetEvery), "--append-policy", appendPolicy, "--worker", side, String(index),
        ]
        for replica in replicas { arguments += ["--replica", replica] }
        return arguments
    }
}

/// Prints `message` to standard error and exits with status 1.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("PostgreSQLLoadBenchmark: \(message)\n".utf8))
    exit(1)
}

/// `base` with `parameter=value` added to its query.
func adding(_ parameter: String, _ value: String, to base: String) -> String {
    base + (base.contains("?") ? "&" : "?") + "\(parameter)=\(value)"
}

/// The schemas of the two sides (fresh for each run).
let storeSchema = "load_store"
let rawSchema = "load_raw"

/// The names of the shared objects.
func counterName(_ index: Int) -> String { "counter \(index)" }
func listName(_ index: Int) -> String { "list \(index)" }

/// The next operation of the mix, drawn from `random`: the operation and the index of the
/// counter or list it works on.
func nextOperation(_ options: LoadOptions, _ random: inout SplitMix) -> (Operation, Int) {
    let draw = Int(random.next() % 100)
    if draw < options.mix.fetch {
        return random.next() % 2 == 0
            ? (.fetchCounter, Int(random.next() % UInt64(options.counters))) : (.readList, Int(random.next() % UInt64(options.lists)))
    }
    if draw < options.mix.fetch + options.mix.increment { return (.increment, Int(random.next() % UInt64(options.counters))) }
    return (.append, Int(random.next() % UInt64(options.lists)))
}

/// A small seeded random generator (SplitMix64), one per thread, so each thread's sequence of
/// operations is the same on both sides.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}
