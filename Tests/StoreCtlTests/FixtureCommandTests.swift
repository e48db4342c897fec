import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// storectl on stores Core Data (and the original pipe-format store) wrote. The fixtures are
/// copied into a temporary folder, so opening them can never change them.
@Suite(
    "storectl on the shared fixtures",
    .enabled(
        if: FileManager.default.fileExists(atPath: sharedFixturesDirectory.path),
        "fixtures not found at \(sharedFixturesDirectory.path)"))
struct FixtureCommandTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    /// Copies `paths` (relative to the fixtures folder) into `directory`; returns the copies.
    private func copy(_ paths: [String], to directory: URL) throws -> [URL] {
        try paths.map { path in
            let source = sharedFixturesDirectory.appendingPathComponent(path)
            let copy = directory.appendingPathComponent(source.lastPathComponent)
            try FileManager.default.copyItem(at: source, to: copy)
            return copy
        }
    }

    @Test func easyLifeSQLiteWrittenByCoreData() throws {
        try withTemporaryDirectory { directory in
            let files = try copy(
                ["coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.sqlite", "coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.xcdatamodel"],
                to: directory)
            let store = files[0].path, model = files[1].path
            let info = storectl("info", store, "--model", model)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         SQLite (written by Core Data)"))
            #expect(info.output.contains("  TodoItem  6\n"))
            #expect(info.output.contains("  Project   0\n"))
            #expect(info.output.contains("Version hashes:"))
            let dump = storectl("dump", store, "--model", model, "--entity", "TodoItem", "--format", "json")
            let document = try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: [[String: Any]]]
            #expect(document?["TodoItem"]?.count == 6)
            let query = storectl(
                "query", store, "--model", model, "--entity", "TodoItem", "--where", "name BEGINSWITH 'c'", "--sort", "name")
            #expect(query.status == 0, "\(query.errors)")
            let names = lines(query.output).filter { $0.contains("call landlord") || $0.contains("clean flat") }
            #expect(names.count == 2)
            #expect(names.first?.contains("call landlord") == true)
            let validate = storectl("validate", store, "--model", model)
            #expect(validate.output.contains("6 objects checked"))
            // Without --model, the file's own compiled model (Z_MODELCACHE) is used.
            let noModel = storectl("info", store)
            #expect(noModel.status == 0, "\(noModel.errors)")
            #expect(noModel.output.contains("Model:        from the store's Core Data model cache (Z_MODELCACHE)"))
            #expect(noModel.output.contains("  TodoItem  6\n"))
        }
    }

    @Test func bnrTestModelWithAnXcdatamodeldBundle() throws {
        try withTemporaryDirectory { directory in
            let files = try copy(
                ["coredata-sqlite/BNRTestModel/TestModel.sqlite", "coredata-sqlite/BNRTestModel/Sample.xcdatamodeld"], to: directory)
            // The bundle's current version may be the second one; the store was written by the first.
            let version = files[1].appendingPathComponent("TestModel.xcdatamodel").path
            let info = storectl("info", files[0].path, "--model", version)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("KSySPkjCy+6loRO7doX7xjq4AMC7wkKtF6Dy4qHgj1w="))
            #expect(info.output.contains("  Author  0\n"))
            let validate = storectl("validate", files[0].path, "--model", version)
            #expect(validate.status == 0)
            #expect(validate.output.contains("0 objects checked, 0 problems"))
        }
    }

    @Test func vehiclesXMLWrittenByCoreData() throws {
        try withTemporaryDirectory { directory in
            let store = try copy(["coredata-xml/Vehicles.xml"], to: directory)[0].path
            let model = directory.appendingPathComponent("Vehicles.json")
            try vehiclesModel().writeJSON(to: model)
            let info = storectl("info", store, "--model", model.path)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         XML"))
            #expect(info.output.contains("UUID:         343C8D7F-A000-42C4-8463-43FA1E5EF3FB"))
            #expect(info.output.contains("  VehiclePicture  2\n"))
            let dump = storectl("dump", store, "--model", model.path, "--entity", "Vehicle")
            #expect(dump.output.contains("manufacturer"))
            #expect(dump.output.contains("vehicle short name"))
            let query = storectl("query", store, "--model", model.path, "--entity", "VehiclePicture", "--where", "pictureName CONTAINS 'picture name'")
            #expect(query.output.contains("VehiclePicture (1 object)"))
            let validate = storectl("validate", store, "--model", model.path)
            #expect(validate.status == 0, "\(validate.output)")
            #expect(validate.output.contains("3 objects checked, 0 problems"))
        }
    }

    @Test func leagueManagerPipeFile() throws {
        try withTemporaryDirectory { directory in
            let files = try copy(["pipe/League_Manager.txt", "pipe/League_Manager.plist"], to: directory)
            let model = directory.appendingPathComponent("League.json")
            try leagueModel().writeJSON(to: model)
            let info = storectl("info", files[0].path, "--model", model.path)
            #expect(info.status == 0, "\(info.errors)")
            #expect(info.output.contains("Type:         PipeCSV"))
            #expect(info.output.contains("  Player  5\n"))
            let query = storectl("query", files[0].path, "--model", model.path, "--entity", "Player", "--where", "team.name == 'Miami Heat'")
            #expect(query.output.contains("Player (4 objects)"))
            let validate = storectl("validate", files[0].path, "--model", model.path)
            #expect(validate.status == 0, "\(validate.output)")
            #expect(validate.output.contains("7 objects checked, 0 problems"))
        }
    }
}
