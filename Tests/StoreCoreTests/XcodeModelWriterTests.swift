import Foundation
import StoreCore
import StoreTestSupport
import Testing

/// `ObjectModel.xcodeModelContents` read back by the Xcode model reader gives the same model,
/// and `coreDataVersionHashes` are Core Data's.
struct XcodeModelWriterTests {
    /// A model that uses every part the `contents` format has.
    static func everything() throws -> ObjectModel {
        try ObjectModel(
            configurations: ["Shapes": ["Shape", "Circle"]], versionIdentifiers: ["v2 \"quoted\" & <angled>"],
            fetchRequestTemplates: [FetchRequestTemplate("BigCircles", entity: "Circle", predicate: "radius > 10", fetchLimit: 5)]
        ) {
            Entity("Shape", abstract: true, className: "Shape", versionHashModifier: "2", uniquenessConstraints: [["color", "label"]],
                   userInfo: ["note": "line one\nline two"],
                   fetchIndexes: [FetchIndexDescription("byColor", elements: [.init(property: "color", ascending: false)])]) {
                Attribute("color", .string, optional: false, defaultValue: "red", minLength: 1, maxLength: 20, regularExpression: "[a-z]+")
                Attribute("label", .string, indexed: true, renamingIdentifier: "title")
                Attribute("scratch", .string, transient: true)
                Relationship("canvases", to: "Canvas", inverse: "shapes", toMany: true)
                FetchedPropertyDescription("sameColor", entity: "Shape", predicate: "color == $FETCH_SOURCE.color")
            }
            Entity("Circle", parent: "Shape") {
                Attribute("radius", .double, defaultValue: 8.5, minValue: 0.0, maxValue: 1e6)
                Attribute("created", .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 1000.25)))
                Attribute("weight", .decimal, defaultValue: .decimal(Decimal(string: "1.25") ?? 0))
                Attribute("id", .uuid)
                Attribute("picture", .binaryData, allowsExternalBinaryDataStorage: true)
                Attribute("count", .integer64, defaultValue: 3, minValue: 1, maxValue: 99, versionHashModifier: "x")
                Attribute("flag", .boolean, defaultValue: true)
            }
            Entity("Canvas") {
                Attribute("name", .string, userInfo: ["k": "v"])
                Relationship("shapes", to: "Shape", inverse: "canvases", toMany: true, ordered: true, minCount: 1, maxCount: 10, deleteRule: .cascade)
                Relationship("favorite", to: "Shape", optional: false, deleteRule: .deny)
                Relationship("parent", to: "Canvas", inverse: "parent", deleteRule: .noAction)
            }
        }
    }

    @Test func everyPartRoundTrips() throws {
        let model = try Self.everything()
        try withTemporaryDirectory { directory in
            let folder = directory.appendingPathComponent("Everything.xcdatamodel")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try model.xcodeModelContents().write(to: folder.appendingPathComponent("contents"))
            let readBack = try ObjectModel(contentsOf: folder)
            #expect(readBack.entities == model.entities)
            #expect(readBack.configurations == model.configurations)
            #expect(readBack.versionIdentifiers == model.versionIdentifiers)
            #expect(readBack.fetchRequestTemplates == model.fetchRequestTemplates)
            #expect(readBack.entityVersionHashesByName == model.entityVersionHashesByName)
            #expect(readBack.coreDataVersionHashes == model.coreDataVersionHashes)
        }
    }

    @Test(.enabled(if: ModelTestSupport.hasCoreDataFixtures, ModelTestSupport.missingFixturesReason))
    func fixtureModelsRoundTrip() throws {
        for url in [ModelTestSupport.easyLifeModel, ModelTestSupport.sampleBundle.appendingPathComponent("TestModel.xcdatamodel")] {
            let model = try ObjectModel(contentsOf: url)
            try withTemporaryDirectory { directory in
                let folder = directory.appendingPathComponent("Copy.xcdatamodel")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try model.xcodeModelContents().write(to: folder.appendingPathComponent("contents"))
                let readBack = try ObjectModel(contentsOf: folder)
                #expect(readBack.entities == model.entities)
                #expect(readBack.coreDataVersionHashes == model.coreDataVersionHashes)
            }
        }
    }

    @Test(
        "Core Data's version hashes of the BNR model are the ones Core Data wrote into TestModel.sqlite",
        .enabled(if: ModelTestSupport.hasCoreDataFixtures, ModelTestSupport.missingFixturesReason))
    func coreDataHashesOfTheSampleModel() throws {
        let model = try XcodeModelBundle(contentsOf: ModelTestSupport.sampleBundle).model(version: "TestModel")
        let hashes = model.coreDataVersionHashes.mapValues { $0.base64EncodedString() }
        #expect(hashes == [
            "Book": "KSySPkjCy+6loRO7doX7xjq4AMC7wkKtF6Dy4qHgj1w=", "Author": "y8H1wnTr9BRHTE41D3OxSx3TVsIngq50iIENWXGIxG0=",
        ])
        // The second version adds Publisher: Book changes with it only if Book's own parts do.
        let second = try XcodeModelBundle(contentsOf: ModelTestSupport.sampleBundle).model(version: "TestModel 2")
        #expect(second.coreDataVersionHashes["Publisher"] != nil)
    }

    @Test func coreDataHashesFollowTheHashedParts() throws {
        func hash(_ attribute: AttributeDescription) throws -> Data? {
            try ObjectModel { Entity("E") { attribute } }.coreDataVersionHashes["E"]
        }
        let base = try hash(Attribute("a", .string))
        #expect(try hash(Attribute("a", .string, defaultValue: "x", renamingIdentifier: "b", userInfo: ["k": "v"])) == base)
        #expect(try hash(Attribute("a", .string, optional: false)) != base)
        #expect(try hash(Attribute("a", .integer32)) != base)
        #expect(try hash(Attribute("a", .string, versionHashModifier: "1")) != base)
        // Transient properties are not part of an entity's hash.
        let withTransient = try ObjectModel { Entity("E") { Attribute("a", .string); Attribute("t", .string, transient: true) } }
        #expect(withTransient.coreDataVersionHashes["E"] == base)
    }
}
