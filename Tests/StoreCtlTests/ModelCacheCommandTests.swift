import CSQLite
import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// storectl on files without `--model`: Core Data's SQLite files through their model cache
/// (`Z_MODELCACHE`), other files through what they say without a model, and `export-model`.
@Suite(
    "storectl without --model",
    .enabled(
        if: FileManager.default.fileExists(atPath: sharedFixturesDirectory.appendingPathComponent("coredata-sqlite").path),
        "fixtures not found at \(sharedFixturesDirectory.path)"))
struct ModelCacheCommandTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    private func copy(_ path: String, to directory: URL) throws -> URL {
        let source = sharedFixturesDirectory.appendingPathComponent(path)
        let copy = directory.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: copy)
        return copy
    }

    @Test func easyLifeInfoDumpQueryCopyWithoutModel() throws {
        try withTemporaryDirectory { directory in
            let store = try copy("coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.sqlite", to: directory).path
            let info = storectl("info", store)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         SQLite (written by Core Data)"))
            #expect(info.output.contains("Model:        from the store's Core Data model cache (Z_MODELCACHE)"))
            #expect(info.output.contains("Core Data version hashes of the model: equal to the store's"))
            #expect(info.output.contains("  TodoItem  6\n"))
            #expect(info.output.contains("  Project   0\n"))
            let dump = storectl("dump", store, "--entity", "TodoItem", "--format", "json")
            #expect(dump.status == 0, "\(dump.errors)")
            let document = try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: [[String: Any]]]
            #expect(document?["TodoItem"]?.count == 6)
            let query = storectl("query", store, "--entity", "TodoItem", "--where", "name BEGINSWITH 'c'", "--sort", "name")
            #expect(query.status == 0, "\(query.errors)")
            #expect(query.output.contains("call landlord") && query.output.contains("clean flat"))
            #expect(!query.output.contains("fix bike"))
            let copied = directory.appendingPathComponent("EasyLife.binary").path
            let copyRun = storectl("copy", store, copied, "--to-type", "Binary")
            #expect(copyRun.status == 0, "\(copyRun.errors)")
            #expect(copyRun.output.contains("Copied 6 objects"))
            // The copy keeps the model in its metadata: it opens without --model too.
            #expect(storectl("info", copied).output.contains("  TodoItem  6\n"))
        }
    }

    @Test func bnrInfoWithoutModel() throws {
        try withTemporaryDirectory { directory in
            let store = try copy("coredata-sqlite/BNRTestModel/TestModel.sqlite", to: directory).path
            let info = storectl("info", store)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("KSySPkjCy+6loRO7doX7xjq4AMC7wkKtF6Dy4qHgj1w="))
            #expect(info.output.contains("Core Data version hashes of the model: equal to the store's"))
            #expect(info.output.contains("  Author  0\n"))
            #expect(storectl("dump", store).status == 0)
        }
    }

    @Test func vehiclesXMLInfoWithoutModel() throws {
        try withTemporaryDirectory { directory in
            let store = try copy("coredata-xml/Vehicles.xml", to: directory).path
            let info = storectl("info", store)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         XML"))
            #expect(info.output.contains("UUID:         343C8D7F-A000-42C4-8463-43FA1E5EF3FB"))
            #expect(info.output.contains("Model:        none"))
            // The model's spelling (guessed: the file upper-cases it) with the file's beside it.
            let rows = lines(info.output).map { $0.split(separator: " ").joined(separator: " ") }
            #expect(rows.contains("Vehicle 1 VEHICLE"))
            #expect(rows.contains("VehiclePicture 2 VEHICLEPICTURE"))
            #expect(info.output.contains("the model's spelling is guessed"))
            #expect(info.output.contains("need --model"))
            // What needs a model still says so.
            let dump = storectl("dump", store)
            #expect(dump.status == 1)
            #expect(dump.errors.contains("keeps no model in its metadata"))
            #expect(dump.errors.contains("pass --model"))
        }
    }

    @Test func sqliteWithoutModelCacheListsTablesAndCounts() throws {
        try withTemporaryDirectory { directory in
            let url = directory.appendingPathComponent("League.sqlite")
            let coordinator = PersistentStoreCoordinator(model: try leagueModel())
            let handle = try coordinator.addPersistentStore(type: "SQLite", at: url)
            let context = ManagedObjectContext(coordinator: coordinator)
            for name in ["Ann", "Bob"] { try context.insert(entityName: "Player").setValue(.string(name), forKey: "lastName") }
            try context.save()
            var metadata = try coordinator.metadata(for: handle)
            metadata[MetadataKey.modelJSON] = nil
            try coordinator.setMetadata(metadata, for: handle)
            try coordinator.remove(handle)
            // This framework also keeps its model as JSON in Z_MODELCACHE: remove it too.
            var database: OpaquePointer?
            #expect(sqlite3_open(url.path, &database) == SQLITE_OK)
            #expect(sqlite3_exec(database, "DELETE FROM Z_MODELCACHE", nil, nil, nil) == SQLITE_OK)
            sqlite3_close(database)
            let info = storectl("info", url.path)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Entities (read from the file):"))
            #expect(info.output.contains("  Player  2\n"))
            #expect(info.output.contains("  Team    0\n"))
            let query = storectl("query", url.path, "--entity", "Player")
            #expect(query.status == 1)
            #expect(query.errors.contains("no Core Data model cache (Z_MODELCACHE)"))
        }
    }

    @Test func exportModelFromTheCacheRoundTrips() throws {
        try withTemporaryDirectory { directory in
            let store = try copy("coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.sqlite", to: directory).path
            let folder = directory.appendingPathComponent("Exported.xcdatamodel")
            let run = storectl("export-model", store, "--output", folder.path, "--quiet")
            #expect(run.status == 0, "\(run.errors)")
            let exported = try ObjectModel(contentsOf: folder)
            #expect(exported.entityNames == ["Project", "TodoItem"])
            let metadata = try SQLiteStore.metadata(forStoreAt: URL(fileURLWithPath: store), options: [:])
            #expect(exported.coreDataVersionHashes.mapValues(MetadataValue.data) == metadata[MetadataKey.versionHashes]?.dictionaryValue)
            // The exported model opens the store.
            let info = storectl("info", store, "--model", folder.path)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Model:        from --model"))
            // Never overwrites.
            #expect(storectl("export-model", store, "--output", folder.path).status == 1)

            let xml = storectl("export-model", store)
            #expect(xml.output.hasPrefix("<?xml"))
            #expect(xml.output.contains(#"<attribute name="priority" optional="YES" attributeType="Integer 16" defaultValueString="-1""#))
            let swift = storectl("export-model", store, "--swift")
            #expect(swift.status == 0, "\(swift.errors)")
            #expect(swift.output.contains(#"let model = try ObjectModel(versionIdentifiers: [""]) {"#))
            #expect(swift.output.contains(#"Attribute("priority", .integer16, defaultValue: .int(-1))"#))
            #expect(swift.output.contains(#"Relationship("todoItem", to: "TodoItem", inverse: "project", toMany: true)"#))
            #expect(swift.output.contains(#"Attribute("repeats", .integer16, defaultValue: .int(0), minValue: .int(0))"#))
        }
    }

    @Test func exportModelOfAnXMLStoreNeedsAModel() throws {
        try withTemporaryDirectory { directory in
            let store = try copy("coredata-xml/Vehicles.xml", to: directory).path
            let run = storectl("export-model", store)
            #expect(run.status == 1)
            #expect(run.errors.contains("pass --model"))
            let model = directory.appendingPathComponent("Vehicles.json")
            try vehiclesModel().writeJSON(to: model)
            let withModel = storectl("export-model", "--model", model.path, "--swift")
            #expect(withModel.status == 0, "\(withModel.errors)")
            #expect(withModel.output.contains(#"Entity("VehiclePicture""#))
        }
    }
}
