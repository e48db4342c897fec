import Foundation
import PersistentStores
@testable import StoreConfiguration
import Testing

/// docs/configuration.md lists every configuration key and every store option, and every
/// option declared in the sources is in a store type's list (so the configuration checks it):
/// neither can drift from the code.
@Suite struct ConfigurationDocsTests {
    static let documentation = (try? String(contentsOf: repositoryRoot.appendingPathComponent("docs/configuration.md"), encoding: .utf8)) ?? ""

    /// Every option key the sources declare: each `static let` of an `…OptionKey` enum, and
    /// every `static let …Option = "…"` elsewhere.
    static func declaredOptionKeys() throws -> [String: String] {
        var found: [String: String] = [:]
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        let declaration = /static let (\w+) = "([^"]+)"/
        for file in files {
            var inOptionKeyEnum = false
            for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false) {
                if line.contains("enum "), line.contains("OptionKey") { inOptionKeyEnum = true }
                if line.hasPrefix("}") { inOptionKeyEnum = false }
                guard let match = line.firstMatch(of: declaration) else { continue }
                if inOptionKeyEnum || match.1.hasSuffix("Option") {
                    found[String(match.2)] = "\(file.lastPathComponent): \(match.1)"
                }
            }
        }
        return found
    }

    static var listedOptions: [StoreOption] {
        StoreOptionKey.standardOptions
            + (PersistentStores.builtInStoreTypes + PersistentStores.serverStoreTypes).flatMap { $0.supportedOptions ?? [] }
    }

    @Test func theSourcesDeclareTheOptionsTheTestLooksFor() throws {
        let declared = try Self.declaredOptionKeys()
        // The scan finds the options of every kind of declaration.
        for key in [StoreOptionKey.readOnly, SQLiteOptionKey.timeout, PostgreSQLOptionKey.sslmode, StoreLimits.maximumFileSizeOption,
            AtomicBinaryStore.compressionOption, PipeCSVStore.lenientParsingOption, StoreOptionKey.createsParentDirectories]
        {
            #expect(declared[key] != nil, "\(key)")
        }
        #expect(declared.count >= 25)
    }

    @Test func everyOptionDeclaredInTheSourcesIsDocumentedAndListed() throws {
        let listed = Set(Self.listedOptions.map(\.key))
        for (key, declaration) in try Self.declaredOptionKeys().sorted(by: { $0.key < $1.key }) {
            #expect(Self.documentation.contains("`\(key)`"), "\(declaration) (\(key)) is not in docs/configuration.md")
            #expect(listed.contains(key), "\(declaration) (\(key)) is in no store type's supportedOptions")
        }
    }

    @Test func everyListedOptionIsDocumentedWithItsKind() throws {
        let rows = Self.documentation.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for option in Self.listedOptions {
            let row = rows.first { $0.hasPrefix("| `\(option.key)` |") }
            #expect(row != nil, "\(option.key) has no row in docs/configuration.md")
        }
    }

    @Test func everyConfigurationKeyIsDocumented() {
        for key in PersistentContainer.configurationKeyNames + StoreDescription.keyNames {
            #expect(Self.documentation.contains("| `\(key)`") || Self.documentation.contains("`, `\(key)`"), "\(key)")
        }
    }
}
