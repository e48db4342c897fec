import Foundation
import Testing

/// The README's Installation section agrees with the package: the version it tells users to
/// depend on is the newest in CHANGELOG.md, and every library its table names is a product.
@Suite struct InstallationTests {
    let root = ReadmeSnippet.packageRoot

    func text(_ path: String) throws -> String {
        try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
    }

    /// The README's Installation section, up to the next section.
    func installation() throws -> String {
        let readme = try text("README.md")
        let start = try #require(readme.range(of: "## Installation\n"))
        let rest = readme[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    @Test func theVersionToDependOnIsTheNewestInTheChangelog() throws {
        let changelog = try text("CHANGELOG.md")
        // The newest released version ("## Unreleased" above it gathers what comes next).
        let newest = try #require(changelog.split(separator: "\n").first { $0.hasPrefix("## ") && !$0.hasPrefix("## Unreleased") })
        let version = try #require(newest.dropFirst(3).split(separator: " ").first.map(String.init))
        #expect(version.split(separator: ".").count == 3 && version.split(separator: ".").allSatisfy { Int($0) != nil })
        #expect(try installation().contains("from: \"\(version)\""), "README's Installation does not name \(version)")
    }

    @Test func everyLibraryTheTableNamesIsAProduct() throws {
        let manifest = try text("Package.swift")
        let rows = try installation().split(separator: "\n").filter { $0.hasPrefix("| `") }
        #expect(rows.count >= 5)
        for row in rows {
            let names = row.split(separator: "|")[0].split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            for name in names {
                #expect(manifest.contains(".library(name: \"\(name)\""), "README's Installation names \(name), which is not a library product")
            }
        }
    }

    @Test func theDocCPluginIsNotADependencyOfDependents() throws {
        let manifest = try text("Package.swift")
        let declared = try #require(manifest.range(of: "    dependencies: ["))
        let list = manifest[declared.upperBound...].prefix { $0 != "]" }
        #expect(!list.contains("swift-docc-plugin"))
        #expect(manifest.contains("Context.environment[\"PERSISTENTSTORES_DOCC\"]"))
    }
}
