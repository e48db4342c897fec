import Foundation
import StoreCore
import StoreTestSupport
import Testing

@Suite("Xcode model files: Core Data fixtures", .enabled(if: ModelTestSupport.hasCoreDataFixtures, ModelTestSupport.missingFixturesReason))
struct XcodeFixtureModelTests {
    @Test func sampleBundleListsBothVersionsAndPicksTheCurrentOne() throws {
        let bundle = try XcodeModelBundle(contentsOf: ModelTestSupport.sampleBundle)
        #expect(bundle.versionNames == ["TestModel", "TestModel 2"])
        #expect(bundle.currentVersionName == "TestModel 2")
        let current = try ObjectModel(contentsOf: ModelTestSupport.sampleBundle)
        #expect(current == (try bundle.model(version: "TestModel 2")))
        #expect(current.entityNames == ["Author", "Book", "Publisher"])
        let all = try ObjectModel.allVersions(ofModelAt: ModelTestSupport.sampleBundle)
        #expect(all.keys.sorted() == ["TestModel", "TestModel 2"])
        #expect(all["TestModel"]?.entityNames == ["Author", "Book"])
    }

    @Test func sampleFirstVersionIsAuthorBookManyToMany() throws {
        let model = try XcodeModelBundle(contentsOf: ModelTestSupport.sampleBundle).model(version: "TestModel")
        #expect(model.versionIdentifiers == [""])
        let author = try #require(model.entity(named: "Author"))
        #expect(author.className == "Author")
        #expect(author.parentEntityName == nil)
        #expect(!author.isAbstract)
        #expect(author.attributes == [
            AttributeDescription("firstName", .string, optional: true),
            AttributeDescription("lastName", .string, optional: true),
        ])
        #expect(author.relationships == [
            RelationshipDescription("books", to: "Book", inverse: "authors", toMany: true, optional: true, deleteRule: .nullify)
        ])
        let book = try #require(model.entity(named: "Book"))
        #expect(book.attributes == [AttributeDescription("title", .string)])
        #expect(book.relationships == [
            RelationshipDescription("authors", to: "Author", inverse: "books", toMany: true, deleteRule: .nullify)
        ])
    }

    @Test func sampleSecondVersionAddsPublisherWithToOneFromBook() throws {
        let model = try XcodeModelBundle(contentsOf: ModelTestSupport.sampleBundle).model(version: "TestModel 2")
        let publisher = try #require(model.relationship("publisher", of: "Book"))
        #expect(!publisher.isToMany)
        #expect(publisher.isOptional)
        #expect(publisher.destinationEntityName == "Publisher")
        #expect(publisher.inverseName == "books")
        #expect(publisher.minCount == 0 && publisher.maxCount == 0)
        let entity = try #require(model.entity(named: "Publisher"))
        #expect(entity.className == nil)
        #expect(entity.attributes.map(\.name) == ["name"])
        #expect(model.inverse(of: publisher)?.name == "books")
    }

    @Test func easyLifeModelHasProjectsAndTodoItems() throws {
        let model = try ObjectModel(contentsOf: ModelTestSupport.easyLifeModel)
        #expect(model.entityNames == ["Project", "TodoItem"])
        #expect(model.entity(named: "Project")?.className == ".Project")
        #expect(model.attributes(of: "Project") == [
            AttributeDescription("name", .string),
            AttributeDescription("priority", .integer16, defaultValue: .int(-1)),
        ])
        #expect(model.attributes(of: "TodoItem") == [
            AttributeDescription("date", .date),
            AttributeDescription("done", .boolean),
            AttributeDescription("name", .string),
            AttributeDescription("notes", .string),
            AttributeDescription("repeats", .integer16, defaultValue: .int(0), minValue: .int(0)),
        ])
        #expect(model.relationships(of: "TodoItem") == [
            RelationshipDescription("blockedBy", to: "TodoItem", inverse: "blocking", toMany: true),
            RelationshipDescription("blocking", to: "TodoItem", inverse: "blockedBy", toMany: true),
            RelationshipDescription("project", to: "Project", inverse: "todoItem"),
        ])
        #expect(model.relationships(of: "Project") == [
            RelationshipDescription("todoItem", to: "TodoItem", inverse: "project", toMany: true)
        ])
    }

    @Test func fixtureModelsRoundTripThroughJSON() throws {
        for url in [ModelTestSupport.sampleBundle, ModelTestSupport.easyLifeModel] {
            let model = try ObjectModel(contentsOf: url)
            #expect(try ObjectModel(jsonData: model.jsonData()) == model)
        }
    }
}

