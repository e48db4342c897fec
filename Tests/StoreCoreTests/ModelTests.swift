import Foundation
import StoreCore
import Testing

@Suite struct ModelTests {
    static func league() throws -> ObjectModel {
        try ObjectModel {
            Entity("Team") {
                Attribute("name", .string)
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Attribute("lastName", .string, optional: false, defaultValue: "")
                Relationship("team", to: "Team", inverse: "players")
            }
        }
    }

    @Test func dslBuildsEntitiesAndProperties() throws {
        let model = try Self.league()
        #expect(model.entityNames == ["Team", "Player"])
        #expect(model.attribute("lastName", of: "Player")?.isOptional == false)
        #expect(model.relationship("players", of: "Team")?.deleteRule == .cascade)
        #expect(model.inverse(of: try #require(model.relationship("team", of: "Player")))?.name == "players")
    }

    @Test func missingInverseIsAModelError() {
        let error = #expect(throws: StoreError.self) {
            try ObjectModel {
                Entity("Team") { Relationship("players", to: "Player", inverse: "team", toMany: true) }
                Entity("Player") { Attribute("name", .string) }
            }
        }
        #expect(error?.code == .coreData)
        #expect(error?.message.contains("Team.players") == true)
        #expect(error?.message.contains("does not have") == true)
    }

    @Test func inverseThatDoesNotPointBackIsAModelError() {
        let error = #expect(throws: StoreError.self) {
            try ObjectModel {
                Entity("Team") {
                    Relationship("players", to: "Player", inverse: "team", toMany: true)
                    Relationship("captain", to: "Player", inverse: "team")
                }
                Entity("Player") { Relationship("team", to: "Team", inverse: "captain") }
            }
        }
        #expect(error?.message.contains("does not point back") == true)
    }

    @Test func unknownDestinationAndParentAreModelErrors() {
        #expect(throws: StoreError.self) {
            try ObjectModel { Entity("A") { Relationship("b", to: "B") } }
        }
        #expect(throws: StoreError.self) {
            try ObjectModel { Entity("A", parent: "Nowhere") }
        }
    }

    @Test func inheritanceCycleAndRedeclaredPropertyAreModelErrors() {
        #expect(throws: StoreError.self) {
            try ObjectModel {
                Entity("A", parent: "B")
                Entity("B", parent: "A")
            }
        }
        let error = #expect(throws: StoreError.self) {
            try ObjectModel {
                Entity("Shape") { Attribute("color", .string) }
                Entity("Circle", parent: "Shape") { Attribute("color", .string) }
            }
        }
        #expect(error?.message.contains("Circle.color") == true)
    }

    @Test func defaultValueOfTheWrongTypeIsAModelError() {
        #expect(throws: StoreError.self) {
            try ObjectModel { Entity("A") { Attribute("n", .integer16, defaultValue: "x") } }
        }
        #expect(throws: StoreError.self) {
            try ObjectModel { Entity("A") { Attribute("n", .integer16, defaultValue: .int(70_000)) } }
        }
    }

    @Test func inheritanceIsResolved() throws {
        let model = try ObjectModel {
            Entity("Shape", abstract: true) { Attribute("color", .string) }
            Entity("Circle", parent: "Shape") { Attribute("radius", .float, defaultValue: 8.0) }
            Entity("Polygon", parent: "Shape")
        }
        #expect(model.attributes(of: "Circle").map(\.name) == ["color", "radius"])
        #expect(Set(model.entityAndDescendants("Shape")) == ["Shape", "Circle", "Polygon"])
        #expect(model.isEntity("Circle", kindOf: "Shape"))
        #expect(!model.isEntity("Shape", kindOf: "Circle"))
        #expect(model.rootEntityName(of: "Polygon") == "Shape")
    }

    @Test func configurationsHoldTheirEntitiesAndSubentities() throws {
        let model = try ObjectModel(configurations: ["Shapes": ["Shape"], "Other": ["Note"]]) {
            Entity("Shape", abstract: true)
            Entity("Circle", parent: "Shape")
            Entity("Note")
        }
        #expect(Set(model.entityNames(inConfiguration: "Shapes")) == ["Shape", "Circle"])
        #expect(model.configuration("Other", contains: "Note"))
        #expect(!model.configuration("Other", contains: "Circle"))
        #expect(model.configuration(nil, contains: "Circle"))
        #expect(throws: StoreError.self) {
            try ObjectModel(configurations: ["Bad": ["Missing"]]) { Entity("Note") }
        }
    }

    @Test func jsonRoundTrip() throws {
        let model = try ObjectModel(configurations: ["C": ["Thing"]], versionIdentifiers: ["v2"]) {
            Entity("Thing", userInfo: ["k": "v"]) {
                for type in AttributeType.allCases { Attribute(type.rawValue, type) }
                Attribute("limited", .integer32, optional: false, defaultValue: 3, minValue: 1, maxValue: 10)
                Attribute("code", .string, minLength: 2, maxLength: 5, regularExpression: "[A-Z]+")
                Attribute("when", .date, defaultValue: .date(Date(timeIntervalSinceReferenceDate: 12.25)))
                Relationship("children", to: "Thing", inverse: "parent", toMany: true, ordered: true, minCount: 1, maxCount: 4)
                Relationship("parent", to: "Thing", inverse: "children", deleteRule: .deny)
            }
        }
        let data = try model.jsonData()
        let decoded = try ObjectModel(jsonData: data)
        #expect(decoded == model)
        #expect(try decoded.jsonData() == data)
        #expect(decoded.relationship("children", of: "Thing")?.isOrdered == true)
    }

    @Test func invalidJSONIsAStoreError() {
        #expect(throws: StoreError.self) { try ObjectModel(jsonData: Data("{".utf8)) }
        let invalid = Data(#"{"entities":[{"name":"A","parentEntityName":"Z","isAbstract":false,"attributes":[],"relationships":[],"uniquenessConstraints":[],"userInfo":{}}]}"#.utf8)
        #expect(throws: StoreError.self) { try ObjectModel(jsonData: invalid) }
    }
}
