import Foundation
import PersistentModels
import StoreTestSupport
import Testing

/// The `@Model` macros as the compiler runs them: a file is type-checked by `swiftc` with this
/// package's macro plugin and modules, and its expansions and diagnostics (with their
/// fix-its) are read from the compiler's output. (A test target that depends on the macro
/// target itself would make SwiftPM build every test target a second time, for the host.)
@Suite struct ModelMacroCompilerTests {
    /// The compiler's output for `source` (saved as `Models.swift`), with `extraArguments`.
    private func typecheck(_ source: String, extraArguments: [String] = []) throws -> String {
        let plugin = try #require(
            builtExecutable(named: "PersistentModelsMacros-tool"), "the macro plugin is built beside the tests")
        let buildFolder = plugin.deletingLastPathComponent().resolvingSymlinksInPath()
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        // The C modules the imported modules were built with: this package's system libraries
        // and the dependencies' own module maps.
        var moduleMaps = ["CSQLite", "CLibXML2", "CZlib", "CLibPQ"].map {
            packageRoot.appendingPathComponent("Sources/\($0)/module.modulemap").path
        }
        let checkouts = buildFolder.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("checkouts")
        if let files = FileManager.default.enumerator(atPath: checkouts.path) {
            for case let file as String in files where file.hasSuffix("module.modulemap") {
                moduleMaps.append(checkouts.appendingPathComponent(file).path)
            }
        }
        return try withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("Models.swift")
            try source.write(to: file, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments =
                ["swiftc", "-typecheck", "-diagnostic-style=llvm", file.path,
                 "-I", buildFolder.appendingPathComponent("Modules").path,
                 "-load-plugin-executable", "\(plugin.path)#PersistentModelsMacros",
                 "-Xcc", "-I/usr/include/libxml2", "-Xcc", "-I/usr/include/postgresql"]
                + moduleMaps.flatMap { ["-Xcc", "-fmodule-map-file=\($0)"] } + extraArguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = output
            process.currentDirectoryURL = folder
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self)
        }
    }

    @Test func unsupportedPropertiesAreCompileErrorsWithFixIts() throws {
        let output = try typecheck(
            """
            import PersistentModels

            @Model
            final class Bad {
                var place: Place
                var handler: () -> Void
                var count = 0
                let id: String
                var maybe: Int!
                @Transient var cache: [String: Int]
                var ok: String = ""
                init() {}
            }
            final class Place {}
            """)
        let expected: [(position: String, message: String, fixIt: String?)] = [
            ("6:18", "'() -> Void' is not a supported type for a property of a @Model class: it is not a named type", nil),
            ("7:9", "persisted property 'count' needs an explicit type", "count: Int = 0"),
            ("8:5", "persisted property 'id' must be a 'var'", "var"),
            ("9:16", "implicitly unwrapped optionals are not supported in a @Model class", "Int?"),
            ("10:20", "@Transient property 'cache' needs an initial value", nil),
        ]
        for diagnostic in expected {
            #expect(output.contains("Models.swift:\(diagnostic.position): error: \(diagnostic.message)"), "\(output)")
            if let fixIt = diagnostic.fixIt {
                // The LLVM style prints a fix-it's replacement under the note's caret line.
                let note = output.range(of: "Models.swift:\(diagnostic.position): note:")
                let after = note.map { String(output[$0.upperBound...].prefix(400)) } ?? ""
                #expect(after.split(separator: "\n").dropFirst(3).first?.trimmingCharacters(in: .whitespaces) == fixIt, "\(after)")
            }
        }
        #expect(!output.contains("Models.swift:11:"), "a supported property is not diagnosed")
        // A type the syntax does not settle is checked by the compiler: `Place` is neither a
        // @Model class, an enum nor Codable.
        #expect(output.contains("is unavailable: a property of a @Model class has an attribute value type"), "\(output)")
    }

    @Test func enumCodableAndDirectiveMistakesAreCompileErrors() throws {
        let output = try typecheck(
            """
            import PersistentModels

            @Model
            final class Bad {
                #Unique<Bad>([\\.title], [\\.items], [\\.cache])
                #Index<Item>([\\.name])
                #Index<Bad>(["name"])
                var name: String
                var items: [Item] = []
                var title: String { name }
                @Transient var cache = 0
                @Relationship var owner: Item
                init() {}
            }

            @Model
            final class Loose {
                var status: Status
                var item: Item
                var fine: Status = .a
                var iterable: Iterable
                init() {}
            }

            enum Status: String, Codable { case a }
            enum Iterable: Int, CaseIterable { case one = 1 }
            @Model final class Item { var name: String = ""; init() {} }
            """)
        let expected: [(position: String, message: String)] = [
            ("5:19", "'\\.title' is not a persisted property of Bad"),
            ("5:30", "'\\.items' may be a to-many relationship; #Unique takes attributes and to-one relationships"),
            ("5:41", "'\\.cache' is not a persisted property of Bad"),
            ("6:12", "#Index<Item> in the @Model class Bad names another type; write #Index<Bad>"),
            ("7:18", "'\"name\"' is not a key path to a property of Bad"),
            ("12:30", "a to-one relationship is optional: declare 'owner' as 'Item?'"),
        ]
        for diagnostic in expected {
            #expect(output.contains("Models.swift:\(diagnostic.position): error: \(diagnostic.message)"), "\(output)")
        }
        #expect(output.contains("needs a value to read when its stored value cannot be decoded"), "\(output)")
        #expect(output.contains("a to-one relationship of a @Model class is optional"), "\(output)")
        // `fine` has an initial value and `iterable` a first case: neither is diagnosed.
        #expect(!output.contains("on property 'fine'"), "\(output)")
        #expect(!output.contains("on property 'iterable'"), "\(output)")
    }

    @Test func expandsPropertiesIntoAccessorsBySlotIndex() throws {
        let output = try typecheck(
            """
            import PersistentModels

            @Model final class Pin {
                @Attribute(.unique, originalName: "title") var label: String
                var weight: Double? = 1.5
                @Relationship(deleteRule: .cascade, inverse: \\Tag.pin) var tags: [Tag] = []
                @Transient var seen = 0
                var summary: String { label }
                init(label: String) { self.label = label }
            }

            @Model final class Tag {
                var pin: Pin?
                init() {}
            }
            """, extraArguments: ["-Xfrontend", "-dump-macro-expansions"])
        #expect(!output.contains("error:"), "\(output)")
        for expansion in [
            #".attribute("label", .string, optional: false, unique: true, originalName: "title")"#,
            #".attribute("weight", .double, optional: true, defaultValue: (1.5 as Double).storeValue)"#,
            #".relationship("tags", to: Tag.self, toMany: true, deleteRule: .cascade, inverse: "pin", inverseDeclaredOn: Tag.self)"#,
            #".value("pin", Pin.self, optional: true)"#,
            "@_PersistedProperty(0)", "@_PersistedProperty(1)", "@_PersistedProperty(2)",
            "_$backingData.attributeValue(at: 0, as: String.self)",
            "_$backingData.optionalAttributeValue(at: 1, as: Double.self)",
            "_$backingData.toMany(at: 2, as: Tag.self)",
            "_$backingData.setValue(newValue, at: 0, as: Pin.self)",
            "_$observationRegistrar.access(self, keyPath: Pin._$keyPath_label)",
            "private static let _$keyPath_label = \\Pin.label",
            "_$observationRegistrar.withMutation(of: self, keyPath: Pin._$keyPath_weight)",
            "@storageRestrictions(accesses: _$backingDataStorage, initializes: _$label)",
            "private var _$weight: PersistentModels._ModelPropertyMarker",
            #"case \Pin.tags:"#,
            "extension Pin: PersistentModels.PersistentModel, Observation.Observable",
        ] {
            #expect(output.contains(expansion), "missing: \(expansion)")
        }
        // Transient and computed properties are left alone.
        #expect(!output.contains("\"seen\""))
        #expect(!output.contains("\"summary\""))
        #expect(!output.contains("@_PersistedProperty(3)"))
    }

    @Test func transformableIsACompileErrorSayingWhatToWriteInstead() throws {
        let output = try typecheck(
            """
            import PersistentModels

            final class ColorTransformer {}
            struct Color: Codable { var red = 0.0 }

            @Model
            final class Swatch {
                @Attribute(.transformable(by: ColorTransformer.self)) var color: Color
                @Attribute(.transformable(by: "ColorTransformer")) var other: Color
                init() {}
            }
            """)
        for position in ["8:17", "9:17"] {
            #expect(
                output.contains(
                    "Models.swift:\(position): error: 'transformable(by:)' is unavailable: @Attribute(.transformable(by:)) needs "
                        + "Foundation's ValueTransformer, which Foundation on Linux does not have; make the property's type Codable"),
                "\(output)")
        }
    }

    @Test func theModelClassesStorectlExportsCompile() throws {
        let storectl = try #require(builtExecutable(named: "storectl"), "storectl is built beside the tests")
        try withTemporaryDirectory { folder in
            let modelFile = folder.appendingPathComponent("League.json")
            try Self.league.writeJSON(to: modelFile)
            let process = Process()
            process.executableURL = storectl
            process.arguments = ["export-model", "--model", modelFile.path, "--format", "models"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let source = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(source.contains("@Model"))
            let compiled = try typecheck(
                source + """

                    func check() throws {
                        let model = try ObjectModel(for: Player.self, Team.self)
                        _ = model
                    }
                    """)
            #expect(!compiled.contains("error:"), "\(compiled)")
        }
    }

    /// Two entities with every kind of property the exporter writes: a unique attribute, an
    /// indexed one, defaults, optionals, a to-one and its to-many inverse with delete rules.
    static var league: ObjectModel {
        get throws {
            try ObjectModel {
                Entity("Team", uniquenessConstraints: [["name"]]) {
                    Attribute("name", .string, optional: false)
                    Attribute("founded", .date)
                    Attribute("budget", .decimal, defaultValue: .int(0))
                    Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
                }
                Entity("Player", uniquenessConstraints: [["firstName", "lastName"]]) {
                    Attribute("firstName", .string, optional: false)
                    Attribute("lastName", .string, optional: false, indexed: true)
                    Attribute("number", .integer16, defaultValue: .int(0))
                    Attribute("rating", .double)
                    Attribute("photo", .binaryData, allowsExternalBinaryDataStorage: true)
                    Relationship("team", to: "Team", inverse: "players")
                }
            }
        }
    }
}
