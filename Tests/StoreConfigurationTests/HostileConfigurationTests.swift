import Configuration
import Foundation
import PersistentStores
import StoreTestSupport
import Testing

/// Configuration files that would take the parser for ever or exhaust memory are refused, on
/// their bytes, before they are parsed: a 134060 naming the file, in seconds.
@Suite struct HostileConfigurationTests {
    /// A YAML "billion laughs": nine mappings of nine keys, each level holding nine aliases of
    /// the one before (9^9 keys once expanded) in about 750 bytes.
    static let aliasBomb: String = {
        var lines = ["persistence:", "  store:", "    type: InMemory"]
        lines.append("l0: &l0 {a: 1, b: 1, c: 1, d: 1, e: 1, f: 1, g: 1, h: 1, i: 1}")
        for level in 1...8 {
            let items = "abcdefghi".map { "\($0): *l\(level - 1)" }.joined(separator: ", ")
            lines.append("l\(level): &l\(level) {\(items)}")
        }
        return lines.joined(separator: "\n") + "\n"
    }()

    /// `persistence:` and `count` more plain keys.
    static func plainKeys(_ count: Int) -> String {
        "persistence:\n  store:\n    type: InMemory\nother:\n" + (0..<count).map { "  key\($0): \($0)\n" }.joined()
    }

    @Test func aYAMLAliasBombIsRefusedInSeconds() throws {
        try withTemporaryDirectory { directory in
            let file = try write(Self.aliasBomb, to: "bomb.yaml", in: directory)
            #expect(Self.aliasBomb.utf8.count < 1000)
            let sources = storeError(within: 10) { _ = try StoreConfigurationSources(file: file, environment: [:]) }
            #expect(sources?.code == .coreData)
            #expect(sources?.message.contains(file.standardizedFileURL.path) == true, "\(String(describing: sources))")
            #expect(sources?.message.contains("more than 5000 entries") == true)
            // A container made from a reader over the file reads it through the same provider.
            let container = storeError(within: 10) {
                let reader = ConfigReader(providers: [try ConfigFileProvider(url: file)])
                _ = try PersistentContainer(config: reader.scoped(to: "persistence"), name: "Bomb", model: try leagueModel())
            }
            #expect(container?.message.contains(file.standardizedFileURL.path) == true, "\(String(describing: container))")
        }
    }

    @Test func thirtyThousandPlainKeysAreRefusedInSeconds() throws {
        try withTemporaryDirectory { directory in
            // The provider's flattening is quadratic: these took 23 s to parse.
            let yaml = try write(Self.plainKeys(30_000), to: "keys.yaml", in: directory)
            let error = storeError(within: 10) { _ = try StoreConfigurationSources(file: yaml, environment: [:]) }
            #expect(error?.message.contains("more than 5000 entries") == true, "\(String(describing: error))")
            let entries = (0..<30_000).map { "\"key\($0)\": \($0)" }.joined(separator: ", ")
            let json = try write("{\"persistence\": {\"store\": {\"type\": \"InMemory\"}}, \"other\": {\(entries)}}", to: "keys.json", in: directory)
            let jsonError = storeError(within: 10) { _ = try StoreConfigurationSources(file: json, environment: [:]) }
            #expect(jsonError?.message.contains(json.standardizedFileURL.path) == true, "\(String(describing: jsonError))")
            #expect(jsonError?.message.contains("more than 5000 entries") == true)
        }
    }

    @Test func aFileLargerThanOneMebibyteOrNestedTooDeeplyIsRefused() throws {
        try withTemporaryDirectory { directory in
            let large = try write("persistence:\n  name: \"" + String(repeating: "x", count: 1 << 20) + "\"\n", to: "large.yaml", in: directory)
            let tooLarge = storeError { _ = try ConfigFileProvider(url: large) }
            #expect(tooLarge?.message.contains("larger than 1048576 bytes") == true, "\(String(describing: tooLarge))")
            let deepYAML = try write("persistence: " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "\n", to: "deep.yaml", in: directory)
            #expect(storeError { _ = try ConfigFileProvider(url: deepYAML) }?.message.contains("more than 64 levels") == true)
            let deepJSON = try write("{\"a\": " + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}", to: "deep.json", in: directory)
            #expect(storeError { _ = try ConfigFileProvider(url: deepJSON) }?.message.contains("more than 64 levels") == true)
        }
    }

    @Test func anchorsAndAliasesOfAnOrdinaryFileStillWork() throws {
        try withTemporaryDirectory { directory in
            // Twenty stores sharing one anchored section: each alias counts the section once.
            var text = "shared: &shared\n  type: InMemory\n  readOnly: false\npersistence:\n  name: League\n  stores: ["
            text += (1...20).map { "s\($0)" }.joined(separator: ", ") + "]\n"
            for index in 1...20 { text += "  s\(index): *shared\n" }
            let file = try write(text, to: "stores.yaml", in: directory)
            let container = try StoreConfigurationSources(file: file, environment: [:]).makeContainer(model: try leagueModel(), registry: registryWithCustomType())
            #expect(container.persistentStoreDescriptions.count == 20)
            #expect(container.persistentStoreDescriptions.allSatisfy { $0.type == "InMemory" })
        }
    }

    @Test func quotesCommentsAndBlockTextDoNotHideAnAlias() throws {
        try withTemporaryDirectory { directory in
            // The bomb's last level after a quoted string holding a quote and "#", a comment
            // holding a quote, and block text: the scan still finds every alias.
            var text = "persistence:\n  name: \"it's # not a comment\"\n  # don't\n  note: |\n    \"text\n"
            text += Self.aliasBomb.split(separator: "\n").dropFirst(3).joined(separator: "\n") + "\n"
            let file = try write(text, to: "hidden.yaml", in: directory)
            let error = storeError(within: 10) { _ = try ConfigFileProvider(url: file) }
            #expect(error?.message.contains("more than 5000 entries") == true, "\(String(describing: error))")
        }
    }

    @Test func moreThanAHundredAnchorsAreRefused() throws {
        try withTemporaryDirectory { directory in
            let text = "persistence:\n" + (0...100).map { "  k\($0): &a\($0) v\n" }.joined()
            let file = try write(text, to: "anchors.yaml", in: directory)
            #expect(storeError { _ = try ConfigFileProvider(url: file) }?.message.contains("more than 100 anchors") == true)
        }
    }
}
