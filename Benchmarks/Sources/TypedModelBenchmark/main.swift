// W1 and W2 of specs/performance.md through `@Model` classes (issue 33's measure): the same
// objects inserted and saved, then fetched and read, once through typed properties of `@Model`
// classes (`ModelContext`, `FetchDescriptor`) and once by name (`ManagedObject`,
// `value(forKey:)`), on the same model and the same kind of SQLite store, in the same run.
// The ratio typed ÷ by-name is the cost of the typed layer (target: ≤ 1.05).
//
//     swift run -c release --package-path Benchmarks TypedModelBenchmark [--persons 100000] [--runs 5]
//     swift run -c release --package-path Benchmarks TypedModelBenchmark --only w2.typed   (one contender, for callgrind)
import BenchmarkSupport
import Foundation
import PersistentModels

@Model final class Person {
    var name: String
    var email: String
    var age: Int32
    var score: Double
    var born: Date
    var team: Team?

    init(name: String, email: String, age: Int32, score: Double, born: Date) {
        self.name = name
        self.email = email
        self.age = age
        self.score = score
        self.born = born
    }
}

@Model final class Team {
    var name: String
    @Relationship(inverse: \Person.team) var players: [Person] = []

    init(name: String) { self.name = name }
}

func fail(_ message: String) -> Never {
    print("error: \(message)")
    exit(1)
}

var persons = 100_000
var runs = 5
var only: String?
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--persons": persons = max(100, Int(arguments.next() ?? "") ?? persons)
    case "--runs": runs = max(1, Int(arguments.next() ?? "") ?? runs)
    case "--only": only = arguments.next()
    default: fail("unknown argument \(argument)")
    }
}

let teams = max(1, persons / 100)
let names = (0..<persons).map { "Person \($0)" }
let emails = (0..<persons).map { "person\($0)@example.com" }
let ages = (0..<persons).map { Int32(18 + $0 % 60) }
let scores = (0..<persons).map { Double($0 % 1000) / 7 }
let borns = (0..<persons).map { Date(timeIntervalSinceReferenceDate: -1e9 + Double($0) * 1234.5) }
let model: ObjectModel
do { model = try ObjectModel(for: Person.self, Team.self) } catch { fail("the model: \(error)") }
let registry = StoreRegistry()
PersistentStores.registerBuiltInStoreTypes(in: registry)
let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-benchmark-\(UUID().uuidString)")
do { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) } catch { fail("\(error)") }
defer { try? FileManager.default.removeItem(at: folder) }

func storeURL(_ name: String) -> URL {
    let url = folder.appendingPathComponent("\(name).sqlite")
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
    return url
}

// MARK: By name

func insertByName(at url: URL, _ timing: inout Timing) throws {
    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
    let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
    defer { try? coordinator.remove(store) }
    let context = ManagedObjectContext(coordinator: coordinator)
    try timing.time {
        var teamObjects: [ManagedObject] = []
        for team in 0..<teams {
            let object = try context.insert(entityName: "Team")
            try object.setValue(.string("Team \(team)"), forKey: "name")
            teamObjects.append(object)
        }
        for index in names.indices {
            let person = try context.insert(entityName: "Person")
            try person.setValue(.string(names[index]), forKey: "name")
            try person.setValue(.string(emails[index]), forKey: "email")
            try person.setValue(.int(Int64(ages[index])), forKey: "age")
            try person.setValue(.double(scores[index]), forKey: "score")
            try person.setValue(.date(borns[index]), forKey: "born")
            try person.setObject(teamObjects[index % teams], forKey: "team")
        }
        try context.save()
    }
}

func readByName(at url: URL, _ timing: inout Timing) throws -> Checksum {
    let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
    let store = try coordinator.addPersistentStore(type: "SQLite", at: url)
    defer { try? coordinator.remove(store) }
    let context = ManagedObjectContext(coordinator: coordinator)
    return try timing.time {
        var checksum = Checksum()
        for person in try context.fetch(FetchRequest(entityName: "Person")) {
            checksum.add(
                name: person.value(forKey: "name", as: String.self) ?? "", email: person.value(forKey: "email", as: String.self) ?? "",
                age: person.value(forKey: "age", as: Int32.self) ?? 0, score: person.value(forKey: "score", as: Double.self) ?? 0,
                born: person.value(forKey: "born", as: Date.self) ?? Date(timeIntervalSinceReferenceDate: 0))
        }
        return checksum
    }
}

