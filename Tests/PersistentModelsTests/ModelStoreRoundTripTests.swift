import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// A value an attribute cannot hold is refused by the save, naming the property. (The round
/// trip of every value type through every store type is the typed-model conformance case's:
/// ModelConformanceTests.)
@Suite struct ModelStoreRoundTripTests {
    /// Before insertion a plain value is kept in its stored form and read back through the same
    /// conversion as after it: every type gives back the value set (the extremes included), and
    /// one no attribute can hold reads as the property's fallback, before insertion as after,
    /// until the save refuses it.
    @Test func aValueSetBeforeInsertionReadsBackAsSet() throws {
        let set = Sample(seed: 0)
        #expect(set.persistentBackingData.managedObject == nil, "not inserted")
        #expect(set.string == "naïve ✓ 0")
        #expect(set.int == Int.min && set.int64 == Int64.max && set.int32 == Int32.min && set.int16 == Int16.max)
        #expect(set.int8 == Int8.min && set.uint == UInt(Int64.max) && set.uint64 == 0 && set.uint32 == UInt32.max)
        #expect(set.uint16 == UInt16.max && set.uint8 == UInt8.max && set.double == 0.1 && set.float == 1.5e-7)
        #expect(set.bool && set.date == Date(timeIntervalSinceReferenceDate: 123_456_789.125) && set.data == Data([0, 1, 2, 255, 0]))
        #expect(set.decimal == Decimal(string: "12345678901234567890.123"))
        #expect(set.url == URL(string: "https://example.com/trips/0?q=a%20b"))
        #expect(set.optionalString == "set 0" && set.optionalInt == 0 && set.optionalInt64 == Int64.min)
        #expect(set.optionalUInt64 == UInt64(Int64.max) && set.optionalUInt8 == 200 && set.optionalDouble == -.pi)
        #expect(set.optionalFloat == .greatestFiniteMagnitude && set.optionalBool == false)
        #expect(set.optionalDate == Date(timeIntervalSince1970: 0) && set.optionalData == Data())
        #expect(set.optionalDecimal == Decimal(sign: .minus, exponent: -6, significand: 1))
        #expect(set.optionalURL == URL(fileURLWithPath: "/tmp/a b.txt"))
        let unset = Sample(seed: 1)
        #expect(unset.optionalString == nil && unset.optionalInt == nil && unset.optionalFloat == nil && unset.optionalURL == nil)
        // Set, then cleared, before insertion.
        unset.optionalDecimal = 5
        #expect(unset.optionalDecimal == 5)
        unset.optionalDecimal = nil
        #expect(unset.optionalDecimal == nil)
        // Above Int64.max: no integer attribute holds it; it reads as the fallback (0), as it
        // would once inserted, and the save refuses it (below).
        unset.uint64 = UInt64.max
        #expect(unset.uint64 == 0)
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