@Suite("Xcode model files: the three-version Catalog bundle")
struct CatalogModelTests {
    static func current() throws -> ObjectModel { try ObjectModel(contentsOf: ModelTestSupport.catalogBundle) }

    @Test func bundleHasThreeVersionsInOrder() throws {
        let bundle = try XcodeModelBundle(contentsOf: ModelTestSupport.catalogBundle)
        #expect(bundle.versionNames == ["Catalog", "Catalog 2", "Catalog 3"])
        #expect(bundle.currentVersionName == "Catalog 3")
        let all = try bundle.allModels()
        #expect(all["Catalog"]?.versionIdentifiers == ["1.0"])
        #expect(all["Catalog 2"]?.versionIdentifiers == ["2.0"])
        #expect(all["Catalog 3"]?.versionIdentifiers == ["3.0"])
        #expect(all["Catalog"]?.entityNames == ["Item", "Shelf"])
        #expect(all["Catalog 2"]?.entityNames == ["Item", "Part", "Shelf"])
        #expect(all["Catalog 3"] == (try Self.current()))
        #expect(throws: StoreError.self) { try bundle.model(version: "Catalog 4") }
    }

    @Test func versionsHaveDifferentHashesWhereTheyChanged() throws {
        let all = try XcodeModelBundle(contentsOf: ModelTestSupport.catalogBundle).allModels()
        let v1 = try #require(all["Catalog"]), v2 = try #require(all["Catalog 2"])
        #expect(v1.versionHash(ofEntity: "Shelf") == v2.versionHash(ofEntity: "Shelf"))
        #expect(v1.versionHash(ofEntity: "Item") != v2.versionHash(ofEntity: "Item"))
        #expect(v1.versionChecksum != v2.versionChecksum)
    }

    @Test func entityOptions() throws {
        let model = try Self.current()
        let record = try #require(model.entity(named: "Record"))
        #expect(record.isAbstract)
        #expect(record.versionHashModifier == "base-1")
        #expect(record.userInfo == ["kind": "base"])
        let item = try #require(model.entity(named: "Item"))
        #expect(item.parentEntityName == "Record")
        #expect(!item.isAbstract)
        #expect(item.className == ".CatalogItem")
        #expect(item.renamingIdentifier == "Product")
        #expect(item.versionHashModifier == "2024")
        #expect(item.uniquenessConstraints == [["identifier"], ["title", "shelf"]])
        #expect(item.userInfo == ["note": "every attribute type", "owner": "catalog"])
        #expect(model.attributes(of: "Item").prefix(2).map(\.name) == ["createdAt", "identifier"])
        #expect(model.rootEntityName(of: "Item") == "Record")
    }

