import Foundation
import StoreCore
import Testing

@Suite("Model compatibility with store metadata")
struct ModelCompatibilityTests {
    static func zoo(legs: AttributeType = .integer16, extra: Bool = false, withCage: Bool = true) throws -> ObjectModel {
        var entities = [
            Entity("Animal") {
                Attribute("name", .string)
                Attribute("legs", legs)
                if extra { Attribute("age", .integer16) }
            },
            Entity("Keeper") {
                Attribute("name", .string)
            },
        ]
        if withCage { entities.append(Entity("Cage") { Attribute("code", .string) }) }
        return try ObjectModel(
            entities: entities, configurations: ["Animals": ["Animal"], "Staff": ["Keeper"]], versionIdentifiers: ["zoo-1"])
    }

    static func metadata(for model: ObjectModel) -> StoreMetadata {
        JSONFileTestStore.standardMetadata(identifier: UUID().uuidString, model: model)
    }

    @Test func standardMetadataCarriesHashesIdentifiersAndModel() throws {
        let model = try Self.zoo()
        let metadata = Self.metadata(for: model)
        #expect(metadata[MetadataKey.storeType] == .string("JSONFileTest"))
        let hashes = try #require(metadata[MetadataKey.versionHashes]?.dictionaryValue)
        #expect(hashes.keys.sorted() == ["Animal", "Cage", "Keeper"])
        #expect(hashes.values.allSatisfy { $0.dataValue?.count == 32 })
        #expect(hashes["Animal"]?.dataValue == model.versionHash(ofEntity: "Animal"))
        #expect(metadata[MetadataKey.versionHashesVersion] == .int(3))
        #expect(metadata[MetadataKey.versionIdentifiers] == .array(["zoo-1"]))
        let json = try #require(metadata[MetadataKey.modelJSON]?.dataValue)
        #expect(try ObjectModel(jsonData: json) == model)
        // Survives a binary property list (what SQLite's Z_METADATA holds).
        let plist = try MetadataValue.propertyListData(metadata)
        let reread = try #require(MetadataValue.metadata(fromPropertyList: plist))
        #expect(reread == metadata)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: reread))
    }

    @Test func newStoreWithoutHashesIsCompatible() throws {
        let check = ModelCompatibility(model: try Self.zoo(), configuration: nil, storeMetadata: [MetadataKey.storeType: "X"])
        #expect(check.isCompatible)
        #expect(check.method == .noVersionHashes)
        let empty: StoreMetadata = [MetadataKey.versionHashes: .dictionary([:])]
        #expect(try Self.zoo().isConfiguration(nil, compatibleWithStoreMetadata: empty))
    }

    @Test func sameModelIsCompatible() throws {
        let check = ModelCompatibility(model: try Self.zoo(), configuration: nil, storeMetadata: Self.metadata(for: try Self.zoo()))
        #expect(check.isCompatible)
        #expect(check.method == .versionHashes)
        #expect(check.error() == nil)
    }

