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

/// A damaged object file makes a fetch fail with 134080 naming the file, and is left as it is.
@Test func aDamagedObjectFileIsAnErrorNamingIt() throws {
    try withTemporaryFolder { folder in
        let registry = StoreRegistry()
        registry.register(DirectoryStore.self)
        let url = folder.appendingPathComponent("store")
        let writer = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
        let store = try writer.addPersistentStore(type: "Directory", at: url)
        let context = ManagedObjectContext(coordinator: writer)
        try context.insert(entityName: "Team").setValue("Crew", forKey: "name")
        try context.save()
        try writer.remove(store)
        let file = url.appendingPathComponent("Team/1.json")
        try Data("{\"version\": ".utf8).write(to: file)

        let reader = PersistentStoreCoordinator(model: try leagueModel(), registry: registry)
        try reader.addPersistentStore(type: "Directory", at: url)
        let readContext = ManagedObjectContext(coordinator: reader)
        do {
            _ = try readContext.fetch(FetchRequest(entityName: "Team"))
            Issue.record("a fetch over a damaged file succeeded")
        } catch let error as StoreError {
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.contains(file.path))
        }
        #expect(try Data(contentsOf: file) == Data("{\"version\": ".utf8))
    }
}

// MARK: Deliberately broken copies: each must fail the suite, in the cases that catch its bug.

/// Treats a file or folder it cannot read as a new, empty store (and would write over it).
final class TrustingDirectoryStore: DirectoryStore {
    override class var storeType: String { "TrustingDirectory" }
    override func loadMetadata() throws { try? super.loadMetadata() }
}

/// Saves objects without their relationships.
final class ForgetfulDirectoryStore: DirectoryStore {
    override class var storeType: String { "ForgetfulDirectory" }
    override func execute(_ request: StoreRequest) throws -> StoreResult {
        guard case .save(var save) = request else { return try super.execute(request) }
        func forget(_ nodes: [StoreNode]) -> [StoreNode] {
            nodes.map { node in
                var node = node
                node.toOne = [:]
                node.toMany = node.toMany.mapValues { _ in [] }
                return node
            }
        }
        save.insertedObjects = forget(save.insertedObjects)
        save.updatedObjects = forget(save.updatedObjects)
        return try super.execute(.save(save))
    }
}

/// Reads every object back at row version 1, as if versions were never saved.
final class VersionlessDirectoryStore: DirectoryStore {
    override class var storeType: String { "VersionlessDirectory" }
    override func newValues(forObjectWith objectID: ObjectID) throws -> IncrementalStoreNode {
        var node = try super.newValues(forObjectWith: objectID)
        node.version = 1
        return node
    }
}

/// Stores doubles with the precision of a Float.
final class TruncatingDirectoryStore: DirectoryStore {
    override class var storeType: String { "TruncatingDirectory" }
    override func execute(_ request: StoreRequest) throws -> StoreResult {
        guard case .save(var save) = request else { return try super.execute(request) }
        func truncate(_ nodes: [StoreNode]) -> [StoreNode] {
            nodes.map { node in
                var node = node
                node.attributes = node.attributes.mapValues { value in
                    if case .double(let double) = value { return .double(Double(Float(double))) }
                    return value
                }
                return node
            }
        }
        save.insertedObjects = truncate(save.insertedObjects)
        save.updatedObjects = truncate(save.updatedObjects)
        return try super.execute(.save(save))
    }
}

/// Runs the cases of some behaviours on a broken type; returns the failed runs' case names
/// and messages.
private func failures(of type: DirectoryStore.Type, behaviours: Set<Int>) -> [(name: String, message: String)] {
    let registry = StoreRegistry()
    registry.register(type)
    let report = ConformanceSuite.run(
        storeType: type.storeType, registry: registry, cases: ConformanceSuite.allCases.filter { behaviours.contains($0.behaviour) })
    return report.results.compactMap { result in
        if case .failed(let message) = result.outcome { return (result.run.testCase.name, message) }
        return nil
    }
}

@Test func aDirectoryStoreThatTreatsForeignFilesAsNewFailsTheSuite() throws {
    let failed = failures(of: TrustingDirectoryStore.self, behaviours: [4])
    let failure = try #require(failed.first { $0.name == "a file of another type fails with 134010 untouched" })
    #expect(failure.message.contains("TrustingDirectory"))
    #expect(failure.message.contains("expected error 134010"))
    #expect(failure.message.contains("most likely at fault: the type check when the store is opened"))
}

@Test func aDirectoryStoreThatDropsRelationshipsFailsTheSuite() {
    let failed = failures(of: ForgetfulDirectoryStore.self, behaviours: [18, 21])
    #expect(failed.contains { $0.message.contains("ForgetfulDirectory #21") && $0.message.contains("expected") })
    #expect(failed.contains { $0.message.contains("ForgetfulDirectory #18") })
}

@Test func aDirectoryStoreThatLosesRowVersionsFailsTheSuite() {
    let failed = failures(of: VersionlessDirectoryStore.self, behaviours: [45])
    #expect(failed.contains { $0.name == "row versions advance on each save" && $0.message.contains("expected 2, got 1") })
    #expect(failed.contains { $0.name == "row versions survive reopen" })
}

@Test func aDirectoryStoreThatTruncatesDoublesFailsTheSuite() {
    let failed = failures(of: TruncatingDirectoryStore.self, behaviours: [12])
    #expect(failed.contains { $0.name == "every attribute type round-trips exactly" && $0.message.contains("AllTypes.double") })
}

/// The migration cases alone (#10, #48, #53–#55): a store kept as a folder is migrated by
/// writing a new folder beside it and swapping the two.
@Test func directoryStoreMigrates() {
    let registry = StoreRegistry()
    registry.register(DirectoryStore.self)
    let cases = ConformanceSuite.allCases.filter { $0.area == .migration || $0.behaviour == 10 }
    let report = ConformanceSuite.run(storeType: "Directory", registry: registry, cases: cases)
    record(report)
    #expect(report.failed == 0)
    #expect(report.passed >= 5)
}
