// conflict-saver: a child process of the PostgreSQL store's multi-process test. Two of them edit
// the same objects of one store at once, each through its own coordinator, context and
// connection, and each keeps its context (and so its snapshot of the rows) between saves, so
// their saves conflict.
//
//     conflict-saver increment <url> <rounds> <counters>
//         Round r adds 1 to `count` of counter r % counters. The context's merge policy is
//         `.error`: a conflict must fail with 133020, after which the worker refreshes the
//         counter and tries again. Prints `conflicts N` at the end.
//     conflict-saver tag <url> <rounds> <counters>
//         Round r sets `tag` of counter r % counters to r, under `.mergeByPropertyObjectTrump`:
//         conflicts are resolved by the policy (its `tag` wins, the store's `count` is kept).
//         Prints `saves N`.
//     conflict-saver history <url> <rounds> <counters>
//         With persistent history recorded (so every save is announced to the store's other
//         instances), round r adds 1 to `count` of counter r % counters and saves, as author
//         `conflict-saver`, under `.mergeByPropertyObjectTrump`. Prints `saves N`.
//     conflict-saver listen <url> <transactions> <counters>
//         An instance that only listens (the partition test runs it on a host of its own): adds
//         the store with persistent history, prints `listening`, then for each remote change
//         `change N…` (its transactions' numbers), and exits once it has been posted
//         `transactions` transactions, printing `received N`.
//     conflict-saver cutoff <url> <rounds> <counters>
//         An instance about to be cut off from the primary (the partition test runs it on a host
//         of its own, with a reconnect timeout of 3 s): prints `ready`, waits for a line `go`
//         on standard input (the test cuts its link first), then fetches the counters and saves
//         `count` of the first one plus 1, printing `fetch ok` or `fetch failed CODE SECONDS`
//         and `save ok` or `save failed CODE SECONDS` (each with how long it took); then waits
//         for a line `healed` and, `rounds` times at most, saves the context's changes again,
//         printing `saved` once a save succeeds.
//
// Any other error prints `error: …` and exits 1. The store's model: `Counter` with `index`,
// `count` and `tag` (integers).

import Foundation
import PostgreSQLStore
import StoreCore

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count == 5, let url = URL(string: arguments[2]), let rounds = Int(arguments[3]), let counters = Int(arguments[4]),
    counters > 0
else { fail("usage: conflict-saver increment|tag|history <url> <rounds> <counters>") }
let mode = arguments[1]

do {
    let model = try ObjectModel {
        Entity("Counter") {
            Attribute("index", .integer64, optional: false, defaultValue: 0)
            Attribute("count", .integer64, optional: false, defaultValue: 0)
            Attribute("tag", .integer64, optional: false, defaultValue: -1)
        }
    }
    PostgreSQLStore.register()
    let coordinator = PersistentStoreCoordinator(model: model)
    var options: StoreOptions = mode == "history" || mode == "listen" ? [StoreOptionKey.persistentHistoryTracking: .bool(true)] : [:]
    if mode == "cutoff" { options[PostgreSQLOptionKey.reconnectTimeout] = .double(3) }
    try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url, options: options)
    let context = ManagedObjectContext(coordinator: coordinator)
    var request = FetchRequest(entityName: "Counter")
    request.sortKeys = [SortKey("index")]
    let objects = try context.fetch(request)
    guard objects.count == counters else { fail("error: \(objects.count) counters in the store, expected \(counters)") }
    switch mode {
    case "increment":
        context.mergePolicy = .error
        var conflicts = 0
        for round in 0..<rounds {
            let counter = objects[round % counters]
            while true {
                guard case .int(let count) = counter.value(forKey: "count") else { fail("error: count is not an integer") }
                try counter.setValue(.int(count + 1), forKey: "count")
                do {
                    try context.save()
                    break
                } catch let error as StoreError where error.code == .managedObjectMerge {
                    conflicts += 1
                    context.rollback()
                    context.refresh(counter, mergeChanges: false)
                }
            }
        }
        print("conflicts \(conflicts)")
    case "tag":
        context.mergePolicy = .mergeByPropertyObjectTrump
        for round in 0..<rounds {
            try objects[round % counters].setValue(.int(Int64(round)), forKey: "tag")
            try context.save()
        }
        print("saves \(rounds)")
    case "history":
        context.mergePolicy = .mergeByPropertyObjectTrump
        context.transactionAuthor = "conflict-saver"
        for round in 0..<rounds {
            let counter = objects[round % counters]
            guard case .int(let count) = counter.value(forKey: "count") else { fail("error: count is not an integer") }
            try counter.setValue(.int(count + 1), forKey: "count")
            try context.save()
        }
        print("saves \(rounds)")
    case "listen":
        // Each line written at once (unbuffered): the test reads them as they come.
        let say = { @Sendable (line: String) in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        let received = Locked(0)
        let done = DispatchSemaphore(value: 0)
        let observer = coordinator.addRemoteChangeObserver { change in
            let numbers = change.transactions.map(\.number)
            say("change \(numbers.map(String.init).joined(separator: " "))")
            let total = received.withLock { count in
                count += numbers.count
                return count
            }
            if total >= rounds { done.signal() }
        }
        say("listening")
        done.wait()
        say("received \(received.withLock { $0 })")
        withExtendedLifetime(observer) {}
    case "cutoff":
        let say = { (line: String) in FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
        /// How a step ended: `ok`, or `failed CODE SECONDS`.
        func attempt(_ body: () throws -> Void) -> String {
            let start = ContinuousClock.now
            do {
                try body()
                return "ok"
            } catch {
                let seconds = start.duration(to: .now).components.seconds
                let code = (error as? StoreError)?.code.rawValue ?? -1
                return "failed \(code) \(seconds)"
            }
        }
        say("ready")
        guard readLine() == "go" else { fail("error: expected go") }
        say("fetch " + attempt { _ = try context.fetch(request) })
        say("save " + attempt {
            guard case .int(let count) = objects[0].value(forKey: "count") else { throw StoreError(.coreData, "count is not an integer") }
            try objects[0].setValue(.int(count + 1), forKey: "count")
            try context.save()
        })
        guard readLine() == "healed" else { fail("error: expected healed") }
        for _ in 0..<rounds where context.hasChanges {
            if attempt({ try context.save() }) == "ok" { say("saved") }
        }
    default:
        fail("error: unknown mode \(mode)")
    }
} catch {
    fail("error: \(error)")
}
