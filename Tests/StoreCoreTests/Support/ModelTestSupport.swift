import Foundation
import StoreTestSupport
import Testing

/// Paths and scratch space for the model tests.
enum ModelTestSupport {
    /// The shared fixtures: `$PERSISTENTSTORES_FIXTURES`, else `../shared/fixtures` next to the
    /// package.
    static let fixturesRoot = sharedFixturesDirectory

    /// The Core Data SQLite fixtures folder.
    static var coreDataSQLite: URL { fixturesRoot.appendingPathComponent("coredata-sqlite", isDirectory: true) }

    /// Whether the Core Data fixtures are present (tests that need them are skipped otherwise).
    static var hasCoreDataFixtures: Bool {
        FileManager.default.fileExists(atPath: coreDataSQLite.appendingPathComponent("BNRTestModel").path)
    }

    /// Why fixture tests are skipped.
    static var missingFixturesReason: Comment {
        "Core Data fixtures not found at \(coreDataSQLite.path) (set PERSISTENTSTORES_FIXTURES)"
    }

    /// BNRTestModel's two-version bundle.
    static var sampleBundle: URL {
        coreDataSQLite.appendingPathComponent("BNRTestModel/Sample.xcdatamodeld", isDirectory: true)
    }

    /// EasyLife's single model.
    static var easyLifeModel: URL {
        coreDataSQLite.appendingPathComponent("EasyLife-1.5.0/EasyLife 1.5.0.xcdatamodel", isDirectory: true)
    }

    /// The hand-written three-version bundle in the test resources.
    static var catalogBundle: URL {
        get throws {
            guard let resources = Bundle.module.url(forResource: "Resources", withExtension: nil) else {
                throw CocoaError(.fileNoSuchFile)
            }
            return resources.appendingPathComponent("Catalog.xcdatamodeld", isDirectory: true)
        }
    }

    /// A fresh, empty temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "ModelTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
