// crash-saver: the child process of the stores' crash tests (behaviour #56).
//
//     crash-saver run|verify <store-type> <store-path> <lowest> <highest>
//     crash-saver peek <store-type> <store-path>
//
// The Conformance product's crash-safety child (`CrashSafetyChild`): the kill harness of the
// conformance suite's crash-safety cases runs it. Its store types are the built-in ones
// (`PersistentStores.registerBuiltInStoreTypes`), the example `JSONFile` store, and
// `InPlaceJSONFile` (`InPlaceJSONFileStore`), a store planted with a bug — it writes its file in
// place — that the crash-safety cases must catch.
// CounterSaves.swift holds the multi-process counter test's modes and `peek … counter`.

import Conformance
import Foundation
import JSONFileStore
import PersistentStores
import PlantedStores

/// The crash-safety cases' model (`CrashSafetyGenerations`).
let model: ObjectModel
do {
    model = try CrashSafetyGenerations.model()
} catch {
    fail("error: the crash-test model is invalid: \(error)", status: 4)
}

func fail(_ message: String, status: Int32) -> Never {
    say(message)
    exit(status)
}

/// Writes a line to standard output at once (unbuffered), so the parent sees every line that
/// was printed before the kill.
func say(_ message: String) {
    FileHandle.standardOutput.write(Data((message + "\n").utf8))
}

func fetchAll(_ coordinator: PersistentStoreCoordinator, _ entity: String) throws -> [StoreNode] {
    guard case .nodes(let nodes) = try coordinator.execute(FetchRequest(entityName: entity)) else { return [] }
    return nodes
}

/// The registry of every store type the child knows.
func childRegistry() -> StoreRegistry {
    let registry = StoreRegistry()
    PersistentStores.registerBuiltInStoreTypes(in: registry)
    registry.register(JSONFileStore.self)
    registry.register(InPlaceJSONFileStore.self)
    return registry
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
            let g =
                coordinator.model == a
                ? try CrashSafetyGenerations.verify(coordinator, store) : try verifyVersionB(coordinator, store)
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
    do {
        g = try CrashSafetyGenerations.generation(coordinator, store)
    } catch {
        fail("inconsistent: \(error)", status: 2)
    }
    let items = try fetchAll(coordinator, "Item")
    guard items.count == CrashSafetyGenerations.itemCount(g) else {
        fail(
            "inconsistent: generation \(g) has \(items.count) items after migration, expected \(CrashSafetyGenerations.itemCount(g))",
            status: 2)
    }
    for item in items {
        let index = Int(item.attributes["index"]?.doubleValue ?? -1)
        var expected = CrashSafetyGenerations.values(g, index)
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
CrashSafetyChild.main(registry: childRegistry())
