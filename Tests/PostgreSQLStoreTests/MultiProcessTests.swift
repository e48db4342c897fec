import Foundation
import PostgreSQLStore
import StoreCore
import StoreTestSupport
import Testing

/// Two processes, one store: each edits the same objects through its own coordinator and
/// connection, keeping stale snapshots between saves (`conflict-saver`). Every conflict must
/// fail with 133020 (and be retried) or be resolved by the merge policy, and the rows at the end
/// must be what the two workers' saves give one after the other: nothing lost, nothing
/// duplicated.
@Suite struct MultiProcessTests {
    static let counters = 3
    static let rounds = 60

    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Counter") {
                Attribute("index", .integer64, optional: false, defaultValue: 0)
                Attribute("count", .integer64, optional: false, defaultValue: 0)
                Attribute("tag", .integer64, optional: false, defaultValue: -1)
            }
        }
    }

    @Test func conflictingSavesFromTwoProcessesLoseNothing() throws {
        let worker = try #require(builtExecutable(named: "conflict-saver"), "the conflict-saver executable is built with the tests")
        let url = try TestPostgreSQLServer.freshStoreURL("mp")
        let registry = StoreRegistry()
        PostgreSQLStore.register(in: registry)
        do {
            let coordinator = PersistentStoreCoordinator(model: try Self.model(), registry: registry)
            let store = try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for index in 0..<Self.counters { try context.insert(entityName: "Counter").setValue(.int(Int64(index)), forKey: "index") }
            try context.save()
            try coordinator.remove(store)
        }

        func start(_ mode: String) throws -> (Process, Pipe) {
            let process = Process()
            process.executableURL = worker
            process.arguments = [mode, url.absoluteString, String(Self.rounds), String(Self.counters)]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            try process.run()
            return (process, output)
        }
        let workers = try [start("increment"), start("tag")]
        var outputs: [String] = []
        for (process, output) in workers {
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(process.arguments?.first ?? ""): \(text)")
            outputs.append(text)
        }
        #expect(outputs[0].hasPrefix("conflicts "), "\(outputs[0])")
        print("conflict-saver increment: \(outputs[0].trimmingCharacters(in: .whitespacesAndNewlines))")
        #expect(outputs[1] == "saves \(Self.rounds)\n", "\(outputs[1])")

        // The serial replay: every increment counted once, every counter's last tag kept.
        let coordinator = PersistentStoreCoordinator(model: try Self.model(), registry: registry)
        try coordinator.addPersistentStore(type: PostgreSQLStore.storeType, at: url)
        var request = FetchRequest(entityName: "Counter")
        request.sortKeys = [SortKey("index")]
        let reader = ManagedObjectContext(coordinator: coordinator)
        let counters = try reader.fetch(request)
        #expect(counters.count == Self.counters)
        for (index, counter) in counters.enumerated() {
            let rounds = (0..<Self.rounds).filter { $0 % Self.counters == index }
            #expect(counter.value(forKey: "count") == .int(Int64(rounds.count)), "count of counter \(index)")
            #expect(counter.value(forKey: "tag") == .int(Int64(rounds.last ?? -1)), "tag of counter \(index)")
        }
    }
}
