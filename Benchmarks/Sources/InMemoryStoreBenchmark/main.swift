// InMemoryStoreBenchmark — workload W10 of specs/performance.md and the InMemory store's insert
// cost: insert N persons through a context and save, then fetch one person by an indexed key
// 10,000 times.
//
//     swift run -c release --package-path Benchmarks InMemoryStoreBenchmark [persons ...]
//
// The data of specs/performance.md: Person {name, email (indexed), age Int32, score Double,
// born Date, team → Team} and one Team {name, players →> Person} per 100 persons. Reported:
// insert + save through a context (µs per object), the same save handed to the coordinator as
// a SaveChangesRequest of nodes (no context), and 10k lookups `email == "…"` through a context
// (objects) and through the coordinator (nodes). Lookups use prebuilt requests for distinct,
// spread-out keys. Times are medians (wall clock, CPU of the measuring thread in brackets).

import BenchmarkSupport
import Foundation
import PersistentStores

let model: ObjectModel
do {
    model = try ObjectModel {
        Entity("Team") {
            Attribute("name", .string, optional: false, defaultValue: "")
            Relationship("players", to: "Person", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Person") {
            Attribute("name", .string, optional: false, defaultValue: "")
            Attribute("email", .string, indexed: true)
            Attribute("age", .integer32, optional: false, defaultValue: 0)
            Attribute("score", .double)
            Attribute("born", .date)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
} catch {
    print("the benchmark model is invalid: \(error)")
    exit(1)
}

func email(_ index: Int) -> String { "person\(index)@example.com" }

func personValues(_ index: Int) -> [String: StoreValue] {
    [
        "name": .string("Person \(index)"), "email": .string(email(index)), "age": .int(Int64(18 + index % 60)),
        "score": .double(Double(index) * 0.731 + 0.125), "born": .date(Date(timeIntervalSinceReferenceDate: -1e9 + Double(index) * 977.25)),
    ]
}

/// Inserts `persons` persons and their teams through a context and saves.
func insertThroughContext(_ persons: Int, into coordinator: PersistentStoreCoordinator) throws {
    let context = ManagedObjectContext(coordinator: coordinator)
    var teams: [ManagedObject] = []
    for index in 0..<max(1, persons / 100) {
        let team = try context.insert(entityName: "Team")
        try team.setValue(.string("Team \(index)"), forKey: "name")
        teams.append(team)
    }
    for index in 0..<persons {
        let person = try context.insert(entityName: "Person")
        for (key, value) in personValues(index) { try person.setValue(value, forKey: key) }
        try person.setObject(teams[index % teams.count], forKey: "team")
    }
    try context.save()
}

/// The same objects as one SaveChangesRequest of nodes handed to the coordinator.
func insertThroughCoordinator(_ persons: Int, into coordinator: PersistentStoreCoordinator) throws -> SaveChangesRequest {
    let teamCount = max(1, persons / 100)
    let teamIDs = try coordinator.obtainPermanentIDs(for: (0..<teamCount).map { _ in .temporary(entityName: "Team") })
    let personIDs = try coordinator.obtainPermanentIDs(for: (0..<persons).map { _ in .temporary(entityName: "Person") })
    var players = [[ObjectID]](repeating: [], count: teamCount)
    var inserted: [StoreNode] = []
    inserted.reserveCapacity(persons + teamCount)
    for (index, id) in personIDs.enumerated() {
        players[index % teamCount].append(id)
        inserted.append(StoreNode(objectID: id, attributes: personValues(index), toOne: ["team": teamIDs[index % teamCount]], version: 0))
    }
    for (index, id) in teamIDs.enumerated() {
        inserted.append(StoreNode(objectID: id, attributes: ["name": .string("Team \(index)")], toMany: ["players": players[index]], version: 0))
    }
    return SaveChangesRequest(insertedObjects: inserted)
}

/// The raw baseline of the insert: the least any in-memory table of these objects does — the
/// same values made (the dictionary of `personValues` included, as both framework paths make
/// it), one object per person in a table keyed by an integer, the email index, and each team's
/// players — with no framework. Its cost per object from 10k to 1M shows what the machine's
/// memory adds as the tables outgrow its caches. Returns a count so nothing is optimised away.
final class RawPerson {
    let name: String, email: String, age: Int32, score: Double, born: Date, team: Int
    init(_ values: [String: StoreValue], team: Int) {
        func string(_ key: String) -> String { if case .string(let s)? = values[key] { return s } else { return "" } }
        name = string("name")
        email = string("email")
        if case .int(let i)? = values["age"] { age = Int32(truncatingIfNeeded: i) } else { age = 0 }
        if case .double(let d)? = values["score"] { score = d } else { score = 0 }
        if case .date(let d)? = values["born"] { born = d } else { born = .distantPast }
        self.team = team
    }
}

func insertRaw(_ persons: Int) -> Int {
    let teamCount = max(1, persons / 100)
    var table: [Int: RawPerson] = [:]
    var byEmail: [String: Int] = [:]
    var players = [[Int]](repeating: [], count: teamCount)
    for index in 0..<persons {
        let person = RawPerson(personValues(index), team: index % teamCount)
        table[index + 1] = person
        byEmail[person.email] = index + 1
        players[person.team].append(index + 1)
    }
    return table.count + byEmail.count + players.count
}

/// The lookups through the coordinator (nodes); a function of its own so that a profiler can
/// count it alone (`valgrind --tool=callgrind --toggle-collect='*lookUpThroughCoordinator*'`).
@inline(never)
func lookUpThroughCoordinator(_ requests: [FetchRequest], in coordinator: PersistentStoreCoordinator) throws -> Int {
    var found = 0
    for request in requests {
        if case .nodes(let nodes) = try coordinator.execute(request) { found += nodes.count }
    }
    return found
}

/// The lookups through a context (objects), counted alone as ``lookUpThroughCoordinator``.
@inline(never)
func lookUpThroughContext(_ requests: [FetchRequest], in context: ManagedObjectContext) throws -> Int {
    var found = 0
    for request in requests { found += try context.fetch(request).count }
    return found
}

PersistentStores.registerBuiltInStoreTypes()

// `--profile save N` / `--profile lookups N` / `--profile context-lookups N` / `--profile
// context N`: one coordinator save of N persons (nodes), 10k lookups in N through the
// coordinator or through a fresh context, or one insert and save of N persons through a
// context, and nothing else, for a profiler (callgrind) to count.
if CommandLine.arguments.count == 4, CommandLine.arguments[1] == "--profile", let persons = Int(CommandLine.arguments[3]) {
    let coordinator = PersistentStoreCoordinator(model: model)
    _ = try coordinator.addPersistentStore(type: "InMemory")
    if CommandLine.arguments[2] == "context" {
        try insertThroughContext(persons, into: coordinator)
        print("saved \(persons)")
        exit(0)
    }
    let request = try insertThroughCoordinator(persons, into: coordinator)
    // Built in both modes, so that the difference of the two profiles is the lookups alone.
    let lookups = (0..<10_000).map { index in
        FetchRequest(entityName: "Person", predicate: try? FetchPredicate(format: "email == %@", email(index * 7919 % persons)))
    }
    _ = try coordinator.save(request)
    var found = 0
    if CommandLine.arguments[2] == "lookups" {
        found = try lookUpThroughCoordinator(lookups, in: coordinator)
    } else if CommandLine.arguments[2] == "context-lookups" {
        found = try lookUpThroughContext(lookups, in: ManagedObjectContext(coordinator: coordinator))
    }
    print("found \(found)")
    exit(0)
}

let counts = CommandLine.arguments.dropFirst().compactMap { Int($0.replacingOccurrences(of: "_", with: "")) }
let personCounts = counts.isEmpty ? [10_000, 100_000, 1_000_000] : counts
let lookups = 10_000

print("InMemory store (W10): medians, wall clock (CPU of the measuring thread)")
print("persons | insert+save, context | per object | save of nodes, coordinator | per object | 10k lookups, context | 10k lookups, coordinator | peak MiB | raw tables, per object | context ÷ raw | coordinator ÷ raw")
for persons in personCounts {
    let runs = persons <= 100_000 ? 5 : 1
    let objects = Double(persons + max(1, persons / 100))
    var contextSave = Timing(name: "context")
    var coordinatorSave = Timing(name: "coordinator")
    var contextLookups = Timing(name: "context lookups")
    var coordinatorLookups = Timing(name: "coordinator lookups")
    var raw = Timing(name: "raw")
    let requests = (0..<lookups).map { index in
        FetchRequest(entityName: "Person", predicate: try? FetchPredicate(format: "email == %@", email(index * 7919 % persons)))
    }
    for _ in 0..<runs {
        guard raw.time({ insertRaw(persons) }) == 2 * persons + max(1, persons / 100) else {
            print("error: the raw baseline lost objects")
            exit(1)
        }
        do {
            let coordinator = PersistentStoreCoordinator(model: model)
            _ = try coordinator.addPersistentStore(type: "InMemory")
            let request = try insertThroughCoordinator(persons, into: coordinator)
            try coordinatorSave.time { _ = try coordinator.save(request) }
        }
        let coordinator = PersistentStoreCoordinator(model: model)
        _ = try coordinator.addPersistentStore(type: "InMemory")
        try contextSave.time { try insertThroughContext(persons, into: coordinator) }
        var found = 0
        try coordinatorLookups.time { found += try lookUpThroughCoordinator(requests, in: coordinator) }
        let context = ManagedObjectContext(coordinator: coordinator)
        try contextLookups.time { found += try lookUpThroughContext(requests, in: context) }
        guard found == 2 * lookups else {
            print("error: the lookups found \(found) objects, expected \(2 * lookups)")
            exit(1)
        }
    }
    func perObject(_ timing: Timing) -> String { String(format: "%.2f µs (%.2f µs)", timing.median / objects * 1e6, timing.cpuMedian / objects * 1e6) }
    print(
        "\(persons) | \(format(contextSave.median)) (\(format(contextSave.cpuMedian))) | \(perObject(contextSave)) | "
            + "\(format(coordinatorSave.median)) (\(format(coordinatorSave.cpuMedian))) | \(perObject(coordinatorSave)) | "
            + "\(format(contextLookups.median)) (\(format(contextLookups.cpuMedian))) | "
            + "\(format(coordinatorLookups.median)) (\(format(coordinatorLookups.cpuMedian))) | \(Int(peakResidentMiB())) | "
            + "\(perObject(raw)) | \(ratio(contextSave.median / raw.median)) | \(ratio(coordinatorSave.median / raw.median))")
    // The run's summary (scripts/bench.sh), in CPU time; insert + save is held to growing
    // linearly, which one size does not show: its cost per object is there to compare runs.
    Summary.line("W10 10k indexed lookups through the coordinator (CPU)", size: persons, coordinatorLookups.cpuMedian * 1000, unit: "ms", target: .atMost(50))
    Summary.line("W10 10k indexed lookups through a context (CPU)", size: persons, contextLookups.cpuMedian * 1000, unit: "ms", target: .atMost(50))
    Summary.line("InMemory insert + save through a context, per object (CPU)", size: persons, contextSave.cpuMedian / objects * 1e6, unit: "µs", target: nil)
}
