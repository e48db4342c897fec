import Foundation
import StoreCore
import StoreTestSupport
import Testing

@testable import PipeCSVStore

/// The identity of a file on disk: a rewrite (rename over it) changes the inode.
func fileIdentity(_ url: URL) throws -> [FileAttributeKey: AnyHashable] {
    let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
    return [
        .systemFileNumber: attributes[.systemFileNumber] as? AnyHashable,
        .modificationDate: attributes[.modificationDate] as? AnyHashable,
        .size: attributes[.size] as? AnyHashable,
    ].compactMapValues { $0 }
}

/// A League store with one team and one player, saved.
func savedLeague(in directory: URL, name: String = "League.txt") throws -> (PipeStore, team: ObjectID, player: ObjectID) {
    let url = directory.appendingPathComponent(name)
    let pipe = try PipeStore(model: Models.league, url: url)
    let ids = try pipe.newIDs("Team") + pipe.newIDs("Player")
    try pipe.save(inserted: [
        StoreNode(objectID: ids[0], attributes: ["name": "Crew"], toMany: ["players": [ids[1]]], version: 0),
        StoreNode(objectID: ids[1], attributes: ["firstName": "Jordan"], toOne: ["team": ids[0]], version: 0),
    ])
    return (pipe, ids[0], ids[1])
}

