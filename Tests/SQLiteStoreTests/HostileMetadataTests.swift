import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import SQLiteStore

/// A store whose `Z_METADATA` holds a small binary property list of shared references that
/// stands for 2^41 objects: adding the store, reading its metadata and `storectl info` used to
/// expand them all, holding the process in a loop while its memory grew without end. Now a
/// 134080 naming the file, at once.
@Suite struct HostileMetadataTests {
    /// A store of the League model whose metadata is `plist`.
    static func store(withMetadata plist: Data, in directory: TemporaryDirectory) throws -> URL {
        let url = directory.file("Bomb.sqlite")
        _ = try openStore(Models.league(), at: url)
        let connection = try SQLiteConnection(url: url, readOnly: false, create: false)
        let update = try connection.prepare("UPDATE Z_METADATA SET Z_PLIST = ?")
        update.bind(blob: plist, at: 1)
        _ = try update.step()
        update.reset()
        return url
    }

    @Test func metadataOfSharedReferencesIsRefusedInSeconds() throws {
        let directory = try TemporaryDirectory()
        let url = try Self.store(withMetadata: HostilePropertyList.sharedArrays(depth: 40), in: directory)
        let model = try Models.league()

        let added = storeError(within: 10) { _ = try openStore(model, at: url) }
        #expect(added?.code == .persistentStoreOpen)
        #expect(added?.message.contains(url.path) == true, "\(String(describing: added))")
        #expect(added?.message.contains("expands to more than 100000 objects") == true)

        let metadata = storeError(within: 10) { _ = try SQLiteStore.metadata(forStoreAt: url, options: [:]) }
        #expect(metadata?.code == .persistentStoreOpen)
        #expect(metadata?.message.contains(url.path) == true, "\(String(describing: metadata))")
    }
}
