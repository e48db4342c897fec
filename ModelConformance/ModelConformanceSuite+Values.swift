import Conformance
import Foundation
import PersistentModels

extension ModelConformanceSuite {
    /// Every value type SwiftData users use — the plain attribute types and their optionals
    /// (`Sample`), enums, `Codable` values and arrays (`Journey`) — made with the initializers,
    /// inserted, saved, read back, changed, saved and read again.
    static func roundTripEveryValueType(_ environment: ConformanceEnvironment) throws {
        let samples = [Sample(seed: 2), Sample(seed: 3)]
        let journeys = [Journey(code: "J0", status: .planned), Journey.sample(2), Journey.sample(3)]
        let expectedSamples = samples.map(\.fields)
        let expectedJourneys = journeys.map(\.fields)
        // Before insertion the values read back are the ones set.
        try environment.expect(
            journeys[1].legs == [.walk, .train(line: "S2"), .flight(number: "X", seats: 2)], "Journey.legs before insertion")
        try environment.expect(journeys[0].optionalStatus == nil, "Journey.optionalStatus before insertion")
        let container = try container([Sample.self, Journey.self], environment)
        let writer = ModelContext(container)
        for sample in samples { writer.insert(sample) }
        for journey in journeys { writer.insert(journey) }
        // Read through the managed objects (the stored forms), before the save.
        try expectSame(journeys.map(\.fields), expectedJourneys, "inserted Journey", environment)
        try writer.save()

        let context = try reader(container, environment)
        let fetchedSamples = try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        try expectSame(fetchedSamples.map(\.fields), expectedSamples, "Sample", environment)
        let fetchedJourneys = try context.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.code)]))
        try environment.expect(fetchedJourneys.first !== journeys.first, "the reading context made its own instances")
        try expectSame(fetchedJourneys.map(\.fields), expectedJourneys, "Journey", environment)
        // Changed after the round trip, saved again, read again.
        guard let changed = fetchedJourneys.first else { throw ConformanceFailure("no Journey read back") }
        changed.legs.append(.train(line: "new"))
        changed.optionalStatus = .done
        changed.tags = []
        try context.save()
        let again = try reader(context.container, environment).fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.code)]))
        try environment.expect(again.first?.legs == [.train(line: "new")], "Journey.legs after a change: \(again.first?.legs ?? [])")
        try environment.expect(again.first?.optionalStatus == .done, "Journey.optionalStatus after a change")
        try environment.expect(again.first?.tags == [], "Journey.tags after a change")
    }

    /// Enums are stored as their raw values and `Codable` values as JSON text with sorted keys
    /// (the same text for equal values), in attributes of the types docs/swift-models.md gives.
    static func storedFormsOfEnumsAndCompositeValues(_ environment: ConformanceEnvironment) throws {
        let model = try ObjectModel(for: Journey.self)
        guard let entity = model.entity(named: "Journey") else { throw ConformanceFailure("no entity Journey") }
        func attribute(_ name: String) throws -> AttributeDescription {
            guard let attribute = entity.attributes.first(where: { $0.name == name }) else {
                throw ConformanceFailure("Journey has no attribute \(name)")
            }
            return attribute
        }
        try environment.expectEqual(try attribute("status").type, .string, "Journey.status's type")
        try environment.expectEqual(try attribute("status").isOptional, false, "Journey.status is optional")
        try environment.expectEqual(try attribute("priority").type, .integer16, "Journey.priority's type")
        try environment.expectEqual(try attribute("priority").defaultValue, .int(1), "Journey.priority's default")
        try environment.expectEqual(try attribute("optionalPriority").isOptional, true, "Journey.optionalPriority is optional")
        for name in ["address", "transport", "legs", "stops", "tags", "scores", "days", "counts", "optionalCounts"] {
            try environment.expectEqual(try attribute(name).type, .string, "Journey.\(name)'s type")
            try environment.expectEqual(
                try attribute(name).userInfo[ModelValueCoding.compositeMarkerKey], ModelValueCoding.compositeMarkerValue,
                "Journey.\(name)'s composite marker")
        }
        try environment.expectEqual(try attribute("tags").defaultValue, .string("[]"), "Journey.tags's default")
        try environment.expectEqual(try attribute("transport").defaultValue, .string(#"{"walk":{}}"#), "Journey.transport's default")
        try environment.expect(
            try ObjectModel(for: Journey.self).entityVersionHashesByName == model.entityVersionHashesByName,
            "the same classes give the same version hashes")

        let container = try container([Journey.self], environment)
        let writer = ModelContext(container)
        writer.insert(Journey.sample(2))
        try writer.save()
        let context = try reader(container, environment)
        guard let journey = try context.fetch(FetchDescriptor<Journey>()).first,
            let object = journey.persistentBackingData.managedObject
        else { throw ConformanceFailure("no Journey read back") }
        let expected: [(String, StoreValue)] = [
            ("address", .string(#"{"city":"Lisboa","point":[38.71,-9.14],"since":1000.5,"street":"Rua \"Augusta\" / 2"}"#)),
            ("status", .string("underway")), ("priority", .int(2)), ("tags", .string(#"["sea","sun","naïve ✓"]"#)),
            ("optionalCounts", .string(#"{"x":0.5}"#)),
            ("transport", .string(#"{"flight":{"number":"TP2","seats":2}}"#)),
        ]
        for (key, value) in expected {
            try environment.expectEqual(object.value(forKey: key), value, "the stored Journey.\(key)")
        }
    }

    /// Values no case has and JSON the type cannot read, written by name (as another version of
    /// the application or another tool could): read as the fallback, and the next save fails
    /// naming each property, leaving the stored values as they are until the property is set.
    static func storedValueTheTypeCannotHold(_ environment: ConformanceEnvironment) throws {
        let container = try container([Journey.self], environment)
        let writer = ModelContext(container)
        let written = Journey.sample(2)
        writer.insert(written)
        try writer.save()
        guard let object = written.persistentBackingData.managedObject else { throw ConformanceFailure("no managed object") }
        try object.setValue(.string("archived"), forKey: "status")
        try object.setValue(.string("lost"), forKey: "optionalStatus")
        try object.setValue(.int(7), forKey: "priority")
        try object.setValue(.string(#"{"street":1}"#), forKey: "address")
        try object.setValue(.string("not json"), forKey: "legs")
        try writer.save()

        let context = try reader(container, environment)
        guard let journey = try context.fetch(FetchDescriptor<Journey>()).first else { throw ConformanceFailure("no Journey read back") }
        try environment.expectEqual(journey.status, .planned, "Journey.status (the first case)")
        try environment.expectEqual(journey.optionalStatus, nil, "Journey.optionalStatus")
        try environment.expectEqual(journey.priority, .low, "Journey.priority (the initial value)")
        try environment.expectEqual(journey.address, Address(street: "", city: "", point: []), "Journey.address (the initial value)")
        try environment.expectEqual(journey.legs, [], "Journey.legs")
        try environment.expectEqual(journey.tags, ["sea", "sun", "naïve ✓"], "Journey.tags (read as stored)")
        let error = try environment.expectError(.validationMultipleErrors, "saving values the types cannot hold") {
            try context.save()
        }
        let status = error.underlyingErrors.first { $0.propertyName == "status" }
        try environment.expectEqual(status?.code, .managedObjectValidation, "the error of Journey.status")
        try environment.expectEqual(status?.entityName, "Journey", "the entity of the error of Journey.status")
        try environment.expect(
            status?.message.contains(#"Journey.status holds "archived", which is not a value of JourneyStatus"#) == true,
            "the message of the error of Journey.status: \(status?.message ?? "none")")
        try environment.expectEqual(
            Set(error.underlyingErrors.compactMap(\.propertyName)), ["status", "optionalStatus", "priority", "address", "legs"],
            "the properties the save names")
        // The stored values are left as they are; once set, the property saves.
        guard let stored = journey.persistentBackingData.managedObject else { throw ConformanceFailure("no managed object") }
        try environment.expectEqual(stored.value(forKey: "status"), .string("archived"), "the stored Journey.status")
        journey.status = .done
        journey.optionalStatus = nil
        journey.priority = .high
        journey.address = Address(street: "a", city: "b", point: [])
        journey.legs = [.walk]
        try context.save()
        let again = try reader(context.container, environment).fetch(FetchDescriptor<Journey>())
        try environment.expectEqual(again.first?.status, .done, "Journey.status once set")
        try environment.expectEqual(again.first?.legs, [.walk], "Journey.legs once set")
    }
}

extension Sample {
    /// Every persisted property's value, by name.
    var fields: [String: AnyHashable] {
        [
            "string": string, "int": int, "int64": int64, "int32": int32, "int16": int16, "int8": int8, "uint": uint,
            "uint64": uint64, "uint32": uint32, "uint16": uint16, "uint8": uint8, "double": double, "float": float,
            "bool": bool, "date": date, "data": data, "decimal": decimal, "uuid": uuid, "url": url,
            "optionalString": optionalString, "optionalInt": optionalInt, "optionalInt64": optionalInt64,
            "optionalInt32": optionalInt32, "optionalInt16": optionalInt16, "optionalInt8": optionalInt8,
            "optionalUInt": optionalUInt, "optionalUInt64": optionalUInt64, "optionalUInt32": optionalUInt32,
            "optionalUInt16": optionalUInt16, "optionalUInt8": optionalUInt8, "optionalDouble": optionalDouble,
            "optionalFloat": optionalFloat, "optionalBool": optionalBool, "optionalDate": optionalDate,
            "optionalData": optionalData, "optionalDecimal": optionalDecimal, "optionalUUID": optionalUUID,
            "optionalURL": optionalURL,
        ]
    }
}

extension Journey {
    /// Every persisted property's value, by name.
    var fields: [String: AnyHashable] {
        [
            "code": code, "status": status, "priority": priority, "optionalStatus": optionalStatus,
            "optionalPriority": optionalPriority, "address": address, "optionalAddress": optionalAddress,
            "transport": transport, "optionalTransport": optionalTransport, "legs": legs, "stops": stops, "tags": tags,
            "scores": scores, "days": days, "counts": counts, "optionalCounts": optionalCounts,
        ]
    }
}
