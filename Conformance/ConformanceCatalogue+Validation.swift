import Foundation
import StoreCore

/// A subclass with custom validation hooks, for #31.
final class ValidatedNote: ManagedObject {
    override func validateValue(_ value: StoreValue, forKey key: String) throws {
        if key == "title", value == "forbidden" {
            throw StoreError(.managedObjectValidation, "Note.title must not be \"forbidden\"", objectIDs: [objectID], entityName: "Note", propertyName: key)
        }
    }

    override func validateForInsert() throws {
        if value(forKey: "title") == "late" && value(forKey: "body") == .null {
            throw StoreError(.managedObjectValidation, "a late note needs a body", objectIDs: [objectID], entityName: "Note")
        }
    }
}

extension ConformanceCatalogue {
    static func rangedModel() throws -> ObjectModel {
        try ObjectModel {
            Entity("Ranged") {
                Attribute("number", .integer32, minValue: 1, maxValue: 10)
                Attribute("when", .date, minValue: .date(Date(timeIntervalSinceReferenceDate: 0)), maxValue: .date(Date(timeIntervalSinceReferenceDate: 1_000)))
                Attribute("code", .string, minLength: 2, maxLength: 5)
                Attribute("word", .string, regularExpression: "[a-z]+")
                Relationship("items", to: "Item", inverse: "owner", toMany: true, minCount: 2, maxCount: 3)
            }
            Entity("Item") { Relationship("owner", to: "Ranged", inverse: "items") }
        }
    }

    /// Validation at save: #26–#31.
    public static let validation: [ConformanceCase] = [
        ConformanceCase("required attribute and to-one", behaviour: 26, area: .validation) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            try insert(stack.context, "Transform", ["scale": 1])
            let error = try env.expectError(.validationMissingMandatoryProperty, "a Transform without canvas") { try stack.context.save() }
            try env.expect(error.message.contains("Transform.canvas is a required value"), "message: \(error.message)")
            try env.expectEqual(error.propertyName, "canvas", "property of the error")
            stack.context.rollback()
            let users = try env.openStack(try ConformanceModels.users(), url: .some(env.storeURL("users")))
            try insert(users.context, "User", ["name": .null])
            let missing = try env.expectError(.validationMissingMandatoryProperty, "a User without name") { try users.context.save() }
            try env.expect(missing.message.contains("User.name is a required value"), "message: \(missing.message)")
            try env.expectEqual(try ManagedObjectContext(coordinator: users.coordinator).count(for: FetchRequest(entityName: "User")), 0, "nothing saved")
        },
        ConformanceCase("relationship counts", behaviour: 27, area: .validation) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            let polygon = try insert(stack.context, "Polygon")
            for _ in 0..<2 { try insert(stack.context, "Vertex").setObject(polygon, forKey: "polygon") }
            try env.expectError(.validationRelationshipLacksMinimumCount, "a Polygon with 2 vertices") { try stack.context.save() }
            stack.context.rollback()
            try insert(stack.context, "Polygon")
            try stack.context.save()  // an optional relationship with zero objects is valid despite min count 3
            let ranged = try env.openStack(try rangedModel(), url: .some(env.storeURL("ranged")))
            let owner = try insert(ranged.context, "Ranged")
            for _ in 0..<4 { try insert(ranged.context, "Item").setObject(owner, forKey: "owner") }
            try env.expectError(.validationRelationshipExceedsMaximumCount, "4 items with max 3") { try ranged.context.save() }
        },
        ConformanceCase("ranges, lengths and patterns", behaviour: 28, area: .validation) { env in
            let stack = try env.openStack(try rangedModel())
            let cases: [(String, StoreValue, StoreError.Code)] = [
                ("number", 11, .validationNumberTooLarge), ("number", 0, .validationNumberTooSmall),
                ("when", .date(Date(timeIntervalSinceReferenceDate: 1_001)), .validationDateTooLate),
                ("when", .date(Date(timeIntervalSinceReferenceDate: -1)), .validationDateTooSoon),
                ("code", "abcdef", .validationStringTooLong), ("code", "a", .validationStringTooShort),
                ("word", "abc1", .validationStringPatternMatching),
            ]
            for (key, value, code) in cases {
                let object = try insert(stack.context, "Ranged", [key: value])
                let error = try env.expectError(code, "Ranged.\(key) = \(value)") { try stack.context.save() }
                try env.expect(error.message.contains("Ranged.\(key)") && error.message.contains(value.description), "message names property and value: \(error.message)")
                try env.expectEqual(error.objectIDs, [object.objectID], "object of the error")
                stack.context.rollback()
            }
            try insert(stack.context, "Ranged", ["number": 10, "code": "ab", "word": "abc", "when": .date(Date(timeIntervalSinceReferenceDate: 1_000))])
            try stack.context.save()
        },
        ConformanceCase("several failures at once", behaviour: 29, area: .validation) { env in
            let stack = try env.openStack(try rangedModel())
            let first = try insert(stack.context, "Ranged", ["number": 11, "code": "x"])
            let second = try insert(stack.context, "Ranged", ["word": "123"])
            let error = try env.expectError(.validationMultipleErrors, "three failures") { try stack.context.save() }
            let codes = Set(error.underlyingErrors.map(\.code.rawValue))
            try env.expectEqual(codes, [1610, 1670, 1680], "codes of the listed errors")
            try env.expect(error.underlyingErrors.allSatisfy { $0.propertyName != nil && !$0.objectIDs.isEmpty }, "each error names property and object")
            try env.expectEqual(Set(error.objectIDs), [first.objectID, second.objectID], "objects of the errors")
        },
        ConformanceCase("wrong value type rejected when set", behaviour: 30, area: .validation) { env in
            let stack = try env.openStack(try ConformanceModels.shapes())
            let circle = try insert(stack.context, "Circle")
            let error = try env.expectError(.managedObjectValidation, "a string into Circle.radius") {
                try circle.setValue("big", forKey: "radius")
            }
            try env.expect(error.message.contains("Circle.radius") && error.message.contains("float"), "message names property and type: \(error.message)")
            try env.expectEqual(circle.value(forKey: "radius"), .double(8.0), "the value was not stored")
            try env.expectError(.managedObjectValidation, "an Int16 out of range") {
                try insert(stack.context, "Vertex").setValue(Int64(40_000), forKey: "index")
            }
        },
        ConformanceCase("custom validation hooks", behaviour: 31, area: .validation) { env in
            let model = try ObjectModel {
                Entity("Note") {
                    Attribute("title", .string)
                    Attribute("body", .string)
                }
            }
            let stack = try env.openStack(model)
            stack.coordinator.register(ValidatedNote.self, forEntityName: "Note")
            let note = try insert(stack.context, "Note", ["title": "forbidden"])
            try env.expect(note is ValidatedNote, "the context creates the registered subclass")
            let error = try env.expectError(.managedObjectValidation, "per-property hook") { try stack.context.save() }
            try env.expect(error.message.contains("must not be \"forbidden\""), "the hook's own message: \(error.message)")
            try note.setValue("late", forKey: "title")
            let objectError = try env.expectError(.managedObjectValidation, "per-object hook") { try stack.context.save() }
            try env.expectEqual(objectError.message, "a late note needs a body", "the per-object hook's message")
            try note.setValue("text", forKey: "body")
            try stack.context.save()
        },
    ]
}
