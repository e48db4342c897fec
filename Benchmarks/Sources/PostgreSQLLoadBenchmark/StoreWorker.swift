import Foundation
import PersistentStores

/// The store side: one coordinator per process, one context per thread, each context keeping its
/// objects (and so its snapshot of the counters) between operations, as an application would.
enum StoreWorker {
    /// Counter(name, value); List(name, items →→ Item); Item(list → List, worker).
    static let model: ObjectModel = {
        do {
            return try ObjectModel {
                Entity("Counter") {
                    Attribute("name", .string, indexed: true)
                    Attribute("value", .integer64, optional: false, defaultValue: 0)
                }
                Entity("List") {
                    Attribute("name", .string, indexed: true)
                    Relationship("items", to: "Item", inverse: "list", toMany: true)
                }
                Entity("Item") {
                    Attribute("worker", .integer64, optional: false, defaultValue: 0)
                    Relationship("list", to: "List", inverse: "items")
                }
            }
        } catch {
            fail("model: \(error)")
        }
    }()

    /// The store's URL on the primary.
    static func url(_ options: LoadOptions) -> URL {
        guard let url = URL(string: adding("schema", storeSchema, to: options.url)) else { fail("not a URL: \(options.url)") }
        return url
    }

    /// A coordinator with the store added (with the replicas, when there are some).
    static func coordinator(_ options: LoadOptions, replicas: Bool) throws -> PersistentStoreCoordinator {
        PersistentStores.registerBuiltInStoreTypes()
        let coordinator = PersistentStoreCoordinator(model: model)
        var storeOptions: StoreOptions = [PostgreSQLOptionKey.readConnections: .int(Int64(options.contexts))]
        if replicas && !options.replicas.isEmpty {
            storeOptions[PostgreSQLOptionKey.replicas] = .string(options.replicas.joined(separator: " "))
        }
        try coordinator.addPersistentStore(type: "PostgreSQL", at: url(options), options: storeOptions)
        return coordinator
    }

    /// A fresh store with the counters at 0 and the lists empty.
    static func setUp(_ options: LoadOptions) throws {
        PersistentStores.registerBuiltInStoreTypes()
        try? PersistentStoreCoordinator(model: model).destroyPersistentStore(at: url(options), type: "PostgreSQL")
        let context = ManagedObjectContext(coordinator: try coordinator(options, replicas: false))
        for index in 0..<options.counters { try context.insert(entityName: "Counter").setValue(.string(counterName(index)), forKey: "name") }
        for index in 0..<options.lists { try context.insert(entityName: "List").setValue(.string(listName(index)), forKey: "name") }
        try context.save()
    }

    /// What the store holds at the end: each counter's value and each list's item count (through
    /// a fresh coordinator on the primary), and the number of items in all.
    static func contents(_ options: LoadOptions) throws -> (counters: [Int], lists: [Int], items: Int) {
        let context = ManagedObjectContext(coordinator: try coordinator(options, replicas: false))
        let counters = try sharedObjects("Counter", in: context, count: options.counters, name: counterName)
        let lists = try sharedObjects("List", in: context, count: options.lists, name: listName)
        let values = try counters.map { (counter: ManagedObject) -> Int in
            guard case .int(let value) = counter.value(forKey: "value") else { throw StoreError(.managedObjectValidation, "a counter without a value") }
            return Int(value)
        }
        let items = try context.count(for: FetchRequest(entityName: "Item"))
        return (values, try lists.map { try $0.loadObjects(forKey: "items").count }, items)
    }

    /// The counters or lists, in the order of their index.
    static func sharedObjects(
        _ entity: String, in context: ManagedObjectContext, count: Int, name: (Int) -> String
    ) throws -> [ManagedObject] {
        var byName: [String: ManagedObject] = [:]
        for object in try context.fetch(FetchRequest(entityName: entity)) {
            if case .string(let name) = object.value(forKey: "name") { byName[name] = object }
        }
        return try (0..<count).map { index in
            guard let object = byName[name(index)] else { throw StoreError(.managedObjectValidation, "\(entity) \(name(index)) is missing") }
            return object
        }
    }

