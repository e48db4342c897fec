import Foundation
import StoreCore

extension ConformanceCatalogue {
    /// Copying a store to another type and migrating it: #10, #48.
    public static let migration: [ConformanceCase] = [
        ConformanceCase(
            "migratePersistentStore copies to every registered type", behaviour: 48, area: .migration,
            faultHint: "load()/loadMetadata() and save() of both types, metadata(forStoreAt:options:)"
        ) { env in
            for destinationType in env.registry.registeredStoreTypes {
                guard let destinationClass = env.registry.storeType(named: destinationType),
                    destinationClass.storeType == destinationType
                else { continue }
                do {
                    try copyCase(env, to: destinationType, capabilities: destinationClass.capabilities)
                } catch let failure as ConformanceFailure {
                    throw ConformanceFailure("\(env.storeType) → \(destinationType): \(failure.message)")
                } catch {
                    throw ConformanceFailure("\(env.storeType) → \(destinationType): unexpected error: \(error)")
                }
            }
        },
        ConformanceCase(
            "object IDs are stable across a migration to the same type", behaviour: 10, area: .objectIDs, requires: .persistent
        ) { env in
            let model = try ConformanceModels.library()
            let stack = try env.openStack(model)
            try fillLibrary(stack.context)
            try stack.context.save()
            let before = try libraryIDs(stack.context)
            guard let url = env.storeURL("copy") else { throw ConformanceFailure("a persistent store type needs a URL") }
            let moved = try stack.coordinator.migratePersistentStore(stack.store, to: url, type: env.storeType)
            try env.expectEqual(moved.identifier, stack.store.identifier, "NSStoreUUID of the copy")
            try env.expectEqual(try libraryIDs(ManagedObjectContext(coordinator: stack.coordinator)), before, "object IDs after the migration")
            try stack.coordinator.remove(moved)
            let reopened = try env.openStack(model, url: .some(url))
            try env.expectEqual(try libraryIDs(reopened.context), before, "object IDs after the migration and reopen")
            try env.expectEqual(
                reopened.coordinator.managedObjectID(forURIRepresentation: before.values.sorted { $0.absoluteString < $1.absoluteString }[0])?
                    .uriRepresentation, before.values.sorted { $0.absoluteString < $1.absoluteString }[0], "URI round trip after the migration")
            // New objects never reuse a key of a copied one.
            try insert(reopened.context, "Tag", ["key": "tag-new", "name": "new"])
            try reopened.context.save()
            let after = try libraryIDs(ManagedObjectContext(coordinator: reopened.coordinator))
            try env.expectEqual(Set(after.values).count, after.count, "distinct IDs after inserting into the copy")
        },
    ]

