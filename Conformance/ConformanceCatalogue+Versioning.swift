import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Version hashes in metadata and the check when a store is added: #7, #53.
    public static let versioning: [ConformanceCase] = [
        ConformanceCase("metadata has one version hash per entity", behaviour: 7, area: .metadata, runsAfterReopen: true) { env in
            let model = try ConformanceModels.league()
            let stack = try env.openStack(model)
            try stack.context.insert(entityName: "Team")
            try stack.context.save()
            let loaded = try env.reload(stack)
            let metadata = try loaded.coordinator.metadata(for: loaded.store)
            let hashes = try env.requireVersionHashes(metadata)
            try env.expectEqual(hashes.keys.sorted(), model.entityNames.sorted(), "entities with a version hash")
            for (entity, hash) in hashes {
                try env.expectEqual(hash, model.versionHash(ofEntity: entity), "version hash of \(entity)")
                try env.expectEqual(hash.count, 32, "bytes in the version hash of \(entity)")
            }
            try env.expectEqual(
                metadata[MetadataKey.versionHashesVersion], .int(ObjectModel.versionHashesVersion),
                "NSStoreModelVersionHashesVersion")
            try env.expect(
                model.isConfiguration(nil, compatibleWithStoreMetadata: metadata), "the model is compatible with its own store")
            // The same model built again gives the same bytes.
            try env.expectEqual(try ConformanceModels.league().entityVersionHashesByName, hashes, "hashes of a rebuilt model")
        },
        ConformanceCase("store of another model fails with 134100", behaviour: 53, area: .migration, requires: .persistent) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.league(), url: url)
            let team = try stack.context.insert(entityName: "Team")
            try team.setValue("Crew", forKey: "name")
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let before = try env.storeContents(at: url)

            let changed = try ConformanceModels.league { player in player.attributes.append(Attribute("nickname", .string)) }
            let error = try env.expectError(.persistentStoreIncompatibleVersionHash, "adding the store with a changed model") {
                _ = try env.openStack(changed, url: url)
            }
            try env.expect(
                error.message.hasPrefix(
                    "The model used to open the store is incompatible with the one used to create the store"),
                "134100 message: \(error.message)")
            try env.expect(error.message.contains("Player"), "the message names the entity that differs: \(error.message)")
            try env.expect(!error.message.contains("Team ("), "the message names only entities that differ: \(error.message)")
            try env.expectStoreUnchanged(at: url, before, "after the refused add (addPersistentStore, the version check)")

            let reopened = try env.openStack(try ConformanceModels.league(), url: url)
            try env.expectEqual(try reopened.count("Team"), 1, "teams when reopened with the original model")
        },
        ConformanceCase(
            "a store of version B opened with version A without migration options gives 134100 naming the file", behaviour: 53,
            area: .migration, requires: .persistent,
            faultHint: "metadata(forStoreAt:options:) (the version hashes are checked from it before load()/loadMetadata() parses objects)"
        ) { env in
            // Version B has what version A lacks, with values: an attribute and an entity, so a
            // store type that parsed the objects before checking the hashes would fail on them.
            let url = try requireURL(env)
            let versionB = try ConformanceModels.leagueVersionB()
            let stack = try env.openStack(versionB, url: url)
            let player = try stack.context.insert(entityName: "Player")
            try player.setValue("Ada", forKey: "firstName")
            try player.setValue("Ace", forKey: "nickname")
            try stack.context.insert(entityName: "Coach").setValue("Grace", forKey: "name")
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let before = try env.storeContents(at: url)

            let error = try env.expectError(.persistentStoreIncompatibleVersionHash, "adding a version B store with version A") {
                _ = try env.openStack(try ConformanceModels.league(), url: url)
            }
            try env.expect(
                error.message.hasPrefix("The model used to open the store is incompatible with the one used to create the store"),
                "134100 message: \(error.message)")
            try env.expect(error.message.contains("Player") && error.message.contains("Coach"), "the message names Player and Coach: \(error.message)")
            if url.isFileURL {
                try env.expect(error.message.contains(url.path), "the message names the store file: \(error.message)")
            }
            try env.expect(error.fileURL != nil, "the error carries the store's URL")
            try env.expect(
                error.message.contains("automatic migration was not requested"), "the message says migration was not requested: \(error.message)")
            try env.expectStoreUnchanged(at: url, before, "after the refused add")

            let reopened = try env.openStack(versionB, url: url)
            try env.expectEqual(try reopened.count("Coach"), 1, "coaches when reopened with version B")
        },
    ]
}

extension ConformanceEnvironment {
    /// `NSStoreModelVersionHashes` as entity → data, or a failure naming what is there instead.
    fileprivate func requireVersionHashes(_ metadata: StoreMetadata) throws -> [String: Data] {
        guard let dictionary = metadata[MetadataKey.versionHashes]?.dictionaryValue else {
            throw ConformanceFailure("NSStoreModelVersionHashes is missing or not a dictionary: \(String(describing: metadata[MetadataKey.versionHashes]))")
        }
        var hashes: [String: Data] = [:]
        for (entity, value) in dictionary {
            guard let data = value.dataValue else { throw ConformanceFailure("the version hash of \(entity) is not data: \(value)") }
            hashes[entity] = data
        }
        return hashes
    }
}

extension ConformanceModels {
    /// League with what ``league()`` lacks: Player's `nickname` and a Coach entity (a later
    /// model version for the versioning cases).
    static func leagueVersionB() throws -> ObjectModel {
        let coach = try ObjectModel { Entity("Coach") { Attribute("name", .string) } }.entities
        let entities = try league(changingPlayer: { $0.attributes.append(Attribute("nickname", .string)) }).entities
        return try ObjectModel(entities: entities + coach)
    }

    /// League with an edit to Player (a changed model for the versioning cases).
    static func league(changingPlayer edit: (inout EntityDescription) -> Void) throws -> ObjectModel {
        var entities = try league().entities
        for index in entities.indices where entities[index].name == "Player" { edit(&entities[index]) }
        return try ObjectModel(entities: entities)
    }
}
