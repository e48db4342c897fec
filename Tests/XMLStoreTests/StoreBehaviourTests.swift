import Foundation
import StoreCore
import StoreTestSupport
import Testing
import XMLStore

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
func savedLeague(in directory: URL, name: String = "League.xml") throws -> (XMLStack, team: ObjectID, player: ObjectID) {
    let url = directory.appendingPathComponent(name)
    let stack = try XMLStack(model: Models.league, url: url)
    let ids = try stack.newIDs("Team") + stack.newIDs("Player")
    try stack.save(inserted: [
        StoreNode(objectID: ids[0], attributes: ["name": "Crew"], toMany: ["players": [ids[1]]], version: 0),
        StoreNode(objectID: ids[1], attributes: ["firstName": "Jordan"], toOne: ["team": ids[0]], version: 0),
    ])
    return (stack, ids[0], ids[1])
}

@Suite("XML store behaviour")
struct StoreBehaviourTests {
    @Test func aSaveWithNoChangesWritesNothing() throws {
        try withTemporaryDirectory { directory in
            let (stack, _, _) = try savedLeague(in: directory)
            let before = try fileIdentity(stack.url)
            #expect(try stack.save().isEmpty)
            let reopened = try XMLStack(model: Models.league, url: stack.url)
            try reopened.save()
            #expect(try fileIdentity(stack.url) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["League.xml"])
        }
    }

    @Test func referenceObjectsAreObjectNumbersThatAreNeverReused() throws {
        try withTemporaryDirectory { directory in
            let (stack, team, player) = try savedLeague(in: directory)
            #expect(team.referenceObject == .int(1))
            #expect(player.referenceObject == .int(2))
            let extra = try stack.newIDs("Team", count: 2)
            #expect(extra.map(\.referenceObject) == [.int(3), .int(4)])
            try stack.save(inserted: extra.map { StoreNode(objectID: $0, version: 0) })
            try stack.save(deleted: try stack.nodes("Team").filter { $0.objectID == extra[1] })
            #expect(text(of: stack.url).contains("<nextObjectID>5</nextObjectID>"))
            let reopened = try XMLStack(model: Models.league, url: stack.url)
            #expect(try reopened.newIDs("Player").map(\.referenceObject) == [.int(5)])
            #expect(try reopened.nodes("Team").map(\.objectID).sorted { $0.description < $1.description } == [team, extra[0]].sorted { $0.description < $1.description })
            #expect(reopened.coordinator.managedObjectID(forURIRepresentation: team.uriRepresentation) == team)
            #expect(team.uriRepresentation.absoluteString.hasSuffix("/Team/p1"))
        }
    }