    /// One pair of #48: a library store of the type under test copied to `destinationType`.
    private static func copyCase(_ env: ConformanceEnvironment, to destinationType: String, capabilities: StoreCapabilities) throws {
        let model = try ConformanceModels.library()
        let sourceURL = env.storeURL("source-\(destinationType)")
        let writer = try env.openStack(model, url: .some(sourceURL))
        try fillLibrary(writer.context)
        var metadata = try writer.coordinator.metadata(for: writer.store)
        metadata["user.text"] = "shelf 7"
        metadata["user.number"] = 42
        metadata["user.date"] = .date(Date(timeIntervalSinceReferenceDate: 700_000_000))
        metadata["user.list"] = .array(["a", 1])
        metadata["user.dictionary"] = .dictionary(["k": "v", "n": .double(2.5)])
        try writer.coordinator.setMetadata(metadata, for: writer.store)
        try writer.context.save()
        let expected = try librarySnapshot(writer.context)

        // A persistent source is read back by a fresh coordinator, so the bytes compared later
        // are those of a settled file.
        let stack: ConformanceStack
        if let sourceURL, env.capabilities.contains(.persistent) {
            try writer.coordinator.remove(writer.store)
            stack = try env.openStack(model, url: .some(sourceURL))
        } else {
            stack = writer
        }
        let sourceMetadata = try stack.coordinator.metadata(for: stack.store)
        let sourceBytes = try sourceURL.map { try env.storeContents(at: $0) }
        let sourceIDs = try libraryIDs(stack.context)

        let destinationURL: URL? =
            capabilities.contains(.noURL) && !capabilities.contains(.persistent)
            ? nil : env.directory.appendingPathComponent("copy-of-\(env.storeType).\(destinationType.lowercased())")
        var reports: [MigrationProgress] = []
        let progress = Locked<[MigrationProgress]>([])
        let copy = try stack.coordinator.migratePersistentStore(
            stack.store, to: destinationURL, type: destinationType, progress: { value in progress.withLock { $0.append(value) } })
        reports = progress.withLock { $0 }
        try env.expectEqual(copy.type, destinationType, "type of the new store")
        try env.expectEqual(stack.coordinator.persistentStores.map(\.identifier), [copy.identifier], "stores of the coordinator after the copy")
        try env.expectEqual(reports.last, MigrationProgress(done: expected.count, total: expected.count), "last progress report")

        let fresh = ManagedObjectContext(coordinator: stack.coordinator)
        try env.expectEqual(try librarySnapshot(fresh), expected, "objects and relationships in the copy (same coordinator)")
        let persistentCopy = destinationURL != nil && capabilities.contains(.persistent)
        if env.storeType == destinationType && persistentCopy {
            try env.expectEqual(try libraryIDs(fresh), sourceIDs, "object IDs of a copy of the same type")
        }
        let copiedMetadata = try stack.coordinator.metadata(for: copy)
        try env.expectEqual(copiedMetadata[MetadataKey.storeType], .string(destinationType), "NSStoreType of the copy")
        try env.expectEqual(copiedMetadata[MetadataKey.storeUUID], .string(copy.identifier), "NSStoreUUID of the copy is its identifier")
        if persistentCopy {
            try env.expectEqual(copy.identifier, sourceMetadata[MetadataKey.storeUUID]?.stringValue, "NSStoreUUID kept by a persistent copy")
        }
        for (key, value) in sourceMetadata
        where key != MetadataKey.storeType && key != MetadataKey.formatVersion && key != MetadataKey.storeUUID {
            try env.expectEqual(copiedMetadata[key], value, "metadata key \(key) of the copy")
        }
        // The context keeps working on the copy.
        try insert(fresh, "Tag", ["key": "tag-after", "name": "after"])
        try fresh.save()
        try env.expectEqual(try fresh.count(for: FetchRequest(entityName: "Tag")), 4, "tags after a save into the copy")

        if let sourceURL, let sourceBytes {
            try stack.coordinator.remove(copy)
            try env.expectStoreUnchanged(at: sourceURL, sourceBytes, "the source after the copy")
            if let destinationURL, capabilities.contains(.persistent) {
                let coordinator = PersistentStoreCoordinator(model: model, registry: env.registry)
                try coordinator.addPersistentStore(type: destinationType, at: destinationURL)
                var reread = try librarySnapshot(ManagedObjectContext(coordinator: coordinator))
                reread["Tag tag-after"] = nil
                try env.expectEqual(reread, expected, "objects and relationships in the copy after reopen")
            }
        }
    }

