// crash-saver: the child process of the stores' crash tests (behaviour #56).
//
//     crash-saver run <store-type> <store-path> <lowest> <highest>
//     crash-saver verify <store-type> <store-path> <lowest> <highest>
//
// Both open the store, check that it holds one complete state — generation G with
// lowest <= G <= highest — and print `loaded G` (or `error: …` / `inconsistent: …` and exit
// non-zero). `run` then saves generation G+1, G+2, … forever, printing `saved g` after each save
// returns, until the test kills it. Every generation changes every object, the number of objects,
// a to-many relationship and a metadata key, so a file that mixed two generations is caught.
//
// The store types are the built-in ones (`PersistentStores.registerBuiltInStoreTypes`).
// CounterSaves.swift holds the multi-process counter test's modes and `peek`.

import Foundation
import PersistentStores

/// The metadata key holding the generation saved last.
let generationKey = "CrashTestGeneration"

let model: ObjectModel
do {
    model = try ObjectModel {
        Entity("Bucket") {
            Attribute("generation", .integer64, optional: false, defaultValue: 0)
            Relationship("items", to: "Item", inverse: "bucket", toMany: true, ordered: true, deleteRule: .cascade)
        }
        Entity("Item") {
            Attribute("index", .integer64, optional: false, defaultValue: 0)
            Attribute("generation", .integer64, optional: false, defaultValue: 0)
            Attribute("payload", .string)
            Attribute("stamp", .date)
            Attribute("blob", .binaryData)
            Relationship("bucket", to: "Bucket", inverse: "items")
        }
    }
} catch {
    fail("error: the crash-test model is invalid: \(error)", status: 4)
}

/// How many items generation `g` holds.
func itemCount(_ g: Int64) -> Int { g == 0 ? 0 : 40 + Int((g * 7) % 23) }

/// The values of item `index` in generation `g` (hostile characters included, so escaping is
/// exercised while the process dies).
func values(_ g: Int64, _ index: Int) -> [String: StoreValue] {
    let unit = "g=\(g), i=\(index) | \\ \"x\" <&> é\u{301} 🚀\n"
    return [
        "index": .int(Int64(index)),
        "generation": .int(g),
        "payload": .string(String(repeating: unit, count: 12)),
        "stamp": .date(Date(timeIntervalSinceReferenceDate: Double(g) * 1000.125 - 1e9)),
        "blob": .data(Data((0..<64).map { UInt8(truncatingIfNeeded: Int(g) &* 31 &+ $0 &+ index) })),
    ]
}

func fail(_ message: String, status: Int32) -> Never {
    say(message)
    exit(status)
}

/// Writes a line to standard output at once (unbuffered), so the parent sees every `saved g`
/// that was printed before the kill.
func say(_ message: String) {
    FileHandle.standardOutput.write(Data((message + "\n").utf8))
}

func fetchAll(_ coordinator: PersistentStoreCoordinator, _ entity: String) throws -> [StoreNode] {
    guard case .nodes(let nodes) = try coordinator.execute(FetchRequest(entityName: entity)) else { return [] }
    return nodes
}

/// The generation the store holds, after checking every object belongs to it.
func verify(_ coordinator: PersistentStoreCoordinator, _ store: StoreHandle) throws -> Int64 {
    let metadata = try coordinator.metadata(for: store)
    let g: Int64
    switch metadata[generationKey] {
    case nil: g = 0
    case .int(let value)?: g = value
    case let other?: fail("inconsistent: metadata generation is \(other)", status: 2)
    }
    let buckets = try fetchAll(coordinator, "Bucket")
    let items = try fetchAll(coordinator, "Item")
    guard items.count == itemCount(g) else {
        fail("inconsistent: generation \(g) has \(items.count) items, expected \(itemCount(g))", status: 2)
    }
    if g == 0 {
        guard buckets.isEmpty else { fail("inconsistent: generation 0 has a bucket", status: 2) }
        return 0
    }
    guard buckets.count == 1, let bucket = buckets.first else {
        fail("inconsistent: generation \(g) has \(buckets.count) buckets", status: 2)
    }
    guard bucket.attributes["generation"] == .int(g) else {
        fail("inconsistent: metadata says generation \(g), the bucket \(bucket.attributes["generation"] ?? .null)", status: 2)
    }
    let byIndex = Dictionary(items.map { (Int($0.attributes["index"]?.doubleValue ?? -1), $0) }) { first, _ in first }
    guard Set(byIndex.keys) == Set(0..<itemCount(g)) else {
        fail("inconsistent: generation \(g) item indexes are \(byIndex.keys.sorted())", status: 2)
    }
    for (index, item) in byIndex {
        guard item.attributes == values(g, index) else {
            fail("inconsistent: item \(index) does not hold generation \(g): \(item.attributes["generation"] ?? .null)", status: 2)
        }
        guard item.toOne["bucket"] == bucket.objectID else {
            fail("inconsistent: item \(index) is not in the bucket", status: 2)
        }
    }
    let ordered = (0..<itemCount(g)).compactMap { byIndex[$0]?.objectID }
    // An incremental store (SQLite) leaves the to-many unloaded (absent) in fetched nodes: the
    // coordinator loads it.
    let stored = try bucket.toMany["items"] ?? coordinator.relatedObjectIDs("items", of: bucket.objectID)
    guard stored == ordered else {
        fail("inconsistent: the bucket's items are not the generation's items in order", status: 2)
    }
    return g
}