    @Test func metadataSetOnTheStoreIsWrittenAtTheNextSaveAndSurvivesReopen() throws {
        try withTemporaryDirectory { directory in
            let (stack, _, _) = try savedLeague(in: directory)
            var metadata = try stack.coordinator.metadata(for: stack.store)
            let userValues: [String: MetadataValue] = [
                "string": "text <with> & \"markup\"\r\n", "number": 42, "negative": .int(Int64.min), "double": .double(2.5),
                "infinity": .double(-.infinity), "flag": true, "off": false,
                "date": .date(Date(timeIntervalSinceReferenceDate: 12.5)), "whole date": .date(Date(timeIntervalSinceReferenceDate: -86_400)),
                "data": .data(Data([0, 1, 2])), "empty data": .data(Data()), "array": .array(["a", 1, .array([])]),
                "dictionary": .dictionary(["k": "v", "nested": .dictionary([:])]), "control\u{1}key": "nul\u{0}value", "": "",
            ]
            for (key, value) in userValues { metadata[key] = value }
            try stack.coordinator.setMetadata(metadata, for: stack.store)
            let inode = try fileIdentity(stack.url)[.systemFileNumber]
            try stack.save()  // no object changes: the metadata alone makes it write
            #expect(try fileIdentity(stack.url)[.systemFileNumber] != inode)
            let reopened = try XMLStack(model: Models.league, url: stack.url)
            let read = try reopened.coordinator.metadata(for: reopened.store)
            for (key, value) in userValues { #expect(read[key] == value, "\(key)") }
            #expect(read[MetadataKey.storeType] == "XML")
            #expect(read[MetadataKey.storeUUID] == .string(stack.store.identifier))
            let withoutAdding = try stack.coordinator.metadataForPersistentStore(type: "XML", at: stack.url)
            #expect(withoutAdding == read)
            let text = text(of: stack.url)
            #expect(text.contains("<key>whole date</key>\n                    <date>2000-12-31T00:00:00Z</date>"))
            #expect(text.contains("<key>date</key>\n                    <date>2001-01-01T00:00:12.5Z</date>"))
            #expect(text.contains("<key>flag</key>\n                    <true/>"))
            #expect(text.contains("<key>infinity</key>\n                    <real>-infinity</real>"))
        }
    }

    @Test func metadataCanBeReadAndWrittenWithoutAddingTheStore() throws {
        try withTemporaryDirectory { directory in
            let (stack, team, player) = try savedLeague(in: directory)
            let before = text(of: stack.url)
            let coordinator = PersistentStoreCoordinator(model: Models.league, registry: xmlRegistry)
            var metadata = try coordinator.metadataForPersistentStore(type: "XML", at: stack.url)
            #expect(metadata[MetadataKey.storeUUID] == .string(stack.store.identifier))
            metadata["note"] = "set without adding"
            try coordinator.setMetadata(metadata, forPersistentStoreOfType: "XML", at: stack.url)
            #expect(try coordinator.metadataForPersistentStore(type: "XML", at: stack.url)["note"] == "set without adding")
            // The objects are copied unchanged, byte for byte.
            let after = text(of: stack.url)
            let objects = { (text: String) in text[(text.range(of: "</databaseInfo>")?.upperBound ?? text.startIndex)...] }
            #expect(objects(after) == objects(before))
            let reopened = try XMLStack(model: Models.league, url: stack.url)
            #expect(try reopened.coordinator.metadata(for: reopened.store)["note"] == "set without adding")
            #expect(reopened.store.identifier == stack.store.identifier)
            #expect(try reopened.nodes("Team").map(\.objectID) == [team])
            #expect(try reopened.nodes("Player").first?.toOne["team"] == team)
            #expect(try reopened.nodes("Team").first?.toMany["players"] == [player])
            #expect(try reopened.newIDs("Team").first?.referenceObject == .int(3))
            let readOnly = storeError {
                try coordinator.setMetadata(metadata, forPersistentStoreOfType: "XML", at: stack.url, options: [StoreOptionKey.readOnly: true])
            }
            #expect(readOnly?.code == .persistentStoreOperation)
        }
    }

    @Test(.enabled(if: Fixtures.available, "fixtures not found"))
    func metadataOfACoreDataFileCanBeWrittenWithoutAddingIt() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyVehicles(to: directory)
            var metadata = try XMLStore.metadata(forStoreAt: url, options: [:])
            metadata["note"] = "hello"
            try XMLStore.setMetadata(metadata, forStoreAt: url, options: [:])
            let original = text(of: Fixtures.vehicles)
            let rewritten = text(of: url)
            let objects = { (text: String) in text[(text.range(of: "</databaseInfo>")?.upperBound ?? text.startIndex)...] }
            #expect(objects(rewritten) == objects(original))
            #expect(rewritten.contains("<nextObjectID>104</nextObjectID>"))
            let stack = try XMLStack(model: Models.vehicles, url: url)
            #expect(try stack.coordinator.metadata(for: stack.store)["note"] == "hello")
            #expect(try stack.nodes("VehiclePicture").count == 2)
            #expect(stack.store.identifier == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
        }
    }

    @Test func aReadOnlyStoreRefusesSavesAndIsNeverWritten() throws {
        try withTemporaryDirectory { directory in
            let (stack, team, _) = try savedLeague(in: directory)
            let before = try fileIdentity(stack.url)
            let bytes = contents(of: stack.url)
            let readOnly = try XMLStack(model: Models.league, url: stack.url, options: [StoreOptionKey.readOnly: true])
            #expect(try readOnly.nodes("Team").map(\.objectID) == [team])
            let node = try #require(try readOnly.nodes("Team").first)
            var renamed = node
            renamed.attributes["name"] = "Fire"
            let error = storeError { try readOnly.save(updated: [renamed]) }
            #expect(error?.code == .persistentStoreOperation)
            #expect(error?.message.contains("read-only") == true)
            var metadata = try readOnly.coordinator.metadata(for: readOnly.store)
            metadata["note"] = "never written"
            try readOnly.coordinator.setMetadata(metadata, for: readOnly.store)
            try readOnly.save()
            #expect(try fileIdentity(stack.url) == before)
            #expect(contents(of: stack.url) == bytes)
        }
    }

    @Test func aReferenceLeftDanglingByNoActionIsKeptInTheCacheButNeverWritten() throws {
        let model = Models.build {
            Entity("Owner") {
                Attribute("name", .string)
                Relationship("pets", to: "Pet", inverse: "owner", toMany: true, deleteRule: .noAction)
            }
            Entity("Pet") {
                Attribute("name", .string)
                Relationship("owner", to: "Owner", inverse: "pets")
            }
        }
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Pets.xml")
            let stack = try XMLStack(model: model, url: url)
            let owner = try stack.newIDs("Owner")[0]
            let pets = try stack.newIDs("Pet", count: 2)
            try stack.save(inserted: [
                StoreNode(objectID: owner, attributes: ["name": "o"], toMany: ["pets": pets], version: 0),
                StoreNode(objectID: pets[0], attributes: ["name": "a"], toOne: ["owner": owner], version: 0),
                StoreNode(objectID: pets[1], attributes: ["name": "b"], toOne: ["owner": owner], version: 0),
            ])
            try stack.save(deleted: try stack.nodes("Owner"))
            #expect(try stack.nodes("Pet").allSatisfy { $0.toOne["owner"] == owner })
            #expect(!text(of: url).contains("idrefs"))
            let reopened = try XMLStack(model: model, url: url)
            #expect(try reopened.nodes("Pet").map(\.toOne) == [[:], [:]])
        }
    }

    @Test func aMissingOrEmptyFileIsANewStore() throws {
        try withTemporaryDirectory { directory in
            let missing = directory.appendingPathComponent("Missing.xml")
            let stack = try XMLStack(model: Models.league, url: missing)
            #expect(try stack.nodes("Team").isEmpty)
            #expect(!FileManager.default.fileExists(atPath: missing.path))
            let empty = directory.appendingPathComponent("Empty.xml")
            try Data().write(to: empty)
            let emptyStack = try XMLStack(model: Models.league, url: empty)
            #expect(try emptyStack.nodes("Team").isEmpty)
            let error = storeError { _ = try XMLStore.metadata(forStoreAt: empty, options: [:]) }
            #expect(error?.code == .persistentStoreOperation)
            try emptyStack.save(inserted: [StoreNode(objectID: try emptyStack.newIDs("Team")[0], version: 0)])
            #expect(try XMLStack(model: Models.league, url: empty).nodes("Team").count == 1)
            #expect(text(of: empty).contains("<object type=\"TEAM\" id=\"z1\">\n        <relationship name=\"players\" type=\"0/0\" destination=\"PLAYER\"></relationship>\n    </object>"))
        }
    }

    @Test func aDatabaseWithoutObjectsOrHeaderLoads() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("Bare.xml")
            try write("<?xml version=\"1.0\"?>\n<database/>\n", to: url)
            let stack = try XMLStack(model: Models.league, url: url)
            #expect(try stack.nodes("Team").isEmpty)
            #expect(!stack.store.identifier.isEmpty)
            let metadata = try XMLStore.metadata(forStoreAt: url, options: [:])
            #expect(metadata[MetadataKey.storeType] == "XML")
        }
    }
}
