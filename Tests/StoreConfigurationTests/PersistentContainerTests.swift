import Foundation
import PersistentStores
import StoreTestSupport
import Testing

@Suite struct PersistentContainerTests {
    @Test func theDefaultFolderFollowsXDGThenHome() throws {
        let xdg = try PersistentContainer.defaultDirectoryURL(name: "League", environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
        let home = try PersistentContainer.defaultDirectoryURL(name: "League", environment: ["HOME": "/home/u"])
        let relativeXDG = try PersistentContainer.defaultDirectoryURL(name: "League", environment: ["XDG_DATA_HOME": "rel", "HOME": "/home/u"])
        #if canImport(Darwin)
        #expect(xdg.path.hasSuffix("Library/Application Support/League"))
        #else
        #expect(xdg.path == "/data/League")
        #expect(home.path == "/home/u/.local/share/League")
        #expect(relativeXDG.path == "/home/u/.local/share/League")
        #endif
        #expect(storeError { _ = try PersistentContainer.defaultDirectoryURL(name: "a/b") }?.message.contains("cannot name a folder") == true)
    }

    @Test func theDefaultStoreIsSQLiteNamedAfterTheContainer() throws {
        let container = PersistentContainer(name: "League", model: try leagueModel())
        let description = try container.defaultStoreDescription()
        #expect(description.type == "SQLite")
        #expect(description.url?.lastPathComponent == "League.sqlite")
        #expect(description.url?.deletingLastPathComponent().lastPathComponent == "League")
    }

    @Test func loadingCreatesTheMissingFolderWhenAskedAndSavesThroughTheViewContext() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("a/b/League.sqlite")
            let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            container.persistentStoreDescriptions = [
                StoreDescription(type: "SQLite", url: url, options: [StoreOptionKey.createsParentDirectories: .bool(true)])
            ]
            try container.loadPersistentStores()
            let team = try container.viewContext.insert(entityName: "Team")
            try team.setValue("Crew", forKey: "name")
            try container.viewContext.save()
            #expect(container.viewContext === container.viewContext)
            #expect(container.newBackgroundContext() !== container.viewContext)
            #expect(try container.newBackgroundContext().count(for: FetchRequest(entityName: "Team")) == 1)
            #expect(FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func aFolderThatCannotBeCreatedSaysWhy() throws {
        try withTemporaryDirectory { directory in
            let blocker = try write("not a folder", to: "blocker", in: directory)
            let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            let creating: StoreOptions = [StoreOptionKey.createsParentDirectories: .bool(true)]
            container.persistentStoreDescriptions = [
                StoreDescription(type: "XML", url: blocker.appendingPathComponent("League.xml"), options: creating),
                StoreDescription(type: "SQLite", url: blocker.appendingPathComponent("deeper/League.sqlite"), options: creating),
            ]
            var errors: [StoreError] = []
            container.loadPersistentStores { _, error in if let error { errors.append(error) } }
            #expect(errors.count == 2)
            #expect(errors.first?.message.contains("a file of that name is in the way") == true)
            #expect(errors.last?.message.contains("\(blocker.path) is a file, not a folder") == true)
            #expect(container.persistentStoreCoordinator.persistentStores.isEmpty)
        }
    }

    @Test func aFailingDescriptionLeavesNothingBehindAndTheOthersLoad() throws {
        try withTemporaryDirectory { directory in
            let good = directory.appendingPathComponent("good.sqlite")
            let bad = directory.appendingPathComponent("bad.sqlite")
            let notAStore = try write("this is not a store", to: "notes.bin", in: directory)
            let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            container.persistentStoreDescriptions = [
                StoreDescription(type: "SQLite", url: good, configuration: "League"),
                StoreDescription(type: "SQLite", url: bad, configuration: "NoSuchConfiguration"),
                StoreDescription(type: "Binary", url: notAStore, configuration: "Scratch"),
            ]
            let error = storeError { try container.loadPersistentStores() }
            #expect(error?.underlyingErrors.count == 2)
            #expect(error?.message.contains("2 stores could not be added") == true)
            #expect(error?.underlyingErrors.first?.message.contains("SQLite store at \(bad.path)") == true)
            #expect(error?.underlyingErrors.last?.message.contains(notAStore.path) == true)
            #expect(container.persistentStoreCoordinator.persistentStores.map(\.url) == [good])
            #expect(!FileManager.default.fileExists(atPath: bad.path))
            // A file that was there before the attempt stays untouched.
            #expect(text(of: notAStore) == "this is not a store")
        }
    }

    @Test func aModelFileMakesTheContainer() throws {
        try withTemporaryDirectory { directory in
            let modelURL = directory.appendingPathComponent("League.json")
            try leagueModel().writeJSON(to: modelURL)
            let container = try PersistentContainer(name: "League", modelURL: modelURL)
            #expect(container.managedObjectModel.entityNames.sorted() == ["Note", "Player", "Team"])
            #expect(storeError { _ = try PersistentContainer(name: "x", modelURL: directory.appendingPathComponent("none.json")) }?
                .message.contains("There is no model") == true)
        }
    }

    @Test func backgroundTasksGetTheirOwnContextOnTheSameStores() async throws {
        let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
        container.persistentStoreDescriptions = [StoreDescription(type: "InMemory")]
        try container.loadPersistentStores()
        let id = try await container.performBackgroundTask { context in
            let team = try context.insert(entityName: "Team")
            try team.setValue("Fire", forKey: "name")
            try context.save()
            return team.objectID
        }
        let team = try container.viewContext.existingObject(with: id)
        #expect(team.value(forKey: "name", as: String.self) == "Fire")
    }
}