/// Saves generation `g` over generation `g - 1`.
func save(_ g: Int64, _ coordinator: PersistentStoreCoordinator, _ store: StoreHandle) throws {
    let items = try fetchAll(coordinator, "Item")
    var bucket = try fetchAll(coordinator, "Bucket").first
    var inserted: [StoreNode] = []
    var updated: [StoreNode] = []
    var deleted: [StoreNode] = []
    let bucketIsNew = bucket == nil
    let bucketID: ObjectID
    if let bucket {
        bucketID = bucket.objectID
    } else {
        bucketID = try coordinator.obtainPermanentIDs(for: [.temporary(entityName: "Bucket")])[0]
    }
    let target = itemCount(g)
    var byIndex: [Int: StoreNode] = [:]
    for item in items {
        let index = Int(item.attributes["index"]?.doubleValue ?? -1)
        if index >= 0 && index < target {
            byIndex[index] = item
        } else {
            deleted.append(item)
        }
    }
    let missing = (0..<target).filter { byIndex[$0] == nil }
    let newIDs = try coordinator.obtainPermanentIDs(for: missing.map { _ in .temporary(entityName: "Item") })
    var order: [ObjectID] = []
    for index in 0..<target {
        if var item = byIndex[index] {
            item.attributes = values(g, index)
            item.toOne["bucket"] = bucketID
            updated.append(item)
            order.append(item.objectID)
        } else if let position = missing.firstIndex(of: index) {
            let id = newIDs[position]
            inserted.append(StoreNode(objectID: id, attributes: values(g, index), toOne: ["bucket": bucketID], version: 0))
            order.append(id)
        }
    }
    if bucketIsNew {
        inserted.append(StoreNode(objectID: bucketID, attributes: ["generation": .int(g)], toMany: ["items": order], version: 0))
    } else if var existing = bucket {
        existing.attributes["generation"] = .int(g)
        existing.toMany["items"] = order
        updated.append(existing)
        bucket = existing
    }
    var metadata = try coordinator.metadata(for: store)
    metadata[generationKey] = .int(g)
    try coordinator.setMetadata(metadata, for: store)
    _ = try coordinator.save(SaveChangesRequest(insertedObjects: inserted, updatedObjects: updated, deletedObjects: deleted))
}

// MARK: Migration under kills
//
//     crash-saver migrate <store-type> <store-path>
//     crash-saver verify-migrated <store-type> <store-path>
//
// `migrate` migrates the store back and forth forever between the model above (A) and a
// version (B) in which Item's `payload` is renamed `text` and an optional `note` is added,
// printing `migrated k` after each migration. `verify-migrated` opens the store with whichever
// version its metadata matches, checks every item of its generation (values and count) and
// prints `verified G A|B`.

/// Version B of the model, and version A with the renaming identifier that maps B back to it.
func migrationModels() throws -> (a: ObjectModel, b: ObjectModel) {
    var a = model.entities
    var b = model.entities
    for index in a.indices where a[index].name == "Item" {
        for attribute in a[index].attributes.indices where a[index].attributes[attribute].name == "payload" {
            a[index].attributes[attribute].renamingIdentifier = "text"
            b[index].attributes[attribute].name = "text"
            b[index].attributes[attribute].renamingIdentifier = "payload"
        }
        b[index].attributes.append(Attribute("note", .string))
    }
    return (try ObjectModel(entities: a), try ObjectModel(entities: b))
}

func runMigrations(_ mode: String, type: String, url: URL) -> Never {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    do {
        let (a, b) = try migrationModels()
        guard let storeClass = registry.storeType(named: type) else { fail("error: unknown type \(type)", status: 64) }
        func current() throws -> (ObjectModel, String) {
            let metadata = try storeClass.metadata(forStoreAt: url, options: [:])
            if a.isConfiguration(nil, compatibleWithStoreMetadata: metadata) { return (a, "A") }
            if b.isConfiguration(nil, compatibleWithStoreMetadata: metadata) { return (b, "B") }
            fail("inconsistent: the store's metadata fits neither version", status: 2)
        }
        if mode == "verify-migrated" {
            let (version, name) = try current()
            let coordinator = PersistentStoreCoordinator(model: version, registry: registry)
            let store = try coordinator.addPersistentStore(type: type, at: url)
            let g = coordinator.model == a ? try verify(coordinator, store) : try verifyVersionB(coordinator, store)
            say("verified \(g) \(name)")
            exit(0)
        }
        var count = 0
        while true {
            let (version, _) = try current()
            let target = version == a ? b : a
            try MigrationManager(sourceModel: version, destinationModel: target, registry: registry).migrateStore(
                at: url, type: type, mapping: try MappingModel.inferred(from: version, to: target))
            count += 1
            say("migrated \(count)")
        }
    } catch {
        fail("error: \(error)", status: 3)
    }
}