@Suite("PipeCSV store behaviour")
struct StoreBehaviourTests {
    @Test func aSaveWithNoChangesWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let (pipe, _, _) = try savedLeague(in: directory)
            let metadataURL = PipeCSVStore.metadataURL(forStoreAt: pipe.url)
            let before = try (fileIdentity(pipe.url), fileIdentity(metadataURL))
            #expect(try pipe.save().isEmpty)
            let reopened = try PipeStore(model: Models.league, url: pipe.url)
            try reopened.save()
            #expect(try fileIdentity(pipe.url) == before.0)
            #expect(try fileIdentity(metadataURL) == before.1)
        }
    }

    @Test func metadataSetOnTheStoreIsWrittenAtTheNextSaveAndSurvivesReopen() throws {
        try withTemporaryDirectory { directory in
            let (pipe, _, _) = try savedLeague(in: directory)
            var metadata = try pipe.coordinator.metadata(for: pipe.store)
            let userValues: [String: MetadataValue] = [
                "string": "text|with=separators\n", "number": 42, "double": .double(2.5), "flag": true,
                "date": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "data": .data(Data([0, 1, 2])),
                "array": .array(["a", 1]), "dictionary": .dictionary(["k": "v"]),
            ]
            for (key, value) in userValues { metadata[key] = value }
            try pipe.coordinator.setMetadata(metadata, for: pipe.store)
            let inode = try fileIdentity(pipe.url)[.systemFileNumber]
            try pipe.save()  // no object changes: the metadata alone makes it write
            #expect(try fileIdentity(pipe.url)[.systemFileNumber] != inode)
            let reopened = try PipeStore(model: Models.league, url: pipe.url)
            let read = try reopened.coordinator.metadata(for: reopened.store)
            for (key, value) in userValues { #expect(read[key] == value, "\(key)") }
            #expect(read[MetadataKey.storeType] == "PipeCSV")
            #expect(read[MetadataKey.storeUUID] == .string(pipe.store.identifier))
            let withoutAdding = try pipe.coordinator.metadataForPersistentStore(type: "PipeCSV", at: pipe.url)
            #expect(withoutAdding == read)
            let sidecar = try #require(MetadataValue.metadata(fromPropertyList: contents(of: PipeCSVStore.metadataURL(forStoreAt: pipe.url))))
            // The metadata file is an XML property list, whose dates keep whole seconds only.
            #expect(sidecar.filter { $0.key != "date" } == read.filter { $0.key != "date" })
            #expect(sidecar["date"] == .date(Date(timeIntervalSinceReferenceDate: 12)))
        }
    }

    @Test func metadataCanBeWrittenWithoutAddingTheStore() throws {
        try withTemporaryDirectory { directory in
            let (pipe, team, _) = try savedLeague(in: directory)
            let coordinator = PersistentStoreCoordinator(model: Models.league, registry: pipeRegistry)
            var metadata = try coordinator.metadataForPersistentStore(type: "PipeCSV", at: pipe.url)
            metadata["note"] = "set without adding"
            try coordinator.setMetadata(metadata, forPersistentStoreOfType: "PipeCSV", at: pipe.url)
            let reopened = try PipeStore(model: Models.league, url: pipe.url)
            #expect(try reopened.coordinator.metadata(for: reopened.store)["note"] == "set without adding")
            #expect(try reopened.nodes("Team").map(\.objectID) == [team])
            #expect(try coordinator.metadataForPersistentStore(type: "PipeCSV", at: pipe.url)["note"] == "set without adding")
            let readOnly = storeError {
                try coordinator.setMetadata(metadata, forPersistentStoreOfType: "PipeCSV", at: pipe.url, options: [StoreOptionKey.readOnly: true])
            }
            #expect(readOnly?.code == .persistentStoreOperation)
        }
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func metadataOfAnOriginalFileIsReadAndWrittenInItsMetadataFileOnly() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyLeagueManager(to: directory)
            let original = contents(of: url)
            var metadata = try PipeCSVStore.metadata(forStoreAt: url, options: [:])
            #expect(metadata[MetadataKey.storeType] == "PipeCSV")
            #expect(metadata[MetadataKey.storeUUID] == "6C1D6F1E-3A0B-4C7E-9D52-3F1A2B4C5D6E")
            metadata["note"] = "hello"
            try PipeCSVStore.setMetadata(metadata, forStoreAt: url, options: [:])
            #expect(contents(of: url) == original)
            #expect(try PipeCSVStore.metadata(forStoreAt: url, options: [:])["note"] == "hello")
            let pipe = try PipeStore(model: Models.league, url: url)
            #expect(try pipe.coordinator.metadata(for: pipe.store)["note"] == "hello")
            #expect(try pipe.nodes("Player").count == 5)
        }
    }

    @Test func theDataFileWinsWhenACrashLeftTheMetadataFileOutOfStep() throws {
        try withTemporaryDirectory { directory in
            let (pipe, _, _) = try savedLeague(in: directory)
            let metadataURL = PipeCSVStore.metadataURL(forStoreAt: pipe.url)
            func save(generation: Int64) throws -> (data: Data, metadata: Data) {
                var metadata = try pipe.coordinator.metadata(for: pipe.store)
                metadata["generation"] = .int(generation)
                try pipe.coordinator.setMetadata(metadata, for: pipe.store)
                var team = try #require(try pipe.nodes("Team").first)
                team.attributes["name"] = .string("Crew \(generation)")
                try pipe.save(updated: [team])
                return (contents(of: pipe.url), contents(of: metadataURL))
            }
            let first = try save(generation: 1)
            let second = try save(generation: 2)
            // Killed after the data file's rename, before the metadata file's: new data, old metadata file.
            try second.data.write(to: pipe.url)
            try first.metadata.write(to: metadataURL)
            var reopened = try PipeStore(model: Models.league, url: pipe.url)
            #expect(try reopened.coordinator.metadata(for: reopened.store)["generation"] == 2)
            #expect(try reopened.nodes("Team").first?.attributes["name"] == "Crew 2")
            #expect(try PipeCSVStore.metadata(forStoreAt: pipe.url, options: [:])["generation"] == 2)
            // The other way round (a metadata file ahead of its data file) reads the old state whole.
            try first.data.write(to: pipe.url)
            try second.metadata.write(to: metadataURL)
            reopened = try PipeStore(model: Models.league, url: pipe.url)
            #expect(try reopened.coordinator.metadata(for: reopened.store)["generation"] == 1)
            #expect(try reopened.nodes("Team").first?.attributes["name"] == "Crew 1")
        }
    }

    @Test func aReadOnlyStoreRefusesSavesAndIsNeverWritten() throws {
        try withTemporaryDirectory { directory in
            let (pipe, team, _) = try savedLeague(in: directory)
            let metadataURL = PipeCSVStore.metadataURL(forStoreAt: pipe.url)
            let before = try (fileIdentity(pipe.url), fileIdentity(metadataURL), contents(of: pipe.url))
            let readOnly = try PipeStore(model: Models.league, url: pipe.url, options: [StoreOptionKey.readOnly: true])
            #expect(readOnly.store.isReadOnly)
            var node = try #require(try readOnly.nodes("Team").first { $0.objectID == team })
            node.attributes["name"] = "Changed"
            let error = storeError { try readOnly.save(updated: [node]) }
            #expect(error?.code == .persistentStoreOperation)
            #expect(error?.message.contains("read-only") == true)
            var metadata = try readOnly.coordinator.metadata(for: readOnly.store)
            metadata["x"] = 1
            try readOnly.coordinator.setMetadata(metadata, for: readOnly.store)
            try readOnly.save()
            #expect(try readOnly.nodes("Team").first?.attributes["name"] == "Crew")
            #expect(try fileIdentity(pipe.url) == before.0)
            #expect(try fileIdentity(metadataURL) == before.1)
            #expect(contents(of: pipe.url) == before.2)
        }
    }

    @Test func aFailedSaveLeavesTheFileAndTheCacheAsTheyWere() throws {
        try withTemporaryDirectory { directory in
            let (pipe, team, _) = try savedLeague(in: directory)
            let before = contents(of: pipe.url)
            var node = try #require(try pipe.nodes("Team").first { $0.objectID == team })
            node.attributes["name"] = .date(Date(timeIntervalSinceReferenceDate: 1))  // not a string
            let error = storeError { try pipe.save(updated: [node]) }
            #expect(error?.code == .persistentStoreSave)
            #expect(error?.message.contains("attribute name") == true)
            #expect(contents(of: pipe.url) == before)
            #expect(try pipe.nodes("Team").first?.attributes["name"] == "Crew")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() == ["League.plist", "League.txt"])
        }
    }

    @Test func deletingAnObjectRemovesItFromItsInverseAndSurvivesReopen() throws {
        try withTemporaryDirectory { directory in
            let (pipe, team, player) = try savedLeague(in: directory)
            let node = try #require(try pipe.nodes("Player").first { $0.objectID == player })
            try pipe.save(deleted: [node])  // the team's node is not sent: the store cleans its inverse
            let reopened = try PipeStore(model: Models.league, url: pipe.url)
            #expect(try reopened.nodes("Player").isEmpty)
            #expect(try reopened.nodes("Team").first { $0.objectID == team }?.toMany["players"] == [])
        }
    }

    // MARK: Files of another type (134010, untouched)

    static let otherFiles: [(String, [UInt8])] = [
        ("SQLite", Array("SQLite format 3\u{0}".utf8) + [UInt8](repeating: 0, count: 100)),
        ("XML", Array("<?xml version=\"1.0\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n<database/>\n".utf8)),
        ("binary", [0x50, 0x53, 0x42, 0x4E, 0x01, 0x00, 0xFF, 0xFE]),
    ]

    @Test(arguments: otherFiles.map(\.0))
    func aFileOfAnotherTypeIsATypeMismatchAndIsNotModified(_ kind: String) throws {
        let bytes = try #require(Self.otherFiles.first { $0.0 == kind }?.1)
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Other.store")
            try Data(bytes).write(to: url)
            let error = storeError { _ = try PipeStore(model: Models.league, url: url) }
            #expect(error?.code == .persistentStoreTypeMismatch)
            #expect(error?.message.contains("Other.store") == true)
            let metadataError = storeError { _ = try PipeCSVStore.metadata(forStoreAt: url, options: [:]) }
            #expect(metadataError?.code == .persistentStoreTypeMismatch)
            #expect(contents(of: url) == Data(bytes))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["Other.store"])
        }
    }

    @Test func aMetadataFileOfAnotherTypeIsATypeMismatch() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.txt")
            try Data("Team|t1|name=A\n".utf8).write(to: url)
            let metadataURL = PipeCSVStore.metadataURL(forStoreAt: url)
            let plist = try MetadataValue.propertyListData([MetadataKey.storeType: "SQLite", MetadataKey.storeUUID: "X"], format: .xml)
            try plist.write(to: metadataURL)
            let error = storeError { _ = try PipeStore(model: Models.league, url: url) }
            #expect(error?.code == .persistentStoreTypeMismatch)
            #expect(error?.message.contains("\"SQLite\"") == true)
            #expect(contents(of: metadataURL) == plist)
        }
    }

    @Test func aHeaderOfAnotherTypeIsATypeMismatch() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.txt")
            let metadata = try MetadataValue.propertyListData([MetadataKey.storeType: "XML", MetadataKey.storeUUID: "X"])
            let header = PipeCSVFileLayout.headerLine(metadataPropertyList: metadata)
            var checksum = CRC32()
            checksum.update(header)
            try Data(header + PipeCSVFileLayout.trailerLine(records: 0, checksum: checksum)).write(to: url)
            let error = storeError { _ = try PipeStore(model: Models.league, url: url) }
            #expect(error?.code == .persistentStoreTypeMismatch)
            #expect(error?.message.contains("\"XML\"") == true)
        }
    }

    @Test func aMissingOrEmptyFileIsANewStore() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("New.txt")
            let pipe = try PipeStore(model: Models.league, url: missing)
            #expect(try pipe.nodes("Team").isEmpty)
            #expect(!FileManager.default.fileExists(atPath: missing.path))  // opening writes nothing
            let empty = directory.appendingPathComponent("Empty.txt")
            try Data().write(to: empty)
            let second = try PipeStore(model: Models.league, url: empty)
            #expect(try second.nodes("Player").isEmpty)
            #expect(second.store.identifier != pipe.store.identifier)
            #expect(UUID(uuidString: second.store.identifier) != nil)
        }
    }

    @Test func aDanglingReferenceStaysInMemoryButNeverReachesTheFile() throws {
        let model = try ObjectModel {
            Entity("Organization") { Relationship("leader", to: "Person") }  // no inverse
            Entity("Person") { Attribute("name", .string) }
        }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Org.txt")
            let pipe = try PipeStore(model: model, url: url)
            let ids = try pipe.newIDs("Organization") + pipe.newIDs("Person")
            try pipe.save(inserted: [
                StoreNode(objectID: ids[0], toOne: ["leader": ids[1]], version: 0),
                StoreNode(objectID: ids[1], attributes: ["name": "Ada"], version: 0),
            ])
            let person = try #require(try pipe.nodes("Person").first)
            try pipe.save(deleted: [person])
            // In memory the organization still points at the deleted person (as Core Data's does) …
            #expect(try pipe.nodes("Organization").first?.toOne["leader"] == ids[1])
            // … the file does not, so it always loads.
            #expect(text(of: url).contains("|leader=(null)"))
            let reopened = try PipeStore(model: model, url: url)
            #expect(try reopened.nodes("Organization").first?.toOne["leader"] == nil)
            #expect(try reopened.nodes("Person").isEmpty)
        }
    }
}
