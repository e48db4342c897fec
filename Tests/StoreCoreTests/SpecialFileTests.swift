import Foundation
import PersistentStores
import StoreTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The atomic stores given something that is not a regular file: each is a clear error naming
/// the file, never a blocked `open()` and never "a new empty store" that a save would write over.
@Suite("Special files")
struct SpecialFileTests {
    static let atomicTypes = ["Binary", "XML", "PipeCSV"]

    static func error(adding type: String, at url: URL) throws -> StoreError? {
        let registry = StoreRegistry()
        PersistentStores.registerBuiltInStoreTypes(in: registry)
        let model = try ObjectModel { Entity("Team") { Attribute("name", .string) } }
        let coordinator = PersistentStoreCoordinator(model: model, registry: registry)
        return storeError { _ = try coordinator.addPersistentStore(type: type, at: url) }
    }

    @Test(arguments: atomicTypes)
    func aFIFOIsRefusedWithoutBlocking(type: String) throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Pipe.store")
            #expect(mkfifo(url.path, 0o600) == 0)
            let error = try #require(try Self.error(adding: type, at: url))
            #expect(error.code == .persistentStoreOpen)
            #expect(error.message.contains("Pipe.store is a FIFO"), "\(error.message)")
        }
    }

    @Test(arguments: atomicTypes)
    func aSymbolicLinkLoopIsRefusedNotANewStore(type: String) throws {
        try withTemporaryDirectory { directory in
            let a = directory.appendingPathComponent("A.store")
            let b = directory.appendingPathComponent("B.store")
            try FileManager.default.createSymbolicLink(atPath: a.path, withDestinationPath: b.path)
            try FileManager.default.createSymbolicLink(atPath: b.path, withDestinationPath: a.path)
            let error = try #require(try Self.error(adding: type, at: a))
            #expect(error.message.contains("A.store is a loop of symbolic links"), "\(error.message)")
        }
    }

    @Test(arguments: atomicTypes)
    func aDeviceIsRefused(type: String) throws {
        let error = try #require(try Self.error(adding: type, at: URL(fileURLWithPath: "/dev/zero")))
        #expect(error.message.contains("/dev/zero is a device"), "\(error.message)")
    }
}