/// ``verify(_:_:)`` for version B: the same items, `payload` read as `text`.
func verifyVersionB(_ coordinator: PersistentStoreCoordinator, _ store: StoreHandle) throws -> Int64 {
    let g: Int64
    switch try coordinator.metadata(for: store)[generationKey] {
    case nil: g = 0
    case .int(let value)?: g = value
    case let other?: fail("inconsistent: metadata generation is \(other)", status: 2)
    }
    let items = try fetchAll(coordinator, "Item")
    guard items.count == itemCount(g) else {
        fail("inconsistent: generation \(g) has \(items.count) items after migration, expected \(itemCount(g))", status: 2)
    }
    for item in items {
        let index = Int(item.attributes["index"]?.doubleValue ?? -1)
        var expected = values(g, index)
        expected["text"] = expected.removeValue(forKey: "payload")
        guard item.attributes == expected else {
            fail("inconsistent: item \(index) lost values in the migration", status: 2)
        }
    }
    return g
}

// MARK: Loading under a memory limit
//
//     crash-saver load-within <extra-bytes> <store-type> <store-path>
//
// Makes a store of an atomic type, limits the process's address space to what it uses now plus
// `extra-bytes` (RLIMIT_AS), then loads the file and prints `loaded`, or `error: <code>
// <message>` for a StoreError (exit 3). A store that needs more memory than that and does not
// say so ends the process instead: the memory tests tell the two apart.

func loadWithin(extra: Int, type: String, url: URL) -> Never {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    guard let storeClass = registry.storeType(named: type) as? AtomicStore.Type else {
        fail("error: \(type) is not an atomic store type", status: 64)
    }
    let store: AtomicStore
    do {
        store = try storeClass.init(model: model, configurationName: nil, url: url, options: [:])
    } catch {
        fail("error: \(error)", status: 4)
    }
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
        let pages = statm.split(separator: " ").first.flatMap({ Int($0) })
    else { fail("error: cannot read /proc/self/statm", status: 4) }
    let limit = rlim_t(pages * Int(sysconf(Int32(_SC_PAGESIZE))) + extra)
    var bounds = rlimit(rlim_cur: limit, rlim_max: limit)
    guard setrlimit(Int32(RLIMIT_AS.rawValue), &bounds) == 0 else { fail("error: setrlimit failed", status: 4) }
    do {
        try store.load()
        say("loaded")
        exit(0)
    } catch let error as StoreError {
        fail("error: \(error.code.rawValue) \(error.message)", status: 3)
    } catch {
        fail("error: \(error)", status: 3)
    }
}

let arguments = CommandLine.arguments
if arguments.count >= 3, ["count-create", "count"].contains(arguments[1]) {
    runCounter(arguments)
}
if arguments.count == 5, arguments[1] == "peek" {
    do {
        runPeeker(
            type: arguments[2], url: URL(fileURLWithPath: arguments[3]),
            model: arguments[4] == "counter" ? try counterModel() : model)
    } catch {
        fail("error: \(error)", status: 3)
    }
}
if arguments.count == 5, arguments[1] == "load-within", let extra = Int(arguments[2]) {
    loadWithin(extra: extra, type: arguments[3], url: URL(fileURLWithPath: arguments[4]))
}
if arguments.count == 4, ["migrate", "verify-migrated"].contains(arguments[1]) {
    runMigrations(arguments[1], type: arguments[2], url: URL(fileURLWithPath: arguments[3]))
}
guard arguments.count == 6, ["run", "verify"].contains(arguments[1]),
    let lowest = Int64(arguments[4]), let highest = Int64(arguments[5])
else {
    fail("usage: crash-saver run|verify <store-type> <store-path> <lowest> <highest>", status: 64)
}
let registry = StoreRegistry()
PersistentStores.registerBuiltInStoreTypes(in: registry)
let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
do {
    let store = try coordinator.addPersistentStore(type: arguments[2], at: URL(fileURLWithPath: arguments[3]))
    let g = try verify(coordinator, store)
    guard (lowest...highest).contains(g) else {
        fail("inconsistent: the store holds generation \(g), expected \(lowest)...\(highest)", status: 2)
    }
    say("loaded \(g)")
    if arguments[1] == "verify" { exit(0) }
    var next = g + 1
    while true {
        try save(next, coordinator, store)
        say("saved \(next)")
        next += 1
    }
} catch {
    fail("error: \(error)", status: 3)
}
