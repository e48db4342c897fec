import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Lifecycle, registry, metadata and object IDs: #1, #3, #5, #8, #9.
    public static let lifecycle: [ConformanceCase] = [
        ConformanceCase("add store by type name", behaviour: 1, area: .lifecycle) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            try env.expectEqual(stack.store.type, env.storeType, "handle type")
            let metadata = try stack.coordinator.metadata(for: stack.store)
            try env.expectEqual(metadata[MetadataKey.storeType]?.stringValue, env.storeType, "NSStoreType")
            try env.expectEqual(metadata[MetadataKey.storeUUID]?.stringValue, stack.store.identifier, "NSStoreUUID vs identifier")
            let error = try env.expectError(.persistentStoreInvalidType, "adding an unregistered type") {
                try stack.coordinator.addPersistentStore(type: "NoSuchType-\(UUID().uuidString)")
            }
            try env.expect(error.message.contains(env.storeType), "134000 message lists the registered types: \(error.message)")
        },
        ConformanceCase("store created at a missing URL", behaviour: 3, area: .lifecycle, requires: .persistent, filesOnly: true) { env in
            let url = try requireURL(env)
            try env.expect(!FileManager.default.fileExists(atPath: url.path), "precondition: no file")
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            let team = try stack.context.insert(entityName: "Team")
            try team.setValue("Crew", forKey: "name")
            try stack.context.save()
            try env.expect(FileManager.default.fileExists(atPath: url.path), "the store file exists after add and save")
        },
        ConformanceCase("zero-length file is a new store", behaviour: 3, area: .lifecycle, requires: .persistent, filesOnly: true) { env in
            let url = try requireURL(env)
            try env.expect(FileManager.default.createFile(atPath: url.path, contents: Data()), "precondition: empty file created")
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            try env.expectEqual(try stack.count("Team"), 0, "teams in a new store")
            try stack.context.insert(entityName: "Team")
            try stack.context.save()
            let reopened = try env.reopen(stack)
            try env.expectEqual(try reopened.count("Team"), 1, "teams after save and reopen")
        },
        ConformanceCase("remove detaches and keeps the file", behaviour: 3, area: .lifecycle, requires: .persistent, filesOnly: true) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            try stack.context.insert(entityName: "Team")
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            try env.expect(stack.coordinator.persistentStores.isEmpty, "the coordinator has no store after remove")
            try env.expect(FileManager.default.fileExists(atPath: url.path), "the file is still there after remove")
            try env.expectError(.persistentStoreOperation, "removing it twice") { try stack.coordinator.remove(stack.store) }
        },
        ConformanceCase("same URL twice fails", behaviour: 3, area: .lifecycle) { env in
            let url = env.storeURL() ?? env.directory.appendingPathComponent("shared-url")
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            try env.expectError(.persistentStoreOperation, "adding a second store at \(url.lastPathComponent)") {
                try stack.coordinator.addPersistentStore(type: env.storeType, at: url)
            }
            try env.expectEqual(stack.coordinator.persistentStores.count, 1, "stores after the refused add")
        },
        ConformanceCase("metadata has type and UUID", behaviour: 5, area: .metadata, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            try stack.context.insert(entityName: "Team")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let metadata = try loaded.coordinator.metadata(for: loaded.store)
            try env.expectEqual(metadata[MetadataKey.storeType]?.stringValue, env.storeType, "NSStoreType")
            try env.expectEqual(metadata[MetadataKey.storeUUID]?.stringValue, loaded.store.identifier, "identifier == NSStoreUUID")
            try env.expectEqual(loaded.store.identifier, stack.store.identifier, "identifier after \(env.variant)")
        },
        ConformanceCase("user metadata survives save and reopen", behaviour: 6, area: .metadata, requires: .persistent) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            var metadata = try stack.coordinator.metadata(for: stack.store)
            let date = Date(timeIntervalSinceReferenceDate: 123_456.5)
            let user: StoreMetadata = [
                "user.string": "text", "user.number": .int(42), "user.double": .double(2.5), "user.date": .date(date),
                "user.data": .data(Data([0, 1, 255])), "user.array": .array(["a", .int(1)]),
                "user.dictionary": .dictionary(["k": .bool(true)]),
            ]
            metadata.merge(user) { _, new in new }
            try stack.coordinator.setMetadata(metadata, for: stack.store)
            try stack.context.save()
            let url = try requireURL(env)
            try stack.coordinator.remove(stack.store)
            let unadded = try PersistentStoreCoordinator(model: stack.coordinator.model, registry: env.registry)
                .metadataForPersistentStore(type: env.storeType, at: url)
            for (key, value) in user {
                try env.expectEqual(unadded[key], value, "\(key) read without adding the store")
            }
            try env.expectEqual(unadded[MetadataKey.storeUUID]?.stringValue, stack.store.identifier, "NSStoreUUID read without adding the store")
            let reopened = try env.openStack(stack.coordinator.model, url: .some(url))
            let read = try reopened.coordinator.metadata(for: reopened.store)
            for (key, value) in user {
                try env.expectEqual(read[key], value, "\(key) after reopen")
            }
        },
        ConformanceCase("temporary then permanent IDs", behaviour: 8, area: .objectIDs) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let objects = try (0..<5).map { _ in try stack.context.insert(entityName: "Player") }
            try env.expect(objects.allSatisfy(\.objectID.isTemporaryID), "IDs are temporary before save")
            let team = try stack.context.insert(entityName: "Team")
            try stack.context.obtainPermanentIDs(for: objects)
            try env.expect(objects.allSatisfy { !$0.objectID.isTemporaryID }, "IDs are permanent after obtainPermanentIDs")
            try env.expect(team.objectID.isTemporaryID, "objects not passed keep temporary IDs")
            let ids = objects.map(\.objectID)
            try env.expectEqual(Set(ids).count, ids.count, "permanent IDs are distinct")
            for (object, id) in zip(objects, ids) {
                try env.expect(stack.context.registeredObject(for: id) === object, "registered under its new ID, in order")
            }
            try stack.context.save()
            try env.expect(!team.objectID.isTemporaryID, "IDs are permanent after save")
            try env.expectEqual(objects.map(\.objectID), ids, "obtained IDs survive the save")
        },
        ConformanceCase("URI round trip", behaviour: 9, area: .objectIDs, runsAfterReopen: true) { env in
            let stack = try env.openStack(try ConformanceModels.league())
            let team = try stack.context.insert(entityName: "Team")
            let temporaryURI = team.objectID.uriRepresentation
            try env.expectEqual(stack.coordinator.managedObjectID(forURIRepresentation: temporaryURI), team.objectID, "temporary URI")
            try stack.context.save()
            let id = team.objectID
            let loaded = try env.reload(stack)
            try env.expectEqual(loaded.coordinator.managedObjectID(forURIRepresentation: id.uriRepresentation), id, "permanent URI after \(env.variant)")
            let object = try loaded.context.existingObject(with: id)
            try env.expectEqual(object.entity.name, "Team", "object of the URI")
            let otherStore = try require(URL(string: id.uriRepresentation.absoluteString.replacingOccurrences(of: id.storeIdentifier ?? "", with: UUID().uuidString)), "URI for another store")
            try env.expect(loaded.coordinator.managedObjectID(forURIRepresentation: otherStore) == nil, "a URI naming another store gives nil")
            let otherEntity = try require(URL(string: id.uriRepresentation.absoluteString.replacingOccurrences(of: "/Team/", with: "/NoSuchEntity/")), "URI for another entity")
            try env.expect(loaded.coordinator.managedObjectID(forURIRepresentation: otherEntity) == nil, "a URI naming an unknown entity gives nil")
        },
    ]

    static func requireURL(_ env: ConformanceEnvironment, _ name: String = "store") throws -> URL {
        try require(env.storeURL(name), "a store URL for \(env.storeType)")
    }

    static func require<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw ConformanceFailure("missing \(what)") }
        return value
    }
}
