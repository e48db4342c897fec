import Foundation
import Testing

@testable import StoreCore

/// Behaviour #52: an entity's version hash changes when (and only when) a hash-relevant part
/// changes.
@Suite("Entity version hashes (#52)")
struct EntityVersionHashTests {
    /// The model every change starts from.
    static func baseEntities() -> [EntityDescription] {
        [
            Entity("Animal") {
                Attribute("name", .string, optional: false)
                Attribute("legs", .integer16)
                Attribute("photo", .binaryData)
                Attribute("tags", .transformable, valueTransformerName: "NSSecureUnarchiveFromData")
                Relationship("owner", to: "Person", inverse: "pets")
                Relationship("friends", to: "Animal", toMany: true)
            },
            Entity("Dog", parent: "Animal") {
                Attribute("breed", .string)
            },
            Entity("Person") {
                Attribute("name", .string)
                Relationship("pets", to: "Animal", inverse: "owner", toMany: true)
            },
            Entity("Kennel") {
                Attribute("code", .string)
            },
        ]
    }

    /// A change to the base model: which entity's hash to compare, and the edit.
    struct Change: Sendable, CustomTestStringConvertible {
        let label: String
        /// The entity whose hash is compared (before, after — different after a rename).
        let entity: String
        let renamedTo: String?
        let edit: @Sendable (inout [EntityDescription]) -> Void

        init(_ label: String, _ entity: String, renamedTo: String? = nil, _ edit: @escaping @Sendable (inout [EntityDescription]) -> Void) {
            self.label = label
            self.entity = entity
            self.renamedTo = renamedTo
            self.edit = edit
        }

        var testDescription: String { label }
    }

    static func on(_ name: String, _ body: @escaping @Sendable (inout EntityDescription) -> Void) -> @Sendable (inout [EntityDescription]) -> Void {
        { entities in
            for index in entities.indices where entities[index].name == name { body(&entities[index]) }
        }
    }

    static func attribute(_ entity: String, _ name: String, _ body: @escaping @Sendable (inout AttributeDescription) -> Void)
        -> @Sendable (inout [EntityDescription]) -> Void
    {
        on(entity) { e in
            for index in e.attributes.indices where e.attributes[index].name == name { body(&e.attributes[index]) }
        }
    }

    static func relationship(_ entity: String, _ name: String, _ body: @escaping @Sendable (inout RelationshipDescription) -> Void)
        -> @Sendable (inout [EntityDescription]) -> Void
    {
        on(entity) { e in
            for index in e.relationships.indices where e.relationships[index].name == name { body(&e.relationships[index]) }
        }
    }

    static let hashChanges: [Change] = [
        Change("entity name", "Kennel", renamedTo: "Shelter", on("Kennel") { $0.name = "Shelter" }),
        Change("parent entity set", "Kennel", on("Kennel") { $0.parentEntityName = "Person" }),
        Change("parent entity removed", "Dog", on("Dog") { $0.parentEntityName = nil }),
        Change("abstract flag", "Animal", on("Animal") { $0.isAbstract = true }),
        Change("entity version hash modifier", "Animal", on("Animal") { $0.versionHashModifier = "v2" }),
        Change("attribute name", "Animal", attribute("Animal", "legs") { $0.name = "limbs" }),
        Change("attribute added", "Animal", on("Animal") { $0.attributes.append(Attribute("age", .integer16)) }),
        Change("attribute removed", "Animal", on("Animal") { $0.attributes.removeAll { $0.name == "photo" } }),
        Change("attribute optional", "Animal", attribute("Animal", "legs") { $0.isOptional = false }),
        Change("attribute transient", "Animal", attribute("Animal", "legs") { $0.isTransient = true }),
        Change("attribute type", "Animal", attribute("Animal", "legs") { $0.type = .integer32 }),
        Change("attribute version hash modifier", "Animal", attribute("Animal", "legs") { $0.versionHashModifier = "x" }),
        Change("relationship name", "Animal", relationship("Animal", "friends") { $0.name = "pals" }),
        Change("relationship optional", "Animal", relationship("Animal", "friends") { $0.isOptional = false }),
        Change("relationship transient", "Animal", relationship("Animal", "friends") { $0.isTransient = true }),
        Change("relationship destination", "Animal", relationship("Animal", "friends") { $0.destinationEntityName = "Dog" }),
        Change("relationship inverse removed", "Animal", { entities in
            relationship("Animal", "owner") { $0.inverseName = nil }(&entities)
            relationship("Person", "pets") { $0.inverseName = nil }(&entities)
        }),
        Change("relationship to-many", "Animal", relationship("Animal", "friends") { $0.isToMany = false }),
        Change("relationship ordered", "Animal", relationship("Animal", "friends") { $0.isOrdered = true }),
        Change("relationship min count", "Animal", relationship("Animal", "friends") { $0.minCount = 1 }),
        Change("relationship max count", "Animal", relationship("Animal", "friends") { $0.maxCount = 5 }),
        Change("relationship version hash modifier", "Animal", relationship("Animal", "friends") { $0.versionHashModifier = "x" }),
        Change("relationship added", "Kennel", on("Kennel") { $0.relationships.append(Relationship("dogs", to: "Dog", toMany: true)) }),
    ]

