import Conformance
import Foundation
import PersistentModels

/// The conformance cases of `@Model` classes: every value type SwiftData users use round-trips,
/// enum and composite attributes are stored as documented, and every `#Predicate` answers as
/// the equivalent string predicate — on the store type under test.
///
/// They are `ConformanceCase`s like the suite's own, run the same way (and skipped the same way
/// for a missing capability); they live in this product so that a store author who uses
/// StoreCore alone does not build the macros' swift-syntax:
///
/// ```swift
/// let report = ConformanceSuite.run(storeType: "Mine", registry: registry,
///                                   cases: ConformanceSuite.allCases + ModelConformanceSuite.allCases)
/// ```
public enum ModelConformanceSuite {
    /// Every typed-model case (outside the behaviour catalogue: behaviour 0).
    public static var allCases: [ConformanceCase] {
        [
            ConformanceCase(
                "typed models: every value type round-trips", behaviour: 0, area: .crud, runsAfterReopen: true,
                body: { try roundTripEveryValueType($0) }),
            ConformanceCase(
                "typed models: enum and composite attributes are stored as raw values and sorted JSON", behaviour: 0,
                area: .crud, runsAfterReopen: true, body: { try storedFormsOfEnumsAndCompositeValues($0) }),
            ConformanceCase(
                "typed models: a stored value the type cannot hold reads as the fallback and fails the next save",
                behaviour: 0, area: .validation, runsAfterReopen: true, body: { try storedValueTheTypeCannotHold($0) }),
            ConformanceCase(
                "typed models: every #Predicate answers as its string predicate", behaviour: 0, area: .predicates,
                runsAfterReopen: true, body: { try predicatesAnswerAsStringPredicates($0) }),
        ]
    }

    /// Every `#Predicate` of the predicate case, with the string predicate it must answer as.
    public static var predicateChecks: [TypedPredicateCheck] {
        PredicateCases.tripCases().map(TypedPredicateCheck.init) + PredicateCases.accommodationCases().map(TypedPredicateCheck.init)
    }

    /// The model the predicate checks run on (entities `Trip` and `Accommodation`).
    public static func predicateModel() throws -> ObjectModel {
        try ObjectModel(for: Trip.self, Accommodation.self)
    }

    // MARK: Containers

    /// A container for `types` with one store of the type under test, in the run's folder.
    static func container(_ types: [any PersistentModel.Type], _ environment: ConformanceEnvironment) throws -> ModelContainer {
        let configuration = ModelConfiguration(storeType: environment.storeType, url: environment.storeURL("models"))
        return try ModelContainer(for: types, configurations: [configuration], registry: environment.registry)
    }

    /// The context to read back from, per the run's variant: a new context on the same
    /// container, or (after reopen) the stores removed and a new container on the same URL.
    static func reader(_ container: ModelContainer, _ environment: ConformanceEnvironment) throws -> ModelContext {
        switch environment.variant {
        case .fromCache:
            return ModelContext(container)
        case .afterReopen:
            for store in container.coordinator.persistentStores { try container.coordinator.remove(store) }
            return ModelContext(try Self.container(container.schema.types, environment))
        }
    }

    /// Compares property values field by field; a failure names the object and the field.
    static func expectSame(
        _ actual: [[String: AnyHashable]], _ expected: [[String: AnyHashable]], _ label: String,
        _ environment: ConformanceEnvironment
    ) throws {
        try environment.expectEqual(actual.count, expected.count, "\(label): number of objects")
        for (index, (a, b)) in zip(actual, expected).enumerated() {
            for key in b.keys.sorted() {
                try environment.expect(a[key] == b[key], "\(label)[\(index)].\(key): expected \(b[key].map { "\($0)" } ?? "nil"), got \(a[key].map { "\($0)" } ?? "nil")")
            }
        }
    }
}
