import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// A value an attribute cannot hold is refused by the save, naming the property. (The round
/// trip of every value type through every store type is the typed-model conformance case's:
/// ModelConformanceTests.)
@Suite struct ModelStoreRoundTripTests {
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