    /// Two authors, four books (one an e-book, a sub-entity), three tags; an ordered to-many, a
    /// to-one, a many-to-many; values of most attribute types.
    static func fillLibrary(_ context: ManagedObjectContext) throws {
        let ada = try insert(
            context, "Author",
            [
                "key": "author-ada", "name": "Ada", "born": .date(Date(timeIntervalSince1970: -4_000_000_000)),
                "score": 9.75, "portrait": .data(Data([0, 1, 2, 255])),
                "uuid": .uuid(UUID(uuidString: "6E2B8C44-2F0A-4E5C-9A51-3D1E0B7C9F10") ?? UUID()), "active": true,
            ])
        let alan = try insert(context, "Author", ["key": "author-alan", "name": "Alan", "score": -0.5, "active": false])
        var books: [ManagedObject] = []
        for (index, title) in ["Notes", "Engines", "Numbers"].enumerated() {
            books.append(try insert(context, "Book", ["key": .string("book-\(index)"), "title": .string(title), "pages": .int(Int64(100 * (index + 1)))]))
        }
        books.append(try insert(context, "EBook", ["key": "ebook-0", "title": "Machines", "pages": 42, "format": "epub"]))
        // Ordered, and not in insertion order.
        try ada.setObjects([books[2], books[0], books[3]], forKey: "books")
        try alan.setObjects([books[1]], forKey: "books")
        let tags = try ["math", "history", "unused"].map { try insert(context, "Tag", ["key": .string("tag-\($0)"), "name": .string($0)]) }
        try books[0].setObjects([tags[0], tags[1]], forKey: "tags")
        try books[3].setObjects([tags[0]], forKey: "tags")
    }

    /// Every library object as text: entity and key → attributes and relationships (by key;
    /// ordered to-manys in order, others sorted).
    static func librarySnapshot(_ context: ManagedObjectContext) throws -> [String: String] {
        var result: [String: String] = [:]
        let model = context.coordinator.model
        for entity in ["Author", "Book", "EBook", "Tag"] {
            var request = FetchRequest(entityName: entity)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                let key = object.value(forKey: "key", as: String.self) ?? "?"
                var parts: [String] = []
                for attribute in model.attributes(of: entity).sorted(by: { $0.name < $1.name }) {
                    parts.append("\(attribute.name)=\(object.value(forKey: attribute.name))")
                }
                for relationship in model.relationships(of: entity).sorted(by: { $0.name < $1.name }) {
                    if relationship.isToMany {
                        var keys = object.objects(forKey: relationship.name).map { $0.value(forKey: "key", as: String.self) ?? "?" }
                        if !relationship.isOrdered { keys.sort() }
                        parts.append("\(relationship.name)=[\(keys.joined(separator: ","))]")
                    } else {
                        parts.append("\(relationship.name)=\(object.object(forKey: relationship.name)?.value(forKey: "key", as: String.self) ?? "nil")")
                    }
                }
                result["\(entity) \(key)"] = parts.joined(separator: "; ")
            }
        }
        return result
    }

    /// Every library object's URI by entity and key.
    static func libraryIDs(_ context: ManagedObjectContext) throws -> [String: URL] {
        var result: [String: URL] = [:]
        for entity in ["Author", "Book", "EBook", "Tag"] {
            var request = FetchRequest(entityName: entity)
            request.includesSubentities = false
            for object in try context.fetch(request) {
                result["\(entity) \(object.value(forKey: "key", as: String.self) ?? "?")"] = object.objectID.uriRepresentation
            }
        }
        return result
    }
}

extension ConformanceModels {
    /// Authors, books (and e-books, a sub-entity) and tags: the model of the migration cases.
    public static func library() throws -> ObjectModel {
        try ObjectModel {
            Entity("Author") {
                Attribute("key", .string)
                Attribute("name", .string)
                Attribute("born", .date)
                Attribute("score", .double)
                Attribute("portrait", .binaryData)
                Attribute("uuid", .uuid)
                Attribute("active", .boolean)
                Relationship("books", to: "Book", inverse: "author", toMany: true, ordered: true)
            }
            Entity("Book") {
                Attribute("key", .string)
                Attribute("title", .string)
                Attribute("pages", .integer32)
                Relationship("author", to: "Author", inverse: "books")
                Relationship("tags", to: "Tag", inverse: "books", toMany: true)
            }
            Entity("EBook", parent: "Book") {
                Attribute("format", .string)
            }
            Entity("Tag") {
                Attribute("key", .string)
                Attribute("name", .string)
                Relationship("books", to: "Book", inverse: "tags", toMany: true)
            }
        }
    }
}