    @Test func everyAttributeTypeAndOption() throws {
        let model = try Self.current()
        func attribute(_ name: String) throws -> AttributeDescription {
            try #require(model.attribute(name, of: "Item"))
        }
        #expect(try attribute("createdAt") == AttributeDescription(
            "createdAt", .date, optional: false, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 86400)),
            minValue: .date(Date(timeIntervalSinceReferenceDate: -31_622_400)),
            maxValue: .date(Date(timeIntervalSinceReferenceDate: 1_577_836_800))))
        #expect(try attribute("identifier") == AttributeDescription(
            "identifier", .uuid, optional: false,
            defaultValue: .uuid(try #require(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00CF4FC964FF")))))
        #expect(try attribute("cachedLabel") == AttributeDescription("cachedLabel", .string, transient: true))
        #expect(try attribute("count16") == AttributeDescription(
            "count16", .integer16, defaultValue: .int(-1), minValue: .int(-5), maxValue: .int(500)))
        #expect(try attribute("count32") == AttributeDescription("count32", .integer32, optional: false, defaultValue: .int(70000)))
        #expect(try attribute("count64") == AttributeDescription(
            "count64", .integer64, optional: false, indexed: true, defaultValue: .int(9_000_000_000), minValue: .int(0)))
        #expect(try attribute("homepage") == AttributeDescription(
            "homepage", .uri, defaultValue: .uri(try #require(URL(string: "https://example.com/items")))))
        #expect(try attribute("inStock") == AttributeDescription("inStock", .boolean, optional: false, defaultValue: .bool(true)))
        #expect(try attribute("origin") == AttributeDescription("origin", .objectID))
        #expect(try attribute("photo") == AttributeDescription(
            "photo", .binaryData, minLength: 0, maxLength: 1_048_576, allowsExternalBinaryDataStorage: true))
        #expect(try attribute("price") == AttributeDescription(
            "price", .decimal, defaultValue: .decimal(try #require(Decimal(string: "9.99", locale: Locale(identifier: "en_US_POSIX")))),
            minValue: .decimal(0), maxValue: .decimal(try #require(Decimal(string: "99999.99", locale: Locale(identifier: "en_US_POSIX"))))))
        #expect(try attribute("rating") == AttributeDescription(
            "rating", .double, defaultValue: .double(2.5), minValue: .double(0), maxValue: .double(5)))
        #expect(try attribute("tags") == AttributeDescription(
            "tags", .transformable, valueTransformerName: "NSSecureUnarchiveFromData"))
        #expect(try attribute("title") == AttributeDescription(
            "title", .string, optional: false, defaultValue: .string("Untitled"), minLength: 1, maxLength: 80,
            regularExpression: "[A-Z].*", renamingIdentifier: "name", versionHashModifier: "title-2",
            userInfo: ["searchable": "YES"]))
        #expect(try attribute("weight") == AttributeDescription("weight", .float, defaultValue: .double(0.25)))
        #expect(model.attribute("label", of: "Part")?.defaultValue == .string(""))
        #expect(model.attribute("label", of: "Part")?.isOptional == false)
        // Every AttributeType appears.
        let types = Set(model.entityNames.flatMap { model.attributes(of: $0).map(\.type) })
        #expect(types == Set(AttributeType.allCases))
    }

    @Test func relationshipsWithEveryOption() throws {
        let model = try Self.current()
        #expect(model.relationship("parts", of: "Item") == RelationshipDescription(
            "parts", to: "Part", inverse: "item", toMany: true, ordered: true, minCount: 1, maxCount: 10,
            deleteRule: .cascade, renamingIdentifier: "components"))
        #expect(model.relationship("related", of: "Item") == RelationshipDescription(
            "related", to: "Item", toMany: true, deleteRule: .noAction, versionHashModifier: "rel-1",
            userInfo: ["symmetric": "NO"]))
        #expect(model.relationship("cachedShelf", of: "Item") == RelationshipDescription(
            "cachedShelf", to: "Shelf", transient: true))
        #expect(model.relationship("shelf", of: "Item") == RelationshipDescription("shelf", to: "Shelf", inverse: "items"))
        #expect(model.relationship("item", of: "Part") == RelationshipDescription(
            "item", to: "Item", inverse: "parts", optional: false, deleteRule: .deny))
        #expect(model.relationship("items", of: "Shelf")?.deleteRule == .cascade)
        let rules = Set(model.entityNames.flatMap { model.relationships(of: $0).map(\.deleteRule) })
        #expect(rules == Set(DeleteRule.allCases))
    }

    @Test func fetchedPropertiesIndexesTemplatesAndConfigurations() throws {
        let model = try Self.current()
        let item = try #require(model.entity(named: "Item"))
        #expect(item.fetchedProperties == [
            FetchedPropertyDescription("cheaperItems", entity: "Item", predicate: "price < $FETCH_SOURCE.price")
        ])
        #expect(item.fetchIndexes == [
            FetchIndexDescription("byTitle", elements: [.init(property: "title")]),
            FetchIndexDescription(
                "byPriceAndRating", elements: [.init(property: "price", ascending: false), .init(property: "rating")]),
        ])
        #expect(model.entity(named: "Shelf")?.fetchIndexes == [
            FetchIndexDescription("compoundIndex1", elements: [.init(property: "code")])
        ])
        #expect(model.fetchRequestTemplates == [
            FetchRequestTemplate("AllShelves", entity: "Shelf"),
            FetchRequestTemplate(
                "CheapItems", entity: "Item", predicate: "price < $LIMIT", fetchLimit: 20, fetchBatchSize: 5,
                includesSubentities: false, returnsObjectsAsFaults: false),
        ])
        #expect(model.fetchRequestTemplate(named: "CheapItems")?.predicateFormat == "price < $LIMIT")
        #expect(model.configurations == ["Inventory": ["Item", "Part"], "Layout": ["Shelf"]])
        #expect(model.entityNames(inConfiguration: "Layout") == ["Shelf"])
    }

    @Test func modelRoundTripsThroughJSONFile() throws {
        let model = try Self.current()
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("Catalog.json")
        try model.writeJSON(to: file)
        let reread = try ObjectModel(contentsOf: file)
        #expect(reread == model)
        #expect(reread.entityVersionHashesByName == model.entityVersionHashesByName)
    }
}