    static let nonChanges: [Change] = [
        Change("default value", "Animal", attribute("Animal", "legs") { $0.defaultValue = .int(4) }),
        Change("delete rule", "Animal", relationship("Animal", "owner") { $0.deleteRule = .cascade }),
        Change("min/max value", "Animal", attribute("Animal", "legs") {
            $0.minValue = .int(0)
            $0.maxValue = .int(8)
        }),
        Change("min/max length", "Animal", attribute("Animal", "name") {
            $0.minLength = 1
            $0.maxLength = 20
        }),
        Change("regular expression", "Animal", attribute("Animal", "name") { $0.regularExpression = "[A-Z].*" }),
        Change("indexed flag", "Animal", attribute("Animal", "name") { $0.isIndexed = true }),
        Change("entity renaming identifier", "Animal", on("Animal") { $0.renamingIdentifier = "Creature" }),
        Change("attribute renaming identifier", "Animal", attribute("Animal", "name") { $0.renamingIdentifier = "title" }),
        Change("relationship renaming identifier", "Animal", relationship("Animal", "owner") { $0.renamingIdentifier = "keeper" }),
        Change("entity user info", "Animal", on("Animal") { $0.userInfo = ["a": "b"] }),
        Change("attribute user info", "Animal", attribute("Animal", "name") { $0.userInfo = ["a": "b"] }),
        Change("relationship user info", "Animal", relationship("Animal", "owner") { $0.userInfo = ["a": "b"] }),
        Change("class name", "Animal", on("Animal") { $0.className = "MyAnimal" }),
        Change("value transformer name", "Animal", attribute("Animal", "tags") { $0.valueTransformerName = "Other" }),
        Change("external binary storage", "Animal", attribute("Animal", "photo") { $0.allowsExternalBinaryDataStorage = true }),
        Change("property declaration order", "Animal", on("Animal") {
            $0.attributes.reverse()
            $0.relationships.reverse()
        }),
        Change("entity declaration order", "Animal", { $0.reverse() }),
        Change("uniqueness constraint", "Animal", on("Animal") { $0.uniquenessConstraints = [["name"]] }),
        Change("fetch index", "Animal", on("Animal") { $0.fetchIndexes = [FetchIndexDescription("byName", elements: [.init(property: "name")])] }),
        Change("fetched property", "Animal", on("Animal") {
            $0.fetchedProperties = [FetchedPropertyDescription("same", entity: "Animal", predicate: "name == $FETCH_SOURCE.name")]
        }),
        Change("to-one max count (Xcode writes 1)", "Animal", relationship("Animal", "owner") { $0.maxCount = 1 }),
        Change("empty version hash modifier", "Animal", on("Animal") { $0.versionHashModifier = "" }),
        Change("another entity changed", "Kennel", attribute("Animal", "legs") { $0.type = .integer64 }),
    ]

    static func hashes(_ edit: (inout [EntityDescription]) -> Void = { _ in }) throws -> [String: Data] {
        var entities = baseEntities()
        edit(&entities)
        return try ObjectModel(entities: entities).entityVersionHashesByName
    }

    @Test(arguments: hashChanges)
    func changeAltersTheHash(_ change: Change) throws {
        let before = try #require(try Self.hashes()[change.entity])
        let after = try #require(try Self.hashes(change.edit)[change.renamedTo ?? change.entity])
        #expect(before != after)
        #expect(after.count == 32)
    }

    @Test(arguments: nonChanges)
    func nonChangeKeepsTheHash(_ change: Change) throws {
        let before = try #require(try Self.hashes()[change.entity])
        let after = try #require(try Self.hashes(change.edit)[change.entity])
        #expect(before == after)
    }

    @Test func sameModelGivesIdenticalBytes() throws {
        let first = try Self.hashes()
        let second = try Self.hashes()
        #expect(first == second)
        #expect(first.keys.sorted() == ["Animal", "Dog", "Kennel", "Person"])
        #expect(first.values.allSatisfy { $0.count == 32 })
        // Through JSON (what a store keeps) and back.
        let model = try ObjectModel(entities: Self.baseEntities())
        #expect(try ObjectModel(jsonData: model.jsonData()).entityVersionHashesByName == first)
        #expect(model.versionChecksum == (try ObjectModel(jsonData: model.jsonData())).versionChecksum)
    }

    /// The documented encoding, rebuilt by hand, and a pinned digest: the bytes never change
    /// between runs, releases or platforms.
    @Test func encodingIsTheDocumentedByteLayout() throws {
        let model = try ObjectModel {
            Entity("Team") {
                Attribute("name", .string, optional: false, defaultValue: "x")
                Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
            }
            Entity("Player") {
                Relationship("team", to: "Team", inverse: "players")
            }
        }
        func string(_ s: String) -> [UInt8] {
            let utf8 = Array(s.utf8)
            return [0, 0, UInt8(utf8.count >> 8), UInt8(utf8.count & 0xff)] + utf8
        }
        let int64Zero: [UInt8] = Array(repeating: 0, count: 8)
        var expected: [UInt8] = string("PersistentStores.EntityVersionHash/1") + string("Team")
        expected += [0]  // no parent
        expected += [0]  // not abstract
        expected += [0]  // no version hash modifier
        expected += [0, 0, 0, 2]  // two properties, in UTF-8 name order: "name" < "players"
        expected += [0x41] + string("name") + [0, 0, 0] + string("string")
        expected += [0x52] + string("players") + [1, 0, 0] + string("Player") + [1] + string("team") + [1, 0]
        expected += int64Zero + int64Zero
        let team = try #require(model.entity(named: "Team"))
        #expect(VersionHashEncoder.encoding(of: team) == expected)
        #expect(model.versionHash(ofEntity: "Team") == Data(SHA256.hash(expected)))
        #expect(
            model.versionHash(ofEntity: "Team")?.base64EncodedString()
                == "zEEE8ba4m6BFM1CjuU6pxsBHPAgKIP7pyGrlZ9Yetwc=")
    }

    @Test func unknownEntityHasNoHash() throws {
        #expect(try ObjectModel(entities: Self.baseEntities()).versionHash(ofEntity: "Unicorn") == nil)
    }
}
