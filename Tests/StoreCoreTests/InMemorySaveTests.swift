@_spi(Fuzzing) import AtomicBinaryStore
import Foundation
import PersistentStores
@_spi(Fuzzing) import PipeCSVStore
@_spi(Fuzzing) import StoreCore
import StoreTestSupport
import Testing
@_spi(Fuzzing) import XMLStore

/// The in-memory saves of the fuzz harnesses' round trip (`savedData()`, through
/// `AtomicFileWriter.collect`): the same bytes `save()` writes to the file, and nothing on disk.
@Suite("In-memory saves")
struct InMemorySaveTests {
    static func model() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Attribute("logo", .binaryData)
                Relationship("players", to: "Player", inverse: "team", toMany: true)
            }
            Entity("Player") {
                Attribute("age", .integer32)
                Relationship("team", to: "Team", inverse: "players")
            }
        }
    }

    /// Saves a small graph to `url` through a coordinator.
    static func makeStore(type: String, at url: URL) throws {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let coordinator = PersistentStoreCoordinator(model: try model(), registry: registry)
        let store = try coordinator.addPersistentStore(type: type, at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try team.setValue("Crew | <&> \"x\"\n", forKey: "name")
        try team.setValue(.data(Data([0, 1, 2, 255])), forKey: "logo")
        for age in [20, 31] {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.int(Int64(age)), forKey: "age")
            try player.setObject(team, forKey: "team")
        }
        try context.save()
        try coordinator.remove(store)
    }

    /// Loads the file at `url` into a store of type `S`, then compares what `savedData()` gives
    /// with what `save()` writes to the same file (through `comparable`: what must be equal).
    static func check<S: AtomicStore>(
        _ type: S.Type, name: String, comparable: (Data) -> [String] = { [$0.base64EncodedString()] },
        savedData: (S) throws -> Data
    ) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent(name)
            try makeStore(type: S.storeType, at: url)
            let store = try S(model: try model(), configurationName: nil, url: url, options: [:])
            try store.load()
            let inMemory = try savedData(store)
            let before = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            #expect(!inMemory.isEmpty)
            // Nothing was written: the folder holds what it held.
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == before)
            try store.save()
            #expect(comparable(contents(of: url)) == comparable(inMemory), "\(S.storeType): the in-memory save differs from the file save")
        }
    }

    @Test func binary() throws {
        try Self.check(AtomicBinaryStore.self, name: "Team.store") { try $0.savedData() }
    }

    @Test func xml() throws {
        try Self.check(XMLStore.self, name: "Team.xml") { try $0.savedData() }
    }

    @Test func pipeCSV() throws {
        // The header's property list may order its keys differently from one save to the next
        // (and the end line's checksum with it): the record lines must be the same.
        let records: (Data) -> [String] = { data in
            let lines = String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
            return lines.dropFirst().dropLast().sorted()
        }
        try Self.check(PipeCSVStore.self, name: "Team.txt", comparable: records) { try $0.savedData() }
    }

    @Test func collectRunsTheWriterIntoMemory() throws {
        let url = URL(fileURLWithPath: "/nonexistent/folder/file")
        let data = try AtomicFileWriter.collect(naming: url) { output in
            try output.write("abc")
            try output.write(Data(count: 100_000))  // past the output's buffer
            try output.write(byte: 0x0A)
        }
        #expect(data.count == 100_004)
        #expect(data.prefix(3) == Data("abc".utf8))
        #expect(data.last == 0x0A)
    }
}
