import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import AtomicBinaryStore

@Suite("Store behaviour")
struct StoreBehaviourTests {
    @Test func aSaveWithoutChangesWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            let store = try BinaryStore(model: Models.league, url: url)
            let before = contents(of: url)
            let inode = try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int
            #expect(try store.save().isEmpty)
            #expect(contents(of: url) == before)
            // The atomic writer replaces the file by rename: an unchanged file number means no write.
            #expect(try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int == inode)
            // A new store at a missing URL writes nothing until something is saved.
            let fresh = directory.appendingPathComponent("Fresh.store")
            let empty = try BinaryStore(model: Models.league, url: fresh)
            try empty.save()
            #expect(!FileManager.default.fileExists(atPath: fresh.path))
        }
    }

    @Test func metadataIsReadAndWrittenWithoutAddingTheStore() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            let content = try makeLeagueStore(at: url)
            let metadata = try AtomicBinaryStore.metadata(forStoreAt: url, options: [:])
            #expect(metadata[MetadataKey.storeType] == "Binary")
            #expect(metadata[MetadataKey.formatVersion] == .int(1))
            let modelJSON = try #require(metadata[MetadataKey.modelJSON]?.dataValue)
            #expect(try ObjectModel(jsonData: modelJSON) == Models.league)
            let identifier = try #require(metadata[MetadataKey.storeUUID]?.stringValue)

            let user: StoreMetadata = [
                "string": "text | = ,", "number": 42, "double": .double(-0.5), "flag": true,
                "date": .date(Date(timeIntervalSinceReferenceDate: -1.25)), "data": .data(Data([0, 255])),
                "array": .array([1, "two", .array([])]), "dictionary": .dictionary(["nested": .dictionary(["deep": false])]),
            ]
            try AtomicBinaryStore.setMetadata(user, forStoreAt: url, options: [:])
            let updated = try AtomicBinaryStore.metadata(forStoreAt: url, options: [:])
            for (key, value) in user { #expect(updated[key] == value, "\(key)") }
            #expect(updated[MetadataKey.storeType] == "Binary")
            #expect(updated[MetadataKey.storeUUID]?.stringValue == identifier)
            // The objects are untouched, and the store opens with its identifier.
            let reopened = try BinaryStore(model: Models.league, url: url)
            #expect(reopened.store.identifier == identifier)
            #expect(try reopened.everything() == content)
            #expect(try reopened.coordinator.metadata(for: reopened.store)["array"] == user["array"])
        }
    }

    @Test func metadataSetOnAnAddedStoreIsWrittenAtTheNextSave() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            let store = try BinaryStore(model: Models.league, url: url)
            var metadata = try store.coordinator.metadata(for: store.store)
            metadata["key"] = "value"
            try store.coordinator.setMetadata(metadata, for: store.store)
            try store.save()
            #expect(try AtomicBinaryStore.metadata(forStoreAt: url, options: [:])["key"] == "value")
        }
    }

    @Test func metadataOfAMissingOrForeignFileIsAnError() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("Missing.store")
            #expect(storeError { _ = try AtomicBinaryStore.metadata(forStoreAt: missing, options: [:]) }?.code == .persistentStoreOperation)
            let xml = directory.appendingPathComponent("Other.xml")
            let bytes = Data("<?xml version=\"1.0\"?>\n<database/>\n".utf8)
            try bytes.write(to: xml)
            #expect(storeError { _ = try AtomicBinaryStore.metadata(forStoreAt: xml, options: [:]) }?.code == .persistentStoreTypeMismatch)
            #expect(storeError { try AtomicBinaryStore.setMetadata(["a": 1], forStoreAt: xml, options: [:]) }?.code == .persistentStoreTypeMismatch)
            #expect(contents(of: xml) == bytes)
        }
    }

    @Test func aReadOnlyStoreIsNeverWritten() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            let before = contents(of: url)
            let options: StoreOptions = [StoreOptionKey.readOnly: true]
            let store = try BinaryStore(model: Models.league, url: url, options: options)
            #expect(store.store.isReadOnly)
            let error = storeError {
                try store.save(inserted: [StoreNode(objectID: try store.newIDs("Coach")[0], attributes: ["name": "X"], version: 0)])
            }
            #expect(error?.code == .persistentStoreOperation)
            #expect(storeError { try AtomicBinaryStore.setMetadata(["a": 1], forStoreAt: url, options: options) }?.code == .persistentStoreOperation)
            #expect(contents(of: url) == before)
        }
    }

    @Test func compressionIsAnOptionAndEitherFileReadsWithAnyOption() throws {
        try withTemporaryDirectory { directory in
            let plain = directory.appendingPathComponent("Plain.store")
            let packed = directory.appendingPathComponent("Packed.store")
            let store = try BinaryStore(model: Models.allTypes, url: plain)
            let packedStore = try BinaryStore(model: Models.allTypes, url: packed, options: [AtomicBinaryStore.compressionOption: 9])
            for target in [store, packedStore] {
                let ids = try target.newIDs("AllTypes", count: 200)
                try target.save(inserted: ids.enumerated().map { index, id in
                    var values = requiredValues()
                    values["string"] = .string("row \(index % 10) of a repetitive table")
                    return StoreNode(objectID: id, attributes: values, version: 0)
                })
            }
            let plainBytes = contents(of: plain)
            let packedBytes = contents(of: packed)
            #expect(plainBytes[10] & 1 == 0)
            #expect(packedBytes[10] & 1 == 1, "the compressed flag")
            #expect(packedBytes.count < plainBytes.count / 2)
            // Each file opens whatever the option says.
            for url in [plain, packed] {
                for options: StoreOptions in [[:], [AtomicBinaryStore.compressionOption: true]] {
                    let reopened = try BinaryStore(model: Models.allTypes, url: url, options: options)
                    #expect(try reopened.nodes("AllTypes").count == 200)
                }
            }
            let invalid = storeError {
                _ = try BinaryStore(model: Models.allTypes, url: plain, options: [AtomicBinaryStore.compressionOption: 12])
            }
            #expect(invalid?.code == .persistentStoreOperation)
        }
    }

    @Test func theFileStartsWithTheDocumentedHeader() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            let bytes = [UInt8](contents(of: url))
            #expect(Array(bytes[0..<8]) == [0x89, 0x50, 0x53, 0x42, 0x49, 0x4E, 0x0A, 0x1A])
            func integer(_ range: Range<Int>) -> UInt64 {
                bytes[range].reversed().reduce(0) { $0 << 8 | UInt64($1) }
            }
            #expect(integer(8..<10) == 1, "format version")
            #expect(integer(10..<12) == 0, "flags")
            let metadataLength = Int(integer(12..<16))
            let storedLength = Int(integer(24..<32))
            #expect(bytes.count == 44 + metadataLength + storedLength)
            #expect(integer(32..<40) == UInt64(storedLength))
            #expect(UInt32(integer(16..<20)) == Zlib.crc32(Array(bytes[44..<(44 + metadataLength)])))
            #expect(UInt32(integer(20..<24)) == Zlib.crc32(Array(bytes[(44 + metadataLength)...])))
            #expect(UInt32(integer(40..<44)) == Zlib.crc32(Array(bytes[0..<40])))
            // The data section starts with the next reference (8: seven objects saved) and the
            // string table, whose first string is the first entity's name.
            let data = Array(bytes[(44 + metadataLength)...])
            #expect(data[0] == 8)
            #expect(data[2] == 4 && Array(data[3..<7]) == Array("Team".utf8))
        }
    }

    @Test func theSameContentGivesTheSameBytes() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.store")
            try makeLeagueStore(at: url)
            let first = contents(of: url)
            let store = try BinaryStore(model: Models.league, url: url)
            var metadata = try store.coordinator.metadata(for: store.store)
            metadata["touch"] = 1
            try store.coordinator.setMetadata(metadata, for: store.store)
            try store.save()
            metadata["touch"] = nil
            try store.coordinator.setMetadata(metadata, for: store.store)
            try store.save()
            #expect(contents(of: url) == first)
        }
    }

    @Test func aDanglingNoActionReferenceIsWrittenAsNil() throws {
        let model = try ObjectModel {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true, deleteRule: .noAction)
            }
            Entity("Pet") {
                Attribute("name", .string)
                Relationship("owner", to: "Owner", inverse: "pets")
                Relationship("friends", to: "Owner", toMany: true)
            }
        }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Pets.store")
            let store = try BinaryStore(model: model, url: url)
            let owner = try store.newIDs("Owner")[0]
            let pet = try store.newIDs("Pet")[0]
            try store.save(inserted: [
                StoreNode(objectID: owner, attributes: ["name": "o"], toMany: ["pets": [pet]], version: 0),
                StoreNode(objectID: pet, attributes: ["name": "p"], toOne: ["owner": owner], toMany: ["friends": []], version: 0),
            ])
            try store.save(deleted: try store.nodes("Owner"))
            #expect(try store.nodes("Pet").first?.toOne["owner"] == owner, "the cache keeps the dangling reference")
            let reopened = try BinaryStore(model: model, url: url)
            let loaded = try #require(try reopened.nodes("Pet").first)
            #expect(loaded.toOne["owner"] == nil)
            #expect(loaded.attributes["name"] == "p")
        }
    }
}