    /// A worker process of the store side.
    static func run(_ options: LoadOptions) -> WorkerReport {
        let coordinator: PersistentStoreCoordinator
        do {
            coordinator = try self.coordinator(options, replicas: true)
        } catch {
            fail("worker \(options.workerIndex): \(error)")
        }
        return StartGate.run(threads: options.contexts, counters: options.counters, lists: options.lists) { thread, gate in
            runThread(options, coordinator: coordinator, thread: thread, gate: gate)
        }
    }

    /// One context's loop until the deadline.
    static func runThread(_ options: LoadOptions, coordinator: PersistentStoreCoordinator, thread: Int, gate: StartGate) -> WorkerReport {
        var report = WorkerReport(counters: options.counters, lists: options.lists)
        var random = SplitMix(state: UInt64(options.workerIndex * 1000 + thread))
        let context = ManagedObjectContext(coordinator: coordinator)
        context.mergePolicy = .error
        var counters: [ManagedObject] = []
        var lists: [ManagedObject] = []
        let requests: [FetchRequest]
        let itemRequests: [FetchRequest]
        do {
            requests = try (0..<options.counters).map {
                FetchRequest(entityName: "Counter", predicate: try FetchPredicate(format: "name == %@", counterName($0)))
            }
            counters = try sharedObjects("Counter", in: context, count: options.counters, name: counterName)
            lists = try sharedObjects("List", in: context, count: options.lists, name: listName)
            itemRequests = try lists.map { FetchRequest(entityName: "Item", predicate: try FetchPredicate(format: "list == %@", $0.objectID)) }
        } catch {
            fail("worker \(options.workerIndex), context \(thread): \(error)")
        }
        let start = gate.waitForStart()
        let deadline = start + .milliseconds(Int(options.duration * 1000))
        var done = 0
        while ContinuousClock.now < deadline {
            let (operation, index) = nextOperation(options, &random)
            let began = ContinuousClock.now
            var attempts = 0
            do {
                switch operation {
                case .fetchCounter:
                    guard case .int = try context.fetch(requests[index]).first?.value(forKey: "value") else {
                        throw StoreError(.managedObjectValidation, "\(counterName(index)) not found")
                    }
                case .readList:
                    // Fetched, not faulted: a to-many fault is answered from the coordinator's
                    // row cache once loaded (other processes' appends unseen), a fetch reads the
                    // server every time.
                    _ = try context.fetch(itemRequests[index]).count
                case .increment:
                    let counter = counters[index]
                    while true {
                        attempts += 1
                        guard case .int(let value) = counter.value(forKey: "value") else {
                            throw StoreError(.managedObjectValidation, "\(counterName(index)) has no value")
                        }
                        try counter.setValue(.int(value + 1), forKey: "value")
                        do {
                            try context.save()
                            report.increments[index] += 1
                            break
                        } catch let error as StoreError where error.code == .managedObjectMerge {
                            // Someone else incremented it since this context read it: read it again.
                            context.rollback()
                            context.refresh(counter, mergeChanges: false)
                        }
                    }
                case .append:
                    let list = lists[index]
                    context.mergePolicy = options.appendPolicy == "merge" ? .mergeByPropertyObjectTrump : .error
                    defer { context.mergePolicy = .error }
                    while true {
                        attempts += 1
                        let item = try context.insert(entityName: "Item")
                        try item.setValue(.int(Int64(options.workerIndex)), forKey: "worker")
                        try item.setObject(list, forKey: "list")
                        do {
                            try context.save()
                            report.appends[index] += 1
                            break
                        } catch let error as StoreError where error.code == .managedObjectMerge {
                            context.rollback()
                            context.refresh(list, mergeChanges: false)
                        }
                    }
                }
                report.record(operation, seconds: seconds(since: began))
            } catch {
                report.fail("\(operation.rawValue): \(error)")
                context.rollback()
            }
            if attempts > 1 { report.conflicted(operation, retries: attempts - 1) }
            done += 1
            if done % options.resetEvery == 0 {
                // Drop what the context has accumulated (the items of every list read) and fetch
                // the shared objects again.
                context.reset()
                do {
                    counters = try sharedObjects("Counter", in: context, count: options.counters, name: counterName)
                    lists = try sharedObjects("List", in: context, count: options.lists, name: listName)
                } catch {
                    fail("worker \(options.workerIndex), context \(thread): \(error)")
                }
            }
        }
        report.elapsed = seconds(since: start)
        return report
    }
}
