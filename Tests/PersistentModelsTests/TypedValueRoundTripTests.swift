import Foundation
import PersistentModels
import StoreTestSupport
import Testing

/// Every value type SwiftData users use — the plain attribute types and their optionals
/// (`Sample`), enums, `Codable` values and arrays (`Journey`) — made with the initializers,
/// inserted, saved and read back by a new container, on every built-in store type.
@Suite struct TypedValueRoundTripTests {
    /// The store types with a file or a server (InMemory has its own test).
    static let storeTypes = ["SQLite", "Binary", "XML", "PipeCSV", "PostgreSQL"]

    private func configuration(_ storeType: String, in folder: URL) throws -> ModelConfiguration {
        if storeType == "PostgreSQL" {
            return ModelConfiguration(storeType: storeType, url: try TestPostgreSQLServer.freshStoreURL("models"))
        }
        return ModelConfiguration(storeType: storeType, url: folder.appendingPathComponent("Store.\(storeType)"))
    }

    /// Compares property values field by field (a failing field names itself).
    private func expectSame(
        _ actual: [[String: AnyHashable]], _ expected: [[String: AnyHashable]], _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(actual.count == expected.count, "\(label)", sourceLocation: sourceLocation)
        for (a, b) in zip(actual, expected) {
            for key in b.keys.sorted() {
                #expect(a[key] == b[key], "\(label).\(key)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Saves samples and journeys through `configuration` and reads them back through a new container.
    private func roundTrip(_ configuration: ModelConfiguration) throws {
        let samples = [Sample(seed: 2), Sample(seed: 3)]
        let journeys = [Journey(code: "J0", status: .planned), Journey.sample(2), Journey.sample(3)]
        let expectedSamples = samples.map(\.fields)
        let expectedJourneys = journeys.map(\.fields)
        // Before insertion the values read back are the ones set.
        #expect(journeys[1].legs == [.walk, .train(line: "S2"), .flight(number: "X", seats: 2)])
        #expect(journeys[0].optionalStatus == nil)
        do {
            let container = try ModelContainer(
                for: [Sample.self, Journey.self], configurations: [configuration], registry: StoreRegistry())
            let context = ModelContext(container)
            for sample in samples { context.insert(sample) }
            for journey in journeys { context.insert(journey) }
            // Read through the managed objects (the stored forms), before the save.
            expectSame(journeys.map(\.fields), expectedJourneys, "inserted")
            try context.save()
        }
        let container = try ModelContainer(
            for: [Sample.self, Journey.self], configurations: [configuration], registry: StoreRegistry())
        let context = ModelContext(container)
        let fetchedSamples = try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        expectSame(fetchedSamples.map(\.fields), expectedSamples, "Sample")
        let fetchedJourneys = try context.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.code)]))
        #expect(fetchedJourneys.first !== journeys.first)
        expectSame(fetchedJourneys.map(\.fields), expectedJourneys, "Journey")
        // Changed after the round trip, saved again, read again.
        let changed = try #require(fetchedJourneys.first)
        changed.legs.append(.train(line: "new"))
        changed.optionalStatus = .done
        changed.tags = []
        try context.save()
        let again = try ModelContext(container).fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.code)]))
        #expect(again.first?.legs == [.train(line: "new")])
        #expect(again.first?.optionalStatus == .done)
        #expect(again.first?.tags == [])
    }

    @Test(arguments: storeTypes) func everyValueTypeRoundTrips(storeType: String) throws {
        try withTemporaryDirectory { folder in try roundTrip(try configuration(storeType, in: folder)) }
    }

    @Test func everyValueTypeRoundTripsThroughAnInMemoryStore() throws {
        let container = try ModelContainer(
            for: Sample.self, Journey.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let journeys = [Journey.sample(4), Journey.sample(5)]
        let samples = [Sample(seed: 4), Sample(seed: 5)]
        let writer = ModelContext(container)
        for journey in journeys { writer.insert(journey) }
        for sample in samples { writer.insert(sample) }
        try writer.save()
        let reader = ModelContext(container)
        let fetched = try reader.fetch(FetchDescriptor<Journey>(sortBy: [SortDescriptor(\.code)]))
        #expect(fetched.first !== journeys.first)
        expectSame(fetched.map(\.fields), journeys.map(\.fields), "Journey")
        let fetchedSamples = try reader.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        expectSame(fetchedSamples.map(\.fields), samples.map(\.fields), "Sample")
    }

    @Test func enumsAreStoredAsRawValuesAndCodableValuesAsSortedJSON() throws {
        let model = try ObjectModel(for: Journey.self)
        let entity = try #require(model.entity(named: "Journey"))
        func attribute(_ name: String) -> AttributeDescription? { entity.attributes.first { $0.name == name } }
        #expect(attribute("status")?.type == .string)
        #expect(attribute("status")?.isOptional == false)
        #expect(attribute("priority")?.type == .integer16)
        #expect(attribute("priority")?.defaultValue == .int(1))
        #expect(attribute("optionalPriority")?.isOptional == true)
        for name in ["address", "transport", "legs", "stops", "tags", "scores", "days", "counts", "optionalCounts"] {
            #expect(attribute(name)?.type == .string, "\(name)")
            #expect(attribute(name)?.userInfo[ModelValueCoding.compositeMarkerKey] == ModelValueCoding.compositeMarkerValue)
        }
        #expect(attribute("stops")?.isOptional == true)
        #expect(attribute("tags")?.isOptional == false)
        #expect(attribute("tags")?.defaultValue == .string("[]"))
        #expect(attribute("transport")?.defaultValue == .string(#"{"walk":{}}"#))
        #expect(entity.relationships.isEmpty)
        // The stored text: keys sorted, the same for equal values.
        let context = ModelContext(
            try ModelContainer(for: Journey.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        let journey = Journey.sample(2)
        context.insert(journey)
        let object = try #require(journey.persistentBackingData.managedObject)
        #expect(object.value(forKey: "address") == .string(#"{"city":"Lisboa","point":[38.71,-9.14],"since":1000.5,"street":"Rua \"Augusta\" / 2"}"#))
        #expect(object.value(forKey: "status") == .string("underway"))
        #expect(object.value(forKey: "priority") == .int(2))
        #expect(object.value(forKey: "tags") == .string(#"["sea","sun","naïve ✓"]"#))
        #expect(object.value(forKey: "optionalCounts") == .string(#"{"x":0.5}"#))
        // Version hashes do not depend on the run: the same model twice gives the same hashes.
        #expect(try ObjectModel(for: Journey.self).entityVersionHashesByName == model.entityVersionHashesByName)
    }

    @Test func aStoredValueTheTypeCannotHoldReadsAsTheFallbackAndFailsTheNextSave() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Journeys.store")
            do {
                let context = ModelContext(try ModelContainer(for: Journey.self, configurations: ModelConfiguration(url: url)))
                let journey = Journey.sample(2)
                context.insert(journey)
                try context.save()
                // Values no case has and JSON the type cannot read, written through the by-name API
                // (as another version of the application or another tool could).
                let object = try #require(journey.persistentBackingData.managedObject)
                try object.setValue(.string("archived"), forKey: "status")
                try object.setValue(.string("lost"), forKey: "optionalStatus")
                try object.setValue(.int(7), forKey: "priority")
                try object.setValue(.string(#"{"street":1}"#), forKey: "address")
                try object.setValue(.string("not json"), forKey: "legs")
                try context.save()
            }
            let context = ModelContext(try ModelContainer(for: Journey.self, configurations: ModelConfiguration(url: url)))
            let journey = try #require(try context.fetch(FetchDescriptor<Journey>()).first)
            #expect(journey.status == .planned, "the first case")
            #expect(journey.optionalStatus == nil)
            #expect(journey.priority == .low, "the initial value")
            #expect(journey.address == Address(street: "", city: "", point: []), "the initial value")
            #expect(journey.legs == [])
            #expect(journey.tags == ["sea", "sun", "naïve ✓"], "the other values are read as stored")
            let error = storeError { try context.save() }
            #expect(error?.code == .validationMultipleErrors)
            let status = error?.underlyingErrors.first { $0.propertyName == "status" }
            #expect(status?.code == .managedObjectValidation)
            #expect(status?.entityName == "Journey")
            #expect(status?.message.contains(#"Journey.status holds "archived", which is not a value of JourneyStatus"#) == true)
            #expect(Set(error?.underlyingErrors.compactMap(\.propertyName) ?? []) == ["status", "optionalStatus", "priority", "address", "legs"])
            // The stored values are left as they are.
            let object = try #require(journey.persistentBackingData.managedObject)
            #expect(object.value(forKey: "status") == .string("archived"))
            // Once set, the property saves.
            journey.status = .done
            try context.save()
            #expect(journey.status == .done)
        }
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
