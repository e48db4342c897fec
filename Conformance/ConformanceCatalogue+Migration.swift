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
                // A store on a server needs a place the run can use: only the type under test's
                // own (the run's store URLs) is known here.
                if destinationClass is any ServerStore.Type, destinationType != env.storeType { continue }
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
        ConformanceCase(
            "lightweight migration keeps every object", behaviour: 54, area: .migration, requires: .persistent
        ) { env in
            let url = try requireURL(env)
            let stack = try env.openStack(try ConformanceModels.library(), url: .some(url))
            try fillLibrary(stack.context)
            try stack.context.save()
            let before = try libraryIDs(stack.context)
            try stack.coordinator.remove(stack.store)

            let v2 = try ConformanceModels.libraryVersion2()
            let coordinator = PersistentStoreCoordinator(model: v2, versions: [try ConformanceModels.library()], registry: env.registry)
            let store = try coordinator.addPersistentStore(type: env.storeType, at: url, options: automaticMigration)
            try env.expect(v2.isConfiguration(nil, compatibleWithStoreMetadata: try coordinator.metadata(for: store)), "metadata of the migrated store fits the new model")
            try expectVersion2(env, ManagedObjectContext(coordinator: coordinator), ids: before)
            try coordinator.remove(store)
            // Reopened without migration options: the file itself was migrated.
            let reopened = try env.openStack(v2, url: .some(url))
            try expectVersion2(env, reopened.context, ids: before)
        },
        ConformanceCase(
            "automatic migration starts only from a supplied model version: a newer or foreign store gives 134130 and is unchanged",
            behaviour: 54, area: .migration, requires: .persistent
        ) { env in
            let url = try requireURL(env)
            let v1 = try ConformanceModels.library()
            let v2 = try ConformanceModels.libraryVersion2()
            // The newer release writes the store: objects with what v1 lacks.
            let newer = try env.openStack(v2, url: .some(url), versions: [v1])
            try insert(newer.context, "Author", ["key": "author-ada", "name": "Ada", "nickname": "Countess"])
            try insert(newer.context, "Shelf", ["name": "top"])
            try newer.context.save()
            try newer.coordinator.remove(newer.store)
            let original = try env.storeContents(at: url)

            // The older release, which knows only v1, with automatic migration on: refused.
            let downgrade = try env.expectError(.migrationMissingSourceModel, "adding a v2 store with v1 and automatic migration") {
                _ = try env.openStack(v1, url: .some(url), options: automaticMigration)
            }
            try env.expect(downgrade.message.hasPrefix("Can't find model for source store"), "134130 message: \(downgrade.message)")
            if url.isFileURL {
                try env.expect(downgrade.message.contains(url.path), "the 134130 message names the store file: \(downgrade.message)")
            }
            let shelfHash = try require(v2.versionHash(ofEntity: "Shelf"), "Shelf's version hash").base64EncodedString()
            try env.expect(downgrade.message.contains("Shelf \(shelfHash)"), "the 134130 message lists the store's version hashes: \(downgrade.message)")
            try env.expectStoreUnchanged(at: url, original, "after the refused downgrade")

            // Another program's store (a model sharing no version with the library's).
            let foreign = try env.expectError(.migrationMissingSourceModel, "adding an org-chart store with the library model") {
                _ = try env.openStack(try ConformanceModels.orgChart(), url: .some(url), options: automaticMigration, versions: [v1])
            }
            try env.expect(foreign.message.contains("none of the 1 supplied versions matches"), "the 134130 message: \(foreign.message)")
            try env.expectStoreUnchanged(at: url, original, "after the refused foreign model")

            // The newer release still opens its store with every object.
            let reopened = try env.openStack(v2, url: .some(url))
            try env.expectEqual(try reopened.count("Shelf"), 1, "shelves read by the newer release")
            try env.expectEqual(try reopened.fetch("Author").first?.value(forKey: "nickname"), .string("Countess"), "a newer attribute kept")
            try reopened.coordinator.remove(reopened.store)

            // A tool's explicit opt-in migrates from the model the store keeps.
            let older = try requireURL(env, "older")
            let writer = try env.openStack(v1, url: .some(older))
            try fillLibrary(writer.context)
            try writer.context.save()
            try writer.coordinator.remove(writer.store)
            var optIn = automaticMigration
            optIn[StoreOptionKey.migrateFromStoredModel] = true
            let migrated = try env.openStack(v2, url: .some(older), options: optIn)
            try env.expectEqual(try migrated.count("Label"), 3, "labels after a migration from the stored model")
        },
        ConformanceCase(
            "a migration that cannot be inferred or fails leaves the store intact", behaviour: 54, area: .migration, requires: .persistent
        ) { env in
            let url = try requireURL(env)
            let v1 = try ConformanceModels.library()
            let stack = try env.openStack(v1, url: .some(url))
            try fillLibrary(stack.context)
            try stack.context.save()
            try stack.coordinator.remove(stack.store)
            let original = try env.storeContents(at: url)

            // A new required attribute without a default value cannot be inferred: 134140.
            var impossible = v1.entities
            for index in impossible.indices where impossible[index].name == "Book" {
                impossible[index].attributes.append(Attribute("isbn", .string, optional: false))
            }
            let error = try env.expectError(.migrationMissingMappingModel, "adding the store with an uninferable change") {
                _ = try env.openStack(try ObjectModel(entities: impossible), url: .some(url), options: automaticMigration, versions: [v1])
            }
            try env.expect(error.message.contains("Book.isbn"), "the 134140 message names Book.isbn: \(error.message)")
            try env.expect(error.message.contains(url.path), "the 134140 message names the store file: \(error.message)")
            try env.expect(error.message.contains("automatic migration was requested"), "and says migration was requested: \(error.message)")
            try env.expectStoreUnchanged(at: url, original, "after the refused inference")

            // A custom policy that throws half-way: the store is as it was.
            var mapping = try MappingModel.inferred(from: v1, to: try ConformanceModels.libraryVersion2())
            mapping[destination: "Book"]?.transform = { source, _ in
                if source.attributeValue(forKey: "key") == .string("book-1") {
                    throw StoreError(.migration, "the policy refuses book-1", entityName: "Book")
                }
            }
            let failed = try env.expectError(.migration, "a migration whose policy throws") {
                try MigrationManager(sourceModel: v1, destinationModel: try ConformanceModels.libraryVersion2(), registry: env.registry)
                    .migrateStore(at: url, type: env.storeType, mapping: mapping)
            }
            try env.expect(failed.message.contains("book-1"), "the error is the policy's: \(failed.message)")
            try env.expectStoreUnchanged(at: url, original, "after the policy threw")
            let reopened = try env.openStack(v1, url: .some(url))
            try env.expectEqual(try librarySnapshot(reopened.context).count, 9, "objects readable with the old model")
        },
        ConformanceCase(
            "a chain of versions migrates v1 to v3", behaviour: 55, area: .migration, requires: .persistent
        ) { env in
            let url = try requireURL(env)
            let v1 = try ConformanceModels.library()
            let stack = try env.openStack(v1, url: .some(url))
            try fillLibrary(stack.context)
            try stack.context.save()
            let before = try libraryIDs(stack.context)
            let copy: URL
            if env.storeURLs == nil {
                // A second store file with the same objects and IDs: the file copied.
                try stack.coordinator.remove(stack.store)
                copy = env.directory.appendingPathComponent("automatic.\(env.storeType.lowercased())")
                try env.writeStore(try env.storeContents(at: url), at: copy)
            } else {
                // Stores that are not files: a copy of the same type keeps the IDs (#10).
                copy = try requireURL(env, "automatic")
                let copied = try stack.coordinator.migratePersistentStore(stack.store, to: copy, type: env.storeType)
                try stack.coordinator.remove(copied)
            }
            let v3 = try ConformanceModels.libraryVersion3()

            // Through every version, with a custom step from v2 to v3.
            var last = try MappingModel.inferred(from: try ConformanceModels.libraryVersion2(), to: v3)
            last[destination: "Book"]?.attributes["summary"] = .expression { source in
                guard case .string(let heading)? = source.attributeValue(forKey: "heading"),
                    case .int(let pages)? = source.attributeValue(forKey: "pages")
                else { return nil }
                return .string("\(heading) (\(pages) pages)")
            }
            let reports = Locked<[MigrationProgress]>([])
            try MigrationManager.migrateStore(
                at: url, type: env.storeType, through: [v1, try ConformanceModels.libraryVersion2(), v3], mappings: [1: last],
                registry: env.registry, progress: { value in reports.withLock { $0.append(value) } })
            try env.expectEqual(reports.withLock { $0.last }, Optional(MigrationProgress(done: 9, total: 9)), "last progress report")
            let stepped = try env.openStack(v3, url: .some(url))
            try expectVersion3(env, stepped.context, ids: before)
            let summary = try first(stepped, "Book", where: "key", is: "book-0").value(forKey: "summary")
            try env.expectEqual(summary, .string("Notes (100 pages)"), "a value computed by the custom v2 → v3 step")

            // Straight from v1 to v3 when the store is added: v1 is among the versions supplied.
            let automatic = try env.openStack(
                v3, url: .some(copy), options: automaticMigration, versions: [v1, try ConformanceModels.libraryVersion2()])
            try expectVersion3(env, automatic.context, ids: before)
        },
    ]

    /// Automatic migration with an inferred mapping.
    static let automaticMigration: StoreOptions = [StoreOptionKey.migrateAutomatically: true, StoreOptionKey.inferMappingModel: true]

    /// The library after migration to version 2 (see ``ConformanceModels/libraryVersion2()``).
    private static func expectVersion2(_ env: ConformanceEnvironment, _ context: ManagedObjectContext, ids: [String: URL]) throws {
        func fetch(_ entity: String) throws -> [String: ManagedObject] {
            var request = FetchRequest(entityName: entity)
            request.includesSubentities = false
            return Dictionary(try context.fetch(request).map { ($0.value(forKey: "key", as: String.self) ?? "?", $0) }) { a, _ in a }
        }
        let authors = try fetch("Author")
        let books = try fetch("Book").merging(try fetch("EBook")) { a, _ in a }
        let labels = try fetch("Label")
        try env.expectEqual(authors.count, 2, "authors")
        try env.expectEqual(books.count, 4, "books and e-books")
        try env.expectEqual(labels.count, 3, "labels (the renamed Tag)")
        try env.expectEqual(try context.count(for: FetchRequest(entityName: "Shelf")), 0, "shelves (a new entity)")
        guard let ada = authors["author-ada"], let notes = books["book-0"], let machines = books["ebook-0"] else {
            throw ConformanceFailure("Ada, book-0 or ebook-0 is missing")
        }
        try env.expectEqual(ada.value(forKey: "name"), .string("Ada"), "an attribute kept")
        try env.expectEqual(ada.value(forKey: "score"), .double(9.75), "a double kept")
        try env.expectEqual(ada.value(forKey: "nickname"), .null, "a new optional attribute")
        try env.expectEqual(notes.value(forKey: "heading"), .string("Notes"), "title renamed to heading")
        try env.expectEqual(notes.value(forKey: "rating"), .int(3), "a new attribute with a default value")
        try env.expectEqual(machines.value(forKey: "format"), .string("epub"), "a sub-entity's attribute")
        try env.expectEqual(
            ada.objects(forKey: "books").map { $0.value(forKey: "key", as: String.self) ?? "?" }, ["book-2", "book-0", "ebook-0"],
            "an ordered to-many keeps its order")
        try env.expectEqual(
            notes.objects(forKey: "authors").map { $0.value(forKey: "key", as: String.self) ?? "?" }, ["author-ada"],
            "a to-one became a to-many")
        try env.expectEqual(
            names(notes.objects(forKey: "labels"), "key"), ["tag-history", "tag-math"], "a renamed many-to-many")
        try env.expectEqual(names(labels["tag-math"]?.objects(forKey: "books") ?? [], "key"), ["book-0", "ebook-0"], "its inverse")
        for (key, object) in books {
            let entity = key.hasPrefix("ebook") ? "EBook" : "Book"
            try env.expectEqual(object.objectID.uriRepresentation, ids["\(entity) \(key)"], "the ID of \(key)")
        }
        if let reference = ids["Tag tag-math"].flatMap(ObjectID.init(uriRepresentation:))?.referenceObject {
            try env.expectEqual(labels["tag-math"]?.objectID.referenceObject, reference, "a renamed entity's objects keep their reference objects")
        }
    }

    /// The library after migration to version 3 (see ``ConformanceModels/libraryVersion3()``).
    private static func expectVersion3(_ env: ConformanceEnvironment, _ context: ManagedObjectContext, ids: [String: URL]) throws {
        var request = FetchRequest(entityName: "Book")
        request.includesSubentities = true
        let books = try context.fetch(request)
        try env.expectEqual(books.count, 4, "books (e-books included)")
        try env.expectEqual(names(books, "heading"), ["Engines", "Machines", "Notes", "Numbers"], "headings")
        try env.expectEqual(try context.count(for: FetchRequest(entityName: "Author")), 2, "authors")
        try env.expectEqual(try context.count(for: FetchRequest(entityName: "Label")), 3, "labels")
        for book in books {
            let key = book.value(forKey: "key", as: String.self) ?? "?"
            try env.expectEqual(book.value(forKey: "pages").isNull, false, "pages of \(key) (integer32 → integer64)")
            let entity = key.hasPrefix("ebook") ? "EBook" : "Book"
            try env.expectEqual(book.objectID.uriRepresentation, ids["\(entity) \(key)"], "the ID of \(key)")
        }
    }

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

        // A file in the run's folder; a store of the type under test whose stores are not files
        // goes where the run's stores go.
        let destinationURL: URL?
        if capabilities.contains(.noURL) && !capabilities.contains(.persistent) {
            destinationURL = nil
        } else if destinationType == env.storeType, env.storeURLs != nil {
            destinationURL = env.storeURL("copy-of-\(env.storeType)")
        } else {
            destinationURL = env.directory.appendingPathComponent("copy-of-\(env.storeType).\(destinationType.lowercased())")
        }
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
    /// Version 2 of ``library()``: Author loses `uuid` and gains an optional `nickname`; Book's
    /// `title` is renamed `heading`, it gains a required `rating` with a default value, its
    /// to-one `author` becomes the to-many `authors`, `tags` becomes `labels`; Tag is renamed
    /// Label; Shelf is new.
    public static func libraryVersion2() throws -> ObjectModel {
        try ObjectModel {
            Entity("Author") {
                Attribute("key", .string)
                Attribute("name", .string)
                Attribute("born", .date)
                Attribute("score", .double)
                Attribute("portrait", .binaryData)
                Attribute("active", .boolean)
                Attribute("nickname", .string)
                Relationship("books", to: "Book", inverse: "authors", toMany: true, ordered: true)
            }
            Entity("Book") {
                Attribute("key", .string)
                Attribute("heading", .string, renamingIdentifier: "title")
                Attribute("pages", .integer32)
                Attribute("rating", .integer16, optional: false, defaultValue: 3)
                Relationship("authors", to: "Author", inverse: "books", toMany: true, renamingIdentifier: "author")
                Relationship("labels", to: "Label", inverse: "books", toMany: true, renamingIdentifier: "tags")
            }
            Entity("EBook", parent: "Book") {
                Attribute("format", .string)
            }
            Entity("Label", renamingIdentifier: "Tag") {
                Attribute("key", .string)
                Attribute("name", .string)
                Relationship("books", to: "Book", inverse: "labels", toMany: true)
            }
            Entity("Shelf") {
                Attribute("name", .string)
            }
        }
    }

    /// Version 3: Book's `pages` becomes an `integer64`, it gains an optional `summary`, and
    /// Shelf is gone again.
    public static func libraryVersion3() throws -> ObjectModel {
        var entities = try libraryVersion2().entities.filter { $0.name != "Shelf" }
        for index in entities.indices where entities[index].name == "Book" {
            for attribute in entities[index].attributes.indices where entities[index].attributes[attribute].name == "pages" {
                entities[index].attributes[attribute].type = .integer64
            }
            entities[index].attributes.append(Attribute("summary", .string))
        }
        return try ObjectModel(entities: entities)
    }

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
