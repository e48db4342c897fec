// The multi-process counter test of the SQLite store (docs/reliability.md): several processes,
// each with several threads, save into one store while another process opens and closes it;
// every save a process acknowledged must be in the store afterwards.
//
//     crash-saver count-create <store-path>
//         Creates the counter store and exits.
//     crash-saver count <store-path> <process-number> <threads> <saves-per-thread> [<rows-per-save>]
//         Each thread, with its own context on one coordinator (so the read pool opens readers
//         beside the writer), counts its rows (a fetch) and inserts one `Tally` per save (or
//         rows-per-save of them: 32 or more go partly in groups of 32 rows per INSERT). Prints
//         `done N` once every thread finished (N rows of acknowledged saves), then waits to be
//         killed: a clean exit would checkpoint the write-ahead log and hide a log deleted under it.
//     crash-saver peek <store-type> <store-path> crash|counter
//         Opens the store (of the crash test's or the counter test's model) and closes it again, over and over, until killed: what the
//         `sqlite3` shell, `storectl`, a backup script or a second instance do. Closing the last
//         connection of a process lets SQLite checkpoint and delete the `-wal` when no other
//         process holds a lock on the database.

import Foundation
import PersistentStores
import Synchronization

/// The counter store's model: one `Tally` per acknowledged save.
func counterModel() throws -> ObjectModel {
    try ObjectModel {
        Entity("Tally") {
            Attribute("process", .integer64, optional: false, defaultValue: 0)
            Attribute("thread", .integer64, optional: false, defaultValue: 0)
            Attribute("sequence", .integer64, optional: false, defaultValue: 0)
        }
    }
}

func runCounter(_ arguments: [String]) -> Never {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    do {
        let model = try counterModel()
        let url = URL(fileURLWithPath: arguments[2])
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        _ = try coordinator.addPersistentStore(type: "SQLite", at: url)
        if arguments[1] == "count-create" { exit(0) }
        guard arguments.count == 6 || arguments.count == 7, let process = Int64(arguments[3]), let threads = Int(arguments[4]),
            let saves = Int(arguments[5]), let rows = arguments.count == 7 ? Int(arguments[6]) : 1, threads > 0, saves >= 0, rows > 0
        else {
            fail("usage: crash-saver count <store-path> <process-number> <threads> <saves-per-thread> [<rows-per-save>]", status: 64)
        }
        let acknowledged = Mutex(0)
        let failure = Mutex<String?>(nil)
        let finished = DispatchGroup()
        for thread in 0..<threads {
            finished.enter()
            Thread {
                defer { finished.leave() }
                do {
                    let context = ManagedObjectContext(coordinator: coordinator)
                    var mine = FetchRequest(entityName: "Tally")
                    mine.predicate = try FetchPredicate(format: "process == %@ AND thread == %@", process, Int64(thread))
                    for sequence in 0..<saves {
                        let stored = try context.count(for: mine)
                        guard stored == sequence * rows else {
                            throw StoreError(.coreData, "thread \(thread) sees \(stored) of its rows before save \(sequence)")
                        }
                        for row in 0..<rows {
                            let tally = try context.insert(entityName: "Tally")
                            try tally.setValue(.int(process), forKey: "process")
                            try tally.setValue(.int(Int64(thread)), forKey: "thread")
                            try tally.setValue(.int(Int64(sequence * rows + row)), forKey: "sequence")
                        }
                        try context.save()
                        acknowledged.withLock { $0 += rows }
                        context.reset()
                    }
                } catch {
                    failure.withLock { $0 = $0 ?? "thread \(thread): \(error)" }
                }
            }.start()
        }
        finished.wait()
        if let message = failure.withLock({ $0 }) { fail("error: \(message)", status: 3) }
        say("done \(acknowledged.withLock { $0 })")
        // Killed here (see above); reading standard input blocks without spinning.
        while true { _ = readLine() ?? { sleep(3600); return "" }() }
    } catch {
        fail("error: \(error)", status: 3)
    }
}

func runPeeker(type: String, url: URL, model: ObjectModel) -> Never {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    var peeks = 0
    while true {
        // Read-write, as the `sqlite3` shell opens a database (a read-only connection never
        // checkpoints on close). A peek that fails (the store is busy) is simply tried again.
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        if let store = try? coordinator.addPersistentStore(type: type, at: url) {
            _ = try? coordinator.execute(FetchRequest(entityName: model.entities.first?.name ?? ""))
            try? coordinator.remove(store)
            peeks += 1
            if peeks == 1 { say("peeked") }
        }
        usleep(2_000)  // pacing between peeks, so the savers get the processor too
    }
}