    @Test func changedEntityIsNamedWithItsProperties() throws {
        let stored = Self.metadata(for: try Self.zoo())
        let model = try Self.zoo(legs: .integer32, extra: true)
        let check = ModelCompatibility(model: model, configuration: nil, storeMetadata: stored)
        #expect(!check.isCompatible)
        #expect(check.differences == [
            .init(entityName: "Animal", kind: .versionHashDiffers(properties: ["+age", "~legs"]))
        ])
        let error = try #require(check.error(storeURL: URL(fileURLWithPath: "/tmp/zoo.store")))
        #expect(error.code == .persistentStoreIncompatibleVersionHash)
        #expect(error.code.rawValue == 134100)
        #expect(error.message.hasPrefix("The model used to open the store is incompatible with the one used to create the store"))
        #expect(error.message.contains("Animal (version hash differs: +age, ~legs)"))
        #expect(error.message.contains("/tmp/zoo.store"))
        #expect(error.entityName == "Animal")
        #expect(!model.isConfiguration(nil, compatibleWithStoreMetadata: stored))
        let thrown = try #require(throws: StoreError.self) {
            try model.checkConfiguration(nil, compatibleWithStoreMetadata: stored)
        }
        #expect(thrown.message.contains("Animal"))
    }

    @Test func addedAndRemovedEntitiesDiffer() throws {
        let stored = Self.metadata(for: try Self.zoo(withCage: false))
        let check = ModelCompatibility(model: try Self.zoo(), configuration: nil, storeMetadata: stored)
        #expect(check.differences == [.init(entityName: "Cage", kind: .onlyInModel)])
        let reverse = ModelCompatibility(
            model: try Self.zoo(withCage: false), configuration: nil, storeMetadata: Self.metadata(for: try Self.zoo()))
        #expect(reverse.differences == [.init(entityName: "Cage", kind: .onlyInStore)])
        #expect(reverse.error()?.message.contains("Cage (in the store, not in the model)") == true)
    }

    @Test func onlyTheConfigurationsEntitiesAreCompared() throws {
        let stored = Self.metadata(for: try Self.zoo())
        let changedAnimal = try Self.zoo(legs: .integer64)
        #expect(changedAnimal.isConfiguration("Staff", compatibleWithStoreMetadata: stored))
        #expect(!changedAnimal.isConfiguration("Animals", compatibleWithStoreMetadata: stored))
        #expect(!changedAnimal.isConfiguration(nil, compatibleWithStoreMetadata: stored))
    }

    @Test func hashesWithoutStoredModelStillNameTheEntity() throws {
        var stored = Self.metadata(for: try Self.zoo())
        stored[MetadataKey.modelJSON] = nil
        let check = ModelCompatibility(model: try Self.zoo(extra: true), configuration: nil, storeMetadata: stored)
        #expect(check.differences == [.init(entityName: "Animal", kind: .versionHashDiffers(properties: []))])
        #expect(check.error()?.message.contains("Animal (version hash differs)") == true)
    }

    @Test func malformedHashValuesDiffer() throws {
        var stored = Self.metadata(for: try Self.zoo())
        stored[MetadataKey.versionHashes] = .dictionary(["Animal": "not data", "Keeper": .data(Data()), "Cage": .int(3)])
        let check = ModelCompatibility(model: try Self.zoo(), configuration: nil, storeMetadata: stored)
        #expect(check.differingEntityNames == ["Animal", "Cage", "Keeper"])
    }

    // MARK: Stores written by Core Data

    static func coreDataMetadata(entities: [String]) -> StoreMetadata {
        [
            MetadataKey.storeType: "SQLite",
            MetadataKey.storeUUID: .string(UUID().uuidString),
            MetadataKey.persistenceFrameworkVersion: 849,
            MetadataKey.versionHashesVersion: 3,
            MetadataKey.versionIdentifiers: .array([""]),
            MetadataKey.versionHashes: .dictionary(
                Dictionary(uniqueKeysWithValues: entities.map { ($0, .data(Data(repeating: 0xAB, count: 32))) })),
        ]
    }

    @Test func coreDataStoresAreComparedStructurally() throws {
        let model = try Self.zoo()
        let metadata = Self.coreDataMetadata(entities: ["Animal", "Keeper", "Cage"])
        let check = ModelCompatibility(model: model, configuration: nil, storeMetadata: metadata)
        #expect(check.isCompatible)
        #expect(check.method == .structural)
        #expect(model.isConfiguration(nil, compatibleWithStoreMetadata: metadata))

        let strict = ModelCompatibility(model: model, configuration: nil, storeMetadata: metadata, strict: true)
        #expect(strict.method == .versionHashes)
        #expect(strict.differingEntityNames == ["Animal", "Cage", "Keeper"])
        #expect(throws: StoreError.self) { try model.checkConfiguration(nil, compatibleWithStoreMetadata: metadata, strict: true) }

        let missing = ModelCompatibility(
            model: model, configuration: nil, storeMetadata: Self.coreDataMetadata(entities: ["Animal", "Keeper", "Gone"]))
        #expect(missing.differences == [.init(entityName: "Cage", kind: .onlyInModel), .init(entityName: "Gone", kind: .onlyInStore)])
    }

    @Test func structuralCheckComparesReportedProperties() throws {
        let model = try Self.zoo()
        let metadata = Self.coreDataMetadata(entities: ["Animal", "Keeper", "Cage"])
        let good: [String: Set<String>] = ["Animal": ["name", "legs"], "Keeper": ["name"], "Cage": ["code"]]
        #expect(ModelCompatibility(model: model, configuration: nil, storeMetadata: metadata, storedSchema: good).isCompatible)
        var bad = good
        bad["Animal"] = ["name", "weight"]
        let check = ModelCompatibility(model: model, configuration: nil, storeMetadata: metadata, storedSchema: bad)
        #expect(check.differences == [.init(entityName: "Animal", kind: .propertiesDiffer(["+legs", "-weight"]))])
    }

    @Test(.enabled(if: ModelTestSupport.hasCoreDataFixtures, ModelTestSupport.missingFixturesReason))
    func sampleFixtureHashesAgainstItsModels() throws {
        // The hashes Core Data wrote into BNRTestModel/TestModel.sqlite (see the fixture README).
        let metadata: StoreMetadata = [
            MetadataKey.storeType: "SQLite",
            MetadataKey.persistenceFrameworkVersion: 637,
            MetadataKey.versionHashesVersion: 3,
            MetadataKey.versionHashes: .dictionary([
                "Book": .data(try #require(Data(base64Encoded: "KSySPkjCy+6loRO7doX7xjq4AMC7wkKtF6Dy4qHgj1w="))),
                "Author": .data(try #require(Data(base64Encoded: "y8H1wnTr9BRHTE41D3OxSx3TVsIngq50iIENWXGIxG0="))),
            ]),
        ]
        let bundle = try XcodeModelBundle(contentsOf: ModelTestSupport.sampleBundle)
        let writer = try bundle.model(version: "TestModel")
        let current = try bundle.model(version: "TestModel 2")
        #expect(writer.isConfiguration(nil, compatibleWithStoreMetadata: metadata))
        let check = ModelCompatibility(model: current, configuration: nil, storeMetadata: metadata)
        #expect(check.differences == [.init(entityName: "Publisher", kind: .onlyInModel)])
        // Core Data's hashes are not reproduced: strict checking names both entities.
        #expect(throws: StoreError.self) { try writer.checkConfiguration(nil, compatibleWithStoreMetadata: metadata, strict: true) }
    }
}
