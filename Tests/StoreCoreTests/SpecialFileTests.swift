import Foundation
import PersistentStores
import StoreTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The stores given something that is not a regular file: each is a clear error naming the
/// file, never a blocked `open()` and never "a new empty store" that a save would write over.
/// Symbolic links to a store are followed.
@Suite("Special files")
struct SpecialFileTests {
    static let atomicTypes = ["Binary", "XML", "PipeCSV"]
    static let fileTypes = atomicTypes + ["SQLite"]

    static func coordinator() throws -> PersistentStoreCoordinator {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let model = try ObjectModel { Entity("Team") { Attribute("name", .string) } }
        return PersistentStoreCoordinator(model: model, registry: registry)
    }

    static func error(adding type: String, at url: URL) throws -> StoreError? {
        let coordinator = try coordinator()
        return storeError { _ = try coordinator.addPersistentStore(type: type, at: url) }
    }

    /// The errors of adding the store, reading its metadata and writing its metadata.
    static func errors(for type: String, at url: URL) throws -> [StoreError?] {
        let coordinator = try coordinator()
        return [
            storeError { _ = try coordinator.addPersistentStore(type: type, at: url) },
            storeError { _ = try coordinator.metadataForPersistentStore(type: type, at: url) },
            storeError { try coordinator.setMetadata(["Key": "value"], forPersistentStoreOfType: type, at: url) },
        ]
    }

    @Test(arguments: fileTypes)
    func aFIFOIsRefusedWithoutBlocking(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Pipe.store")
            #expect(mkfifo(url.path, 0o600) == 0)
            for error in try Self.errors(for: type, at: url) {
                let error = try #require(error)
                #expect(error.code == .persistentStoreOpen)
                #expect(error.message.contains("Pipe.store is a FIFO"), "\(error.message)")
            }
        }
    }

    @Test(arguments: fileTypes)
    func aSymbolicLinkLoopIsRefusedNotANewStore(type: String) throws {
        try withTemporaryDirectory { directory in
            let a = directory.appendingPathComponent("A.store")
            let b = directory.appendingPathComponent("B.store")
            try FileManager.default.createSymbolicLink(atPath: a.path, withDestinationPath: b.path)
            try FileManager.default.createSymbolicLink(atPath: b.path, withDestinationPath: a.path)
            for error in try Self.errors(for: type, at: a) {
                let error = try #require(error)
                #expect(error.message.contains("A.store is a loop of symbolic links"), "\(error.message)")
            }
        }
    }

    @Test(arguments: fileTypes)
    func aDeviceIsRefused(type: String) throws {
        for error in try Self.errors(for: type, at: URL(fileURLWithPath: "/dev/zero")) {
            let error = try #require(error)
            #expect(error.message.contains("/dev/zero is a device"), "\(error.message)")
        }
    }

    @Test(arguments: fileTypes)
    func aFolderIsRefused(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Folder.store")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            for error in try Self.errors(for: type, at: url) {
                let error = try #require(error)
                #expect(error.code == .persistentStoreOpen)
                #expect(error.message.contains("Folder.store is a folder"), "\(error.message)")
            }
        }
    }

    /// Issue 14, defect 5: a symbolic link to a valid SQLite store was refused with 134010
    /// (`attributesOfItem` does not follow links) while the atomic stores followed it.
    @Test(arguments: fileTypes)
    func aSymbolicLinkToAStoreIsFollowed(type: String) throws {
        try withTemporaryDirectory { directory in
            let target = directory.appendingPathComponent("Real.store")
            let link = directory.appendingPathComponent("Link.store")
            do {
                let coordinator = try Self.coordinator()
                let store = try coordinator.addPersistentStore(type: type, at: target)
                let context = ManagedObjectContext(coordinator: coordinator)
                let team = try context.insert(entityName: "Team")
                try team.setValue("Crew", forKey: "name")
                try context.save()
                try coordinator.remove(store)
            }
            try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: target.path)
            let coordinator = try Self.coordinator()
            let metadata = try coordinator.metadataForPersistentStore(type: type, at: link)
            #expect(metadata[MetadataKey.storeType] == .string(type))
            _ = try coordinator.addPersistentStore(type: type, at: link)
            let context = ManagedObjectContext(coordinator: coordinator)
            let names = try context.fetch(entityName: "Team").map { $0["name"] }
            #expect(names == ["Crew"])
        }
    }
}
