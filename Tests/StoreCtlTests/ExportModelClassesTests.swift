import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// `storectl export-model --format models`: a store's model as `@Model` classes. (That the
/// classes compile is ModelMacroCompilerTests' `theModelClassesStorectlExportsCompile`.)
@Suite struct ExportModelClassesTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    /// The source without its first line (which names the file it came from).
    private func body(_ output: String) -> String {
        output.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).dropFirst().joined()
    }

    @Test func theLeagueModel() throws {
        try withTemporaryDirectory { directory in
            let model = directory.appendingPathComponent("League.json")
            try leagueModel(requiredLastName: true).writeJSON(to: model)
            let run = storectl("export-model", "--model", model.path, "--format", "models")
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix("// The model of the model \(model.path) as @Model classes"))
            #expect(
                body(run.output) == #"""
                    import Foundation
                    import PersistentModels

                    @Model
                    final class Player {
                        var firstName: String?
                        var lastName: String
                        var email: String?
                        @Relationship(inverse: \Team.players) var team: Team?

                        init(lastName: String) {
                            self.lastName = lastName
                        }
                    }

                    @Model
                    final class Team {
                        var name: String?
                        var uniformColor: String?
                        @Relationship(deleteRule: .cascade) var players: [Player] = []

                        init() {}
                    }

                    """#, "\(run.output)")
            // --swift and another --format contradict each other.
            let both = storectl("export-model", "--model", model.path, "--format", "models", "--swift")
            #expect(both.status != 0)
            #expect(both.errors.contains("--swift and --format models"))
        }
    }

    @Test(
        .enabled(
            if: FileManager.default.fileExists(atPath: sharedFixturesDirectory.appendingPathComponent("coredata-sqlite").path),
            "fixtures not found at \(sharedFixturesDirectory.path)"))
    func aCoreDataStoreThroughItsModelCache() throws {
        try withTemporaryDirectory { directory in
            let source = sharedFixturesDirectory.appendingPathComponent("coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.sqlite")
            let store = directory.appendingPathComponent("EasyLife.sqlite")
            try FileManager.default.copyItem(at: source, to: store)
            let run = storectl("export-model", store.path, "--format", "models")
            #expect(run.status == 0, "\(run.errors)")
            #expect(body(run.output) == Self.easyLife, "\(run.output)")
            let file = directory.appendingPathComponent("EasyLifeModels.swift")
            #expect(storectl("export-model", store.path, "--format", "models", "--output", file.path, "--quiet").status == 0)
            #expect(body(try String(contentsOf: file, encoding: .utf8)) == Self.easyLife)
        }
    }

    /// EasyLife 1.5.0's model (read from Core Data's model cache) as @Model classes: optional
    /// scalars with their defaults, a validation rule as a comment, a to-many with its inverse
    /// and a many-to-many of an entity with itself, its inverse written on one side.
    static let easyLife = #"""
        import Foundation
        import PersistentModels

        @Model
        final class Project {
            var name: String?
            var priority: Int16? = -1
            @Relationship(inverse: \TodoItem.project) var todoItem: [TodoItem] = []

            init() {}
        }

        @Model
        final class TodoItem {
            var notes: String?
            var date: Date?
            // Validated in the store's model: minimum 0.
            var repeats: Int16? = 0
            var done: Bool?
            var name: String?
            @Relationship(inverse: \TodoItem.blocking) var blockedBy: [TodoItem] = []
            var blocking: [TodoItem] = []
            var project: Project?

            init() {}
        }

        """#
}
