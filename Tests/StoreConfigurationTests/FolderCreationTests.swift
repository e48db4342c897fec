import Foundation
import PersistentStores
@testable import StoreCore
import StoreTestSupport
import Testing

/// A mistyped path creates nothing: folders are created only for the container's default
/// location, the configured `folder` of stores without a path, or when an option says so; a
/// failed load leaves no file and no folder behind.
@Suite struct FolderCreationTests {
    static let fileStoreTypes = ["SQLite", "Binary", "XML", "PipeCSV", "JSONFile"]

    /// Everything under `directory`, relative paths sorted.
    private func tree(_ directory: URL) -> [String] {
        let base = directory.standardizedFileURL.path
        return (FileManager.default.enumerator(atPath: base)?.compactMap { $0 as? String } ?? []).sorted()
            .filter { !$0.isEmpty && base.count > 0 }
    }

    @Test(arguments: fileStoreTypes)
    func aStoreInAMissingFolderIsAnErrorNamingTheFolderAndCreatesNothing(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("mistyped/deeper/store.\(type.lowercased())")
            let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            container.persistentStoreDescriptions = [StoreDescription(type: type, url: url)]
            let error = storeError { try container.loadPersistentStores() }
            #expect(error?.code == .persistentStoreOperation)
            let message = error?.message ?? ""
            #expect(message.contains("the folder \(url.deletingLastPathComponent().path) does not exist"), "\(message)")
            #expect(message.contains("\(directory.appendingPathComponent("mistyped").path) is missing"), "\(message)")
            #expect(message.contains(StoreOptionKey.createsParentDirectories), "\(message)")
            #expect(tree(directory) == [])
            // Straight through the coordinator too.
            let coordinator = PersistentStoreCoordinator(model: try leagueModel(), registry: registryWithCustomType())
            let direct = storeError { _ = try coordinator.addPersistentStore(type: type, at: url) }
            #expect(direct?.message.contains("does not exist") == true, "\(direct?.message ?? "")")
            #expect(tree(directory) == [])
        }
    }

    @Test func aMistypedRootCreatesNothing() throws {
        let root = URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)/x/")
        let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
        container.persistentStoreDescriptions = [StoreDescription(type: "SQLite", url: root.appendingPathComponent("League.sqlite"))]
        let error = storeError { try container.loadPersistentStores() }
        #expect(error?.message.contains("\(root.deletingLastPathComponent().path) is missing") == true, "\(error?.message ?? "")")
        #expect(!FileManager.default.fileExists(atPath: root.deletingLastPathComponent().path))
    }

    @Test func aMistypedPathInTheConfigurationCreatesNothing() throws {
        try withTemporaryDirectory { directory in
            let file = try write("persistence:\n  store:\n    type: XML\n    path: dtaa/League.xml\n", to: "stores.yaml", in: directory)
            let container = try StoreConfigurationSources(file: file, environment: [:])
                .makeContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            let error = storeError { try container.loadPersistentStores() }
            #expect(error?.message.contains("\(directory.appendingPathComponent("dtaa").standardizedFileURL.path) does not exist") == true)
            #expect(tree(directory) == ["stores.yaml"])
        }
    }

    @Test func theOptionOrTheYAMLKeyCreatesTheFolders() throws {
        try withTemporaryDirectory { directory in
            let file = try write(
                "persistence:\n  store:\n    type: XML\n    path: new/data/League.xml\n    createsParentDirectories: true\n",
                to: "stores.yaml", in: directory)
            let container = try StoreConfigurationSources(file: file, environment: [:])
                .makeContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            #expect(container.persistentStoreDescriptions.first?.options[StoreOptionKey.createsParentDirectories] == .bool(true))
            try container.loadPersistentStores()
            _ = try container.viewContext.insert(entityName: "Team")
            try container.viewContext.save()
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("new/data/League.xml").path))
        }
    }

    @Test func theConfiguredFolderOfStoresWithoutAPathIsCreated() throws {
        try withTemporaryDirectory { directory in
            let file = try write("persistence:\n  folder: data/league\n  store:\n    type: Binary\n", to: "stores.yaml", in: directory)
            let container = try StoreConfigurationSources(file: file, environment: [:])
                .makeContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            try container.loadPersistentStores()
            #expect(container.persistentStoreCoordinator.persistentStores.count == 1)
            var isDirectory: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("data/league").path, isDirectory: &isDirectory))
            #expect(isDirectory.boolValue)
        }
    }

    @Test func theContainersDefaultLocationIsCreated() throws {
        let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
        let description = try container.defaultStoreDescription()
        #expect(container.createsFolders(for: description))
        #expect(!container.createsFolders(for: StoreDescription(type: "SQLite", url: URL(fileURLWithPath: "/tmp/elsewhere/x.sqlite"))))
        // Another default location (a model configuration's) too.
        let other = try PersistentContainer.defaultDirectoryURL(name: "Scratch").appendingPathComponent("Scratch.store")
        #expect(container.createsFolders(for: StoreDescription(type: "SQLite", url: other)))
        #expect(!container.createsFolders(for: StoreDescription(type: "InMemory", url: other)))
    }

    @Test func aPostgreSQLStoreWithoutAURLIsRefusedAndLeavesNoFolder() throws {
        try withTemporaryDirectory { directory in
            let file = try write("persistence:\n  folder: pg-data\n  store:\n    type: PostgreSQL\n", to: "stores.yaml", in: directory)
            let error = storeError {
                _ = try StoreConfigurationSources(file: file, environment: [:])
                    .makeContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            }
            #expect(error?.message.contains("`persistence.store.url`") == true, "\(error?.message ?? "")")
            #expect(error?.message.contains("needs its connection URI") == true)
            #expect(tree(directory) == ["stores.yaml"])
            // A PostgreSQL description made in code with a file URL fails and leaves nothing either.
            let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            container.persistentStoreDescriptions = [
                StoreDescription(
                    type: "PostgreSQL", url: directory.appendingPathComponent("pg/League.postgresql"),
                    options: [StoreOptionKey.createsParentDirectories: .bool(true)])
            ]
            _ = storeError { try container.loadPersistentStores() }
            #expect(tree(directory) == ["stores.yaml"])
        }
    }

    /// Every store type: a load that fails after the container created the folders (an
    /// invalid limit, checked when the store is made; an unknown model configuration) leaves
    /// neither files nor folders behind. (InMemory keeps nothing: it takes no limit and gets
    /// no folder.)
    @Test(arguments: fileStoreTypes + ["InMemory"])
    func aFailedLoadLeavesNothingBehind(type: String) throws {
        try withTemporaryDirectory { directory in
            let creating: StoreOptions = [StoreOptionKey.createsParentDirectories: .bool(true)]
            var badLimit = creating
            badLimit[StoreLimits.maximumFileSizeOption] = .string("huge")
            let container = PersistentContainer(name: "League", model: try leagueModel(), registry: registryWithCustomType())
            container.persistentStoreDescriptions = [
                StoreDescription(type: type, url: directory.appendingPathComponent("a/b/one.\(type.lowercased())"), options: badLimit),
                StoreDescription(
                    type: type, url: directory.appendingPathComponent("c/d/two.\(type.lowercased())"), configuration: "NoSuch",
                    options: creating),
            ]
            var errors: [StoreError] = []
            container.loadPersistentStores { _, error in if let error { errors.append(error) } }
            #expect(errors.count == (type == "InMemory" ? 1 : 2), "\(errors.map(\.message))")
            #expect(container.persistentStoreCoordinator.persistentStores.count == (type == "InMemory" ? 1 : 0))
            #expect(tree(directory) == [])
        }
    }
}
