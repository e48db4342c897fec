import Conformance
import DirectoryStore
import Foundation
import StoreCore
import Testing

/// Every failure of a report, recorded as a test issue.
private func record(_ report: ConformanceReport) {
    for result in report.results {
        if case .failed(let message) = result.outcome { Issue.record(Comment(rawValue: message)) }
    }
}

/// The example incremental store passes the whole conformance suite.
@Test func directoryStorePassesTheConformanceSuite() {
    let registry = StoreRegistry()
    registry.register(DirectoryStore.self)
    let report = ConformanceSuite.run(storeType: "Directory", registry: registry)
    record(report)
    #expect(report.failed == 0)
    #expect(report.passed > 0)
}

/// A fresh temporary folder, removed when `body` returns.
private func withTemporaryFolder(_ body: (URL) throws -> Void) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("directory-store-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    try body(folder)
}

private func leagueModel() throws -> ObjectModel {
    try ObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("lastName", .string)
            Relationship("team", to: "Team", inverse: "players")
        }
    }
}

/// The folder holds `metadata.json` and one `<Entity>/<n>.json` per object; a to-many answered
/// from its inverse is not written, and reading it back goes through a to-many fault.
@Test func oneFilePerObjectAndToManyFaults() throws {
    try withTemporaryFolder { folder in
        let registry = StoreRegistry()
        registry.register(DirectoryStore.self)
        let url = folder.appendingPathComponent("League.store")
        let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
        let store = try coordinator.addPersistentStore(type: "Directory", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try team.setValue("Crew", forKey: "name")
        for name in ["Gordon", "Ada"] {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.string(name), forKey: "lastName")
            try player.setObject(team, forKey: "team")
        }
        try context.save()
        let files = Set(try FileManager.default.subpathsOfDirectory(atPath: url.path))
        #expect(files.isSuperset(of: ["metadata.json", "Team/1.json", "Player/1.json", "Player/2.json"]))
        let teamFile = try String(contentsOf: url.appendingPathComponent("Team/1.json"), encoding: .utf8)
        #expect(!teamFile.contains("players"))

        try coordinator.remove(store)
        let reader = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
        try reader.addPersistentStore(type: "Directory", at: url)
        let readContext = ManagedObjectContext(coordinator: reader)
        let teams = try readContext.fetch(FetchRequest(entityName: "Team"))
        #expect(teams.count == 1)
        let players = try #require(teams.first).objects(forKey: "players")
        #expect(players.compactMap { $0.value(forKey: "lastName", as: String.self) }.sorted() == ["Ada", "Gordon"])
        #expect(reader.statistics.relationshipLoads >= 1)
    }
}

/// Each save of an object writes its file with the next row version.
@Test func rowVersionsAdvancePerSave() throws {
    try withTemporaryFolder { folder in
        let registry = StoreRegistry()
        registry.register(DirectoryStore.self)
        let url = folder.appendingPathComponent("store")
        let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
        try coordinator.addPersistentStore(type: "Directory", at: url)
        let context = ManagedObjectContext(coordinator: coordinator)
        let team = try context.insert(entityName: "Team")
        try context.save()
        for name in ["a", "b", "c"] {
            try team.setValue(.string(name), forKey: "name")
            try context.save()
        }
        let data = try Data(contentsOf: url.appendingPathComponent("Team/1.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["version"] as? Int == 4)
    }
}

/// A folder of other files, or a file, is not a Directory store: 134010, and nothing is
/// written.
@Test func foreignFoldersAndFilesAreRefusedUntouched() throws {
    try withTemporaryFolder { folder in
        let registry = StoreRegistry()
        registry.register(DirectoryStore.self)
        let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
        let photos = folder.appendingPathComponent("Photos", isDirectory: true)
        try FileManager.default.createDirectory(at: photos, withIntermediateDirectories: true)
        try Data("jpeg".utf8).write(to: photos.appendingPathComponent("a.jpg"))
        #expect(throws: StoreError.self) { try coordinator.addPersistentStore(type: "Directory", at: photos) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: photos.path) == ["a.jpg"])
        do {
            try coordinator.addPersistentStore(type: "Directory", at: photos)
        } catch let error as StoreError {
            #expect(error.code == .persistentStoreTypeMismatch)
            #expect(error.message.contains(photos.path))
        }
    }
}
