import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// The README's `storectl` examples, run in order in a fresh folder as a user pastes them: the
/// first writes the file the others read. Skipped: `migrate` (it needs the user's next model
/// version), `--config` (the example configuration's folder holds no store until its demo runs)
/// and the Core Data file's lines when the shared fixtures are absent.
@Suite struct ReadmeCommandTests {
    init() { PersistentStores.registerBuiltInStoreTypes() }

    /// The README's shell block that shows storectl's commands, one command per line.
    static func readmeCommands() throws -> [String] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```sh\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
        let block = try #require(blocks.first { $0.contains("storectl info League.sqlite") })
        return block.split(separator: "\n").map(String.init).filter { $0.hasPrefix("swift run storectl ") }
    }

    /// A command line's words after `swift run storectl`, quotes removed, the comment dropped.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var current = ""
        var quote: Character?
        var inWord = false
        for character in line.dropFirst("swift run storectl ".count) {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "'" || character == "\"" {
                quote = character
                inWord = true
            } else if character == "#" && !inWord {
                break
            } else if character == " " {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test func theWordsOfACommandLine() {
        #expect(Self.words("swift run storectl info \"A B.sqlite\"   # comment") == ["info", "A B.sqlite"])
        #expect(Self.words("swift run storectl query x --where 'a == \"G\"'") == ["query", "x", "--where", "a == \"G\""])
    }

    @Test func everyStorectlExampleInTheReadmeRunsAfterTheOneBeforeIt() throws {
        let commands = try Self.readmeCommands()
        #expect(commands.first?.hasPrefix("swift run storectl demo --path League.sqlite") == true, "the first example writes the file the others use")
        let easyLife = sharedFixturesDirectory.appendingPathComponent("coredata-sqlite/EasyLife-1.5.0/EasyLife 1.5.0.sqlite")
        try withTemporaryDirectory { directory in
            var ran = 0
            for command in commands {
                var arguments = Self.words(command)
                if arguments.first == "migrate" || arguments.contains("--config") { continue }
                if arguments.contains("EasyLife 1.5.0.sqlite") {
                    guard FileManager.default.fileExists(atPath: easyLife.path) else { continue }
                    arguments = arguments.map { $0 == "EasyLife 1.5.0.sqlite" ? easyLife.path : $0 }
                }
                // Relative file names are the user's current folder: here, the test's folder.
                arguments = arguments.map { word in
                    word.hasPrefix("-") || !word.contains(".") || word.hasPrefix("/") ? word : directory.appendingPathComponent(word).path
                }
                let run = storectl(arguments)
                #expect(run.status == 0, "README: \(command)\n\(run.errors)")
                ran += 1
            }
            #expect(ran >= 6)
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("League.xml").path))
        }
    }
}