// MARK: Typed

func container(at url: URL) throws -> ModelContainer {
    try ModelContainer(for: [Person.self, Team.self], configurations: [ModelConfiguration(url: url)], registry: registry)
}

func insertTyped(at url: URL, _ timing: inout Timing) throws {
    let context = ModelContext(try container(at: url))
    try timing.time {
        var teamModels: [Team] = []
        for team in 0..<teams {
            let model = Team(name: "Team \(team)")
            context.insert(model)
            teamModels.append(model)
        }
        for index in names.indices {
            let person = Person(name: names[index], email: emails[index], age: ages[index], score: scores[index], born: borns[index])
            context.insert(person)
            person.team = teamModels[index % teams]
        }
        try context.save()
    }
}

func readTyped(at url: URL, _ timing: inout Timing) throws -> Checksum {
    let context = ModelContext(try container(at: url))
    // The fetched instances outlive the timed region, as the by-name contender's managed objects
    // do (its context holds them): neither contender's objects are freed while it is timed.
    var fetched: [Person] = []
    let checksum = try timing.time {
        var checksum = Checksum()
        fetched = try context.fetch(FetchDescriptor<Person>())
        for person in fetched {
            checksum.add(name: person.name, email: person.email, age: person.age, score: person.score, born: person.born)
        }
        return checksum
    }
    withExtendedLifetime(fetched) {}
    return checksum
}

// MARK: Runs

var timings: [String: Timing] = [:]
for key in ["w1.name", "w1.typed", "w2.name", "w2.typed"] { timings[key] = Timing(name: key) }
do {
    for _ in 0..<runs {
        // Each W1 writes a new store; each W2 reads the store the other contender wrote last,
        // so both read the same rows.
        if only == nil || only == "w1.name" || only == "w2.typed" { try insertByName(at: storeURL("by-name"), &timings["w1.name", default: Timing(name: "")]) }
        if only == nil || only == "w1.typed" || only == "w2.name" { try insertTyped(at: storeURL("typed"), &timings["w1.typed", default: Timing(name: "")]) }
        var byName: Checksum?
        var typed: Checksum?
        if only == nil || only == "w2.name" { byName = try readByName(at: folder.appendingPathComponent("typed.sqlite"), &timings["w2.name", default: Timing(name: "")]) }
        if only == nil || only == "w2.typed" { typed = try readTyped(at: folder.appendingPathComponent("by-name.sqlite"), &timings["w2.typed", default: Timing(name: "")]) }
        if let byName, let typed, byName != typed { fail("the contenders read different values: \(byName) vs \(typed)") }
        if let read = byName ?? typed, read.rows != persons { fail("read \(read.rows) persons, not \(persons)") }
    }
} catch {
    fail("\(error)")
}

func format(_ seconds: Double) -> String { String(format: "%.3f s", seconds) }
print("\(persons) persons, \(teams) teams, median of \(runs) runs (wall / CPU):")
print("| workload | by name (`value(forKey:)`) | typed (`@Model`) | typed ÷ by name (wall / CPU) |")
print("|---|---|---|---|")
for (title, name, typedKey) in [("W1 insert + save", "w1.name", "w1.typed"), ("W2 fetch + read every attribute", "w2.name", "w2.typed")] {
    guard let a = timings[name], let b = timings[typedKey], !a.seconds.isEmpty, !b.seconds.isEmpty else { continue }
    print(
        "| \(title) | \(format(a.median)) / \(format(a.cpuMedian)) | \(format(b.median)) / \(format(b.cpuMedian)) | "
            + String(format: "%.2f× / %.2f×", b.median / a.median, b.cpuMedian / a.cpuMedian) + " |")
    // The run's summary (scripts/bench.sh), in CPU time.
    Summary.line("\(title) through @Model ÷ by name (CPU)", size: persons, b.cpuMedian / a.cpuMedian, target: .atMost(1.05))
}
