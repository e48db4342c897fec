import Foundation
import PersistentModels
import StoreTestSupport
import Testing

/// Objects made with their own initializers, inserted, saved, and read back by a new container
/// over the same store: every attribute value type arrives unchanged, on SQLite and InMemory.
@Suite struct ModelStoreRoundTripTests {
    /// The property values of a sample, compared field by field (a failing field names itself).
    private func expectSame(_ a: Sample, _ b: Sample, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(a.string == b.string, sourceLocation: sourceLocation)
        #expect(a.int == b.int, sourceLocation: sourceLocation)
        #expect(a.int64 == b.int64, sourceLocation: sourceLocation)
        #expect(a.int32 == b.int32, sourceLocation: sourceLocation)
        #expect(a.int16 == b.int16, sourceLocation: sourceLocation)
        #expect(a.int8 == b.int8, sourceLocation: sourceLocation)
        #expect(a.uint == b.uint, sourceLocation: sourceLocation)
        #expect(a.uint64 == b.uint64, sourceLocation: sourceLocation)
        #expect(a.uint32 == b.uint32, sourceLocation: sourceLocation)
        #expect(a.uint16 == b.uint16, sourceLocation: sourceLocation)
        #expect(a.uint8 == b.uint8, sourceLocation: sourceLocation)
        #expect(a.double == b.double, sourceLocation: sourceLocation)
        #expect(a.float == b.float, sourceLocation: sourceLocation)
        #expect(a.bool == b.bool, sourceLocation: sourceLocation)
        #expect(a.date == b.date, sourceLocation: sourceLocation)
        #expect(a.data == b.data, sourceLocation: sourceLocation)
        #expect(a.decimal == b.decimal, sourceLocation: sourceLocation)
        #expect(a.uuid == b.uuid, sourceLocation: sourceLocation)
        #expect(a.url == b.url, sourceLocation: sourceLocation)
        #expect(a.optionalString == b.optionalString, sourceLocation: sourceLocation)
        #expect(a.optionalInt == b.optionalInt, sourceLocation: sourceLocation)
        #expect(a.optionalInt64 == b.optionalInt64, sourceLocation: sourceLocation)
        #expect(a.optionalInt32 == b.optionalInt32, sourceLocation: sourceLocation)
        #expect(a.optionalInt16 == b.optionalInt16, sourceLocation: sourceLocation)
        #expect(a.optionalInt8 == b.optionalInt8, sourceLocation: sourceLocation)
        #expect(a.optionalUInt == b.optionalUInt, sourceLocation: sourceLocation)
        #expect(a.optionalUInt64 == b.optionalUInt64, sourceLocation: sourceLocation)
        #expect(a.optionalUInt32 == b.optionalUInt32, sourceLocation: sourceLocation)
        #expect(a.optionalUInt16 == b.optionalUInt16, sourceLocation: sourceLocation)
        #expect(a.optionalUInt8 == b.optionalUInt8, sourceLocation: sourceLocation)
        #expect(a.optionalDouble == b.optionalDouble, sourceLocation: sourceLocation)
        #expect(a.optionalFloat == b.optionalFloat, sourceLocation: sourceLocation)
        #expect(a.optionalBool == b.optionalBool, sourceLocation: sourceLocation)
        #expect(a.optionalDate == b.optionalDate, sourceLocation: sourceLocation)
        #expect(a.optionalData == b.optionalData, sourceLocation: sourceLocation)
        #expect(a.optionalDecimal == b.optionalDecimal, sourceLocation: sourceLocation)
        #expect(a.optionalUUID == b.optionalUUID, sourceLocation: sourceLocation)
        #expect(a.optionalURL == b.optionalURL, sourceLocation: sourceLocation)
    }

    /// Saves two samples (one with every optional set, one with none) through `configuration`,
    /// then reads them through a second container made from `reopened`.
    private func roundTrip(_ configuration: ModelConfiguration, reopened: ModelConfiguration, registry: StoreRegistry) throws {
        let originals = [Sample(seed: 2), Sample(seed: 3)]
        // The values read before insertion are the ones set.
        #expect(originals[0].optionalString == "set 2")
        #expect(originals[1].optionalString == nil)
        do {
            let container = try ModelContainer(for: [Sample.self], configurations: [configuration], registry: registry)
            let context = ModelContext(container)
            for sample in originals { context.insert(sample) }
            #expect(context.hasChanges)
            // Read through the managed objects now, before the save.
            expectSame(originals[0], Sample(seed: 2).copyingIdentity(of: originals[0]))
            try context.save()
            #expect(!context.hasChanges)
        }
        let container = try ModelContainer(for: [Sample.self], configurations: [reopened], registry: registry)
        let context = ModelContext(container)
        let fetched = try context.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        try #require(fetched.count == 2)
        expectSame(fetched[0], originals[0])
        expectSame(fetched[1], originals[1])
    }

    @Test func everyValueTypeRoundTripsThroughSQLite() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Samples.store")
            try roundTrip(ModelConfiguration(url: url), reopened: ModelConfiguration(url: url), registry: StoreRegistry())
        }
    }

    @Test func everyValueTypeRoundTripsThroughTheBinaryStore() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("Samples.bin")
            let configuration = ModelConfiguration(storeType: "Binary", url: url)
            try roundTrip(configuration, reopened: configuration, registry: StoreRegistry())
        }
    }

    @Test func everyValueTypeRoundTripsThroughAnInMemoryStore() throws {
        // An InMemory store lives as long as its coordinator: the second container is a new
        // context on the same coordinator's data, so the objects are read back from the store
        // by a context that never saw them.
        let container = try ModelContainer(
            for: Sample.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let originals = [Sample(seed: 4), Sample(seed: 5)]
        let writer = ModelContext(container)
        for sample in originals { writer.insert(sample) }
        try writer.save()
        let reader = ModelContext(container)
        let fetched = try reader.fetch(FetchDescriptor<Sample>(sortBy: [SortDescriptor(\.int)]))
        try #require(fetched.count == 2)
        #expect(fetched[0] !== originals[0])
        expectSame(fetched[0], originals[0])
        expectSame(fetched[1], originals[1])
        #expect(container.configurations[0].isStoredInMemoryOnly)
    }

    @Test func aValueTheAttributeCannotHoldFailsTheSaveNamingTheProperty() throws {
        let container = try ModelContainer(
            for: Sample.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        let context = ModelContext(container)
        let sample = Sample(seed: 1)
        // Above Int64.max: no integer attribute can hold it; it must not be stored as another number.
        sample.uint64 = UInt64.max
        context.insert(sample)
        let error = storeError { try context.save() }
        // The value was refused (1550) and so the required attribute is empty (1570).
        #expect(error?.code == .validationMultipleErrors)
        let refused = error?.underlyingErrors.first { $0.code == .managedObjectValidation }
        #expect(refused?.propertyName == "uint64")
        #expect(refused?.message.contains("Sample.uint64 expects a value of type integer64") == true)
        // The object is in the context with the other values; once corrected, it saves.
        #expect(sample.string == "naïve ✓ 1")
        sample.uint64 = 5
        try context.save()
        sample.uint = UInt.max
        #expect(storeError { try context.save() }?.propertyName == "uint")
        context.rollback()
        #expect(sample.uint == UInt(Int64.max) - 1)
        #expect(sample.uint64 == 5)
    }
}

extension Sample {
    /// This sample with `other`'s UUIDs (the only values `init(seed:)` does not derive from the seed).
    func copyingIdentity(of other: Sample) -> Sample {
        uuid = other.uuid
        optionalUUID = other.optionalUUID
        return self
    }
}