@Suite("Xcode model files: bad input")
struct XcodeModelErrorTests {
    /// Writes `xml` as `<dir>/Bad.xcdatamodel/contents` and reads it.
    static func read(_ xml: String) throws -> ObjectModel {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("Bad.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(xml.utf8).write(to: model.appendingPathComponent("contents"))
        return try ObjectModel(contentsOf: model)
    }

    static func error(_ xml: String) -> StoreError? {
        do {
            _ = try read(xml)
            return nil
        } catch let error as StoreError {
            return error
        } catch {
            return StoreError(.coreData, "unexpected \(error)")
        }
    }

    @Test func unknownElementsAndAttributesAreIgnored() throws {
        let model = try Self.read("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model futureOption="1">
                <futureThing><nested/></futureThing>
                <entity name="A" syncable="YES" spotlight="YES">
                    <attribute name="a" optional="YES" attributeType="String" someNewFlag="YES"/>
                    <somethingNew value="1"/>
                </entity>
                <elements><element name="A" positionX="0" positionY="0" width="1" height="1"/></elements>
            </model>
            """)
        #expect(model.entityNames == ["A"])
        #expect(model.attributes(of: "A") == [AttributeDescription("a", .string)])
        #expect(model.versionIdentifiers == [])
    }

    @Test(arguments: [
        ("<model><entity name=\"A\">\n<attribute name=\"x\" attributeType=\"String\"></entity></model>", "malformed XML at line"),
        ("", "malformed XML"),
        ("<plist><dict/></plist>", "<plist> at line 1: the root element is <plist>, not <model>"),
        ("<model>\n<entity syncable=\"YES\"/></model>", "<entity> at line 2: <entity> has no name"),
        ("<model><entity name=\"A\">\n\n<attribute name=\"x\" attributeType=\"Undefined\"/></entity></model>",
         "<attribute name=\"x\"> at line 3: attribute A.x has attributeType \"Undefined\", which is not supported"),
        ("<model><entity name=\"A\"><attribute name=\"x\"/></entity></model>", "<attribute name=\"x\"> at line 1: <attribute> has no attributeType"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Integer 16\" defaultValueString=\"70000\"/></entity></model>",
         "defaultValueString \"70000\", which is not a valid Integer 16"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Double\" minValueString=\"low\"/></entity></model>",
         "minValueString \"low\", which is not a valid Double"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Boolean\" defaultValueString=\"maybe\"/></entity></model>",
         "defaultValueString \"maybe\", which is not a valid Boolean"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Binary\" defaultValueString=\"abc\"/></entity></model>",
         "has a default value, which Binary attributes cannot have"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"String\" maxValueString=\"-3\"/></entity></model>",
         "maxValueString \"-3\", which is not a length"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"String\" optional=\"MAYBE\"/></entity></model>",
         "optional is \"MAYBE\" (expected YES or NO)"),
        ("<model><entity name=\"A\"><relationship name=\"r\" toMany=\"YES\" deletionRule=\"Explode\" destinationEntity=\"A\"/></entity></model>",
         "relationship A.r has deletionRule \"Explode\""),
        ("<model><entity name=\"A\"><relationship name=\"r\" toMany=\"YES\" minCount=\"x\" destinationEntity=\"A\"/></entity></model>",
         "minCount \"x\", which is not a count"),
        ("<model><entity name=\"A\"><relationship name=\"r\" deletionRule=\"Nullify\"/></entity></model>",
         "<relationship> has no destinationEntity"),
        ("<model><entity name=\"A\"><relationship name=\"r\" destinationEntity=\"Nowhere\"/></entity></model>",
         "is invalid: Invalid model: relationship A.r has unknown destination entity Nowhere"),
        ("<model><entity name=\"A\"><fetchedProperty name=\"f\"/></entity></model>", "fetched property A.f has no <fetchRequest>"),
        ("<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"String\"/><fetchIndex name=\"i\"><fetchIndexElement property=\"x\" type=\"Hash\"/></fetchIndex></entity></model>",
         "element type \"Hash\" (expected Binary or RTree)"),
        ("<model><entity name=\"A\"><fetchIndex name=\"i\"><fetchIndexElement property=\"zzz\"/></fetchIndex></entity></model>",
         "fetch index A.i names unknown property zzz"),
        ("<model><entity name=\"A\"/><fetchRequest name=\"T\" entity=\"B\"/></model>", "fetch request template T fetches unknown entity B"),
        ("<model><entity name=\"A\"/><configuration name=\"C\"><memberEntity name=\"B\"/></configuration></model>",
         "configuration C names unknown entity B"),
        ("<model><entity name=\"A\"/><entity name=\"A\"/></model>", "entity A is declared twice"),
        ("<model>" + String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100) + "</model>",
         "elements are nested deeper than 64 levels"),
    ])
    func malformedModelsAreClearErrors(xml: String, expected: String) throws {
        let error = try #require(Self.error(xml))
        #expect(error.code == .coreData)
        #expect(error.message.contains("Bad.xcdatamodel/contents"), "\(error.message)")
        #expect(error.message.contains(expected), "\(error.message)")
        #expect(error.fileURL?.lastPathComponent == "contents")
    }

    /// The model file's bytes as they are (not necessarily UTF-8), or the error reading them gives.
    static func error(bytes: [UInt8]) throws -> StoreError? {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = directory.appendingPathComponent("Bad.xcdatamodel", isDirectory: true)
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data(bytes).write(to: model.appendingPathComponent("contents"))
        do {
            _ = try ObjectModel(contentsOf: model)
            return nil
        } catch let error as StoreError {
            return error
        }
    }

    /// Foundation's XMLParser killed the process (SIGILL) on these five bytes: an element name
    /// that is not valid UTF-8. Now a malformed-XML error naming the file and position.
    @Test func anElementNameThatIsNotUTF8IsAnErrorNotACrash() throws {
        let error = try #require(try Self.error(bytes: [0x3C, 0xFF, 0xFF, 0xFF, 0x0A]))
        #expect(error.code == .coreData)
        #expect(error.message.contains("Bad.xcdatamodel/contents"), "\(error.message)")
        #expect(error.message.contains("malformed XML at line 1"), "\(error.message)")
    }

    /// A "billion laughs" entity chain used in an attribute value is refused at once (libxml2's
    /// own amplification limits stay on, and any document type is refused), never expanded.
    @Test func aDocumentTypeWithEntitiesIsRefused() throws {
        var dtd = "<!DOCTYPE model [<!ENTITY l0 \"ha\">"
        for level in 1...9 { dtd += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">" }
        dtd += "]>"
        let xml = "<?xml version=\"1.0\"?>\n" + dtd + "\n<model><entity name=\"&l9;\"/></model>"
        let error = try #require(Self.error(xml))
        #expect(error.code == .coreData)
        #expect(
            error.message.contains("document type declaration") || error.message.contains("entity reference loop"),
            "\(error.message)")
        let plain = try #require(Self.error("<?xml version=\"1.0\"?>\n<!DOCTYPE model>\n<model><entity name=\"A\"/></model>"))
        #expect(plain.message.contains("a document type declaration at line"), "\(plain.message)")
    }

    @Test func errorsNameTheEntityAndProperty() throws {
        let error = try #require(Self.error(
            "<model><entity name=\"A\"><attribute name=\"x\" attributeType=\"Colour\"/></entity></model>"))
        #expect(error.entityName == "A")
        #expect(error.propertyName == "x")
    }

    @Test func externalEntitiesAreNotResolved() throws {
        let secret = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: secret) }
        let file = secret.appendingPathComponent("secret.txt")
        try Data("TOPSECRET".utf8).write(to: file)
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE model [<!ENTITY leak SYSTEM "\(file.absoluteString)">]>
            <model><entity name="A"><userInfo><entry key="k" value="&leak;"/></userInfo></entity></model>
            """
        do {
            let model = try Self.read(xml)
            let value: String = model.entity(named: "A")?.userInfo["k"] ?? ""
            #expect(!value.contains("TOPSECRET"))
        } catch let error as StoreError {
            #expect(!error.message.contains("TOPSECRET"))
        }
    }

    @Test func bundleErrors() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fm = FileManager.default
        let minimal = Data("<model><entity name=\"A\"/></model>".utf8)

        // One version and no .xccurrentversion: that version is current.
        let single = directory.appendingPathComponent("Single.xcdatamodeld")
        try fm.createDirectory(at: single.appendingPathComponent("Only.xcdatamodel"), withIntermediateDirectories: true)
        try minimal.write(to: single.appendingPathComponent("Only.xcdatamodel/contents"))
        #expect(try XcodeModelBundle(contentsOf: single).currentVersionName == "Only")
        #expect(try ObjectModel(contentsOf: single).entityNames == ["A"])

        // Two versions and no .xccurrentversion: ambiguous.
        try fm.createDirectory(at: single.appendingPathComponent("Only 2.xcdatamodel"), withIntermediateDirectories: true)
        try minimal.write(to: single.appendingPathComponent("Only 2.xcdatamodel/contents"))
        let ambiguous = try #require(throws: StoreError.self) { try XcodeModelBundle(contentsOf: single) }
        #expect(ambiguous.message.contains("no .xccurrentversion"))

        // .xccurrentversion naming a version that is not there.
        try Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>Gone.xcdatamodel</string></dict></plist>
            """.utf8).write(to: single.appendingPathComponent(".xccurrentversion"))
        let gone = try #require(throws: StoreError.self) { try ObjectModel(contentsOf: single) }
        #expect(gone.message.contains("Gone.xcdatamodel"))

        // An empty bundle, a compiled model, a missing path, an Xcode 3 folder.
        let empty = directory.appendingPathComponent("Empty.xcdatamodeld")
        try fm.createDirectory(at: empty, withIntermediateDirectories: true)
        #expect(throws: StoreError.self) { try ObjectModel(contentsOf: empty) }
        let mom = directory.appendingPathComponent("Model.momd")
        try fm.createDirectory(at: mom, withIntermediateDirectories: true)
        let compiled = try #require(throws: StoreError.self) { try ObjectModel(contentsOf: mom) }
        #expect(compiled.message.contains("compiled Core Data model"))
        #expect(throws: StoreError.self) { try ObjectModel(contentsOf: directory.appendingPathComponent("Nope.xcdatamodel")) }
        let old = directory.appendingPathComponent("Old.xcdatamodel")
        try fm.createDirectory(at: old, withIntermediateDirectories: true)
        let xcode3 = try #require(throws: StoreError.self) { try ObjectModel(contentsOf: old) }
        #expect(xcode3.message.contains("no contents file"))
    }

    @Test func anXccurrentversionOfSharedReferencesIsRefusedInSeconds() throws {
        let directory = try ModelTestSupport.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundle = directory.appendingPathComponent("Bomb.xcdatamodeld")
        try FileManager.default.createDirectory(at: bundle.appendingPathComponent("A.xcdatamodel"), withIntermediateDirectories: true)
        try Data("<model><entity name=\"A\"/></model>".utf8).write(to: bundle.appendingPathComponent("A.xcdatamodel/contents"))
        let versionFile = bundle.appendingPathComponent(".xccurrentversion")
        try HostilePropertyList.sharedArrays(depth: 40).write(to: versionFile)
        let error = storeError(within: 10) { _ = try ObjectModel(contentsOf: bundle) }
        #expect(error?.message.contains(versionFile.path) == true, "\(String(describing: error))")
        #expect(error?.message.contains("expands to more than") == true)
    }
}

@Suite("JSON models")
struct JSONModelTests {
    @Test func handWrittenJSONUsesTheDSLDefaults() throws {
        let json = """
            {"entities": [
              {"name": "Team", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "players", "destinationEntityName": "Player", "inverseName": "team",
                                  "isToMany": true, "deleteRule": "cascade"}]},
              {"name": "Player", "attributes": [{"name": "age", "type": "integer16", "defaultValue": {"int": 18}}],
               "relationships": [{"name": "team", "destinationEntityName": "Team", "inverseName": "players"}],
               "fetchedProperties": [{"name": "teammates", "destinationEntityName": "Player",
                                      "predicateFormat": "team == $FETCH_SOURCE.team"}]}
            ],
            "fetchRequestTemplates": [{"name": "Adults", "entityName": "Player", "predicateFormat": "age >= 18"}]}
            """
        let model = try ObjectModel(jsonData: Data(json.utf8))
        let expected = try ObjectModel(fetchRequestTemplates: [FetchRequestTemplate("Adults", entity: "Player", predicate: "age >= 18")]) {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("age", .integer16, defaultValue: 18)
                Relationship("team", to: "Team", inverse: "players")
                FetchedPropertyDescription("teammates", entity: "Player", predicate: "team == $FETCH_SOURCE.team")
            }
        }
        #expect(model == expected)
        #expect(try ObjectModel(jsonData: expected.jsonData()) == expected)
    }

    @Test(arguments: [
        (AttributeType.integer16, StoreValue.int(70000)), (.integer32, .int(3_000_000_000)), (.boolean, .string("yes")),
        (.date, .int(5)),
    ])
    func defaultValueOfTheWrongTypeOrRangeIsRejected(type: AttributeType, value: StoreValue) {
        #expect(type.coerce(value) == nil)
        #expect(throws: StoreError.self) {
            try ObjectModel { Entity("A") { Attribute("x", type, defaultValue: value) } }
        }
    }

    @Test func fetchedPropertyNamesMustNotClash() {
        #expect(throws: StoreError.self) {
            try ObjectModel {
                Entity("A") {
                    Attribute("x", .string)
                    FetchedPropertyDescription("x", entity: "A")
                }
            }
        }
    }
}
