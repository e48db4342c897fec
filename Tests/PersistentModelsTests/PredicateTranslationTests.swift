import Foundation
import PersistentModels
@testable import SQLiteStore
import StoreCore
import StoreTestSupport
import Testing

/// A `#Predicate` and the string predicate (docs/predicates.md) it must answer as.
struct TypedPredicateCase<Model: PersistentModel>: Sendable, CustomTestStringConvertible {
    let predicate: Predicate<Model>
    let format: String
    let source: String
    var testDescription: String { source }

    init(_ format: String, line: Int = #line, _ predicate: Predicate<Model>) {
        self.predicate = predicate
        self.format = format
        self.source = "line \(line): \(format)"
    }
}

/// Foundation's `Predicate` translated into the framework's predicates: every supported form
/// answers as the equivalent string predicate, on every built-in store type; the SQL the SQLite
/// store compiles for it is the SQL of the string predicate; what cannot be translated fails
/// with a `StoreError` naming it.
@Suite struct PredicateTranslationTests {
    // MARK: The cases

    /// Trip cases. Each `#Predicate` is kept short: the macro's expansion is type-checked as
    /// one expression.
    static func tripCases() -> [TypedPredicateCase<Trip>] {
        var cases: [TypedPredicateCase<Trip>] = []
        let minimum = 4
        let names = ["Lisbon", "Paris", "Nowhere"]
        let threshold = Date(timeIntervalSinceReferenceDate: 25)
        let band = 3...4
        // Comparisons.
        cases.append(.init("rating == 4", #Predicate<Trip> { $0.rating == 4 }))
        cases.append(.init("rating != 4", #Predicate<Trip> { $0.rating != 4 }))
        cases.append(.init("rating < 4", #Predicate<Trip> { $0.rating < 4 }))
        cases.append(.init("rating <= 4", #Predicate<Trip> { $0.rating <= 4 }))
        cases.append(.init("rating > 3", #Predicate<Trip> { $0.rating > 3 }))
        cases.append(.init("rating >= 3", #Predicate<Trip> { $0.rating >= 3 }))
        cases.append(.init("destination == 'Portugal'", #Predicate<Trip> { $0.destination == "Portugal" }))
        cases.append(.init("start > CAST(25, 'NSDate')", #Predicate<Trip> { $0.start > threshold }))
        // Logic.
        cases.append(.init("rating > 2 AND destination == 'Portugal'", #Predicate<Trip> { $0.rating > 2 && $0.destination == "Portugal" }))
        cases.append(.init("rating == 5 OR destination == 'Japan'", #Predicate<Trip> { $0.rating == 5 || $0.destination == "Japan" }))
        cases.append(.init("NOT rating == 4", #Predicate<Trip> { !($0.rating == 4) }))
        // Arithmetic.
        cases.append(.init("rating * 2 > 7", #Predicate<Trip> { $0.rating * 2 > 7 }))
        cases.append(.init("rating + 1 == 5", #Predicate<Trip> { $0.rating + 1 == 5 }))
        cases.append(.init("rating - 1 == 3", #Predicate<Trip> { $0.rating - 1 == 3 }))
        cases.append(.init("rating * -1 < -3", #Predicate<Trip> { -$0.rating < -3 }))
        // The ternary operator.
        cases.append(.init("rating >= 4", #Predicate<Trip> { ($0.rating > 3 ? $0.rating : 0) >= 4 }))
        // Optionals.
        cases.append(.init("budget != nil", #Predicate<Trip> { $0.budget != nil }))
        cases.append(.init("budget == nil", #Predicate<Trip> { $0.budget == nil }))
        cases.append(.init("budget > 500", #Predicate<Trip> { ($0.budget ?? 0) > 500 }))
        cases.append(.init("budget < 500 OR budget == nil", #Predicate<Trip> { ($0.budget ?? 0) < 500 }))
        cases.append(.init("budget * 2 == 1600", #Predicate<Trip> { $0.budget.flatMap { $0 * 2 } == 1600 }))
        cases.append(.init("budget > 1000", #Predicate<Trip> { $0.budget! > 1000 }))
        // Strings.
        cases.append(.init("name CONTAINS 'o'", #Predicate<Trip> { $0.name.contains("o") }))
        cases.append(.init("name BEGINSWITH 'P'", #Predicate<Trip> { $0.name.starts(with: "P") }))
        cases.append(.init("NOT destination == ''", #Predicate<Trip> { !$0.destination.isEmpty }))
        // Captured values.
        cases.append(.init("rating >= 4", #Predicate<Trip> { $0.rating >= minimum }))
        cases.append(.init("name IN {'Lisbon', 'Paris', 'Nowhere'}", #Predicate<Trip> { names.contains($0.name) }))
        cases.append(.init("rating BETWEEN {3, 4}", #Predicate<Trip> { (3...4).contains($0.rating) }))
        cases.append(.init("rating BETWEEN {3, 4}", #Predicate<Trip> { band.contains($0.rating) }))
        cases.append(.init("rating >= 3 AND rating < 5", #Predicate<Trip> { (3..<5).contains($0.rating) }))
        cases.append(.init("budget > 500", #Predicate<Trip> { $0.budget.flatMap { $0 > 500 } == true }))
        // To-many relationships.
        cases.append(
            .init(
                "SUBQUERY(stays, $x, $x.name BEGINSWITH 'Hotel').@count > 0",
                #Predicate<Trip> { $0.stays.contains(where: { $0.name.starts(with: "Hotel") }) }))
        cases.append(
            .init("SUBQUERY(stays, $x, NOT $x.nights >= 2).@count == 0", #Predicate<Trip> { $0.stays.allSatisfy { $0.nights >= 2 } }))
        cases.append(.init("stays.@count >= 2", #Predicate<Trip> { $0.stays.count >= 2 }))
        cases.append(.init("stays.@count == 0", #Predicate<Trip> { $0.stays.isEmpty }))
        cases.append(
            .init("SUBQUERY(stays, $x, $x.nights > 1).@count == 2", #Predicate<Trip> { $0.stays.filter { $0.nights > 1 }.count == 2 }))
        return cases
    }

    /// Accommodation cases: key paths through the to-one.
    static func accommodationCases() -> [TypedPredicateCase<Accommodation>] {
        var cases: [TypedPredicateCase<Accommodation>] = []
        cases.append(.init("trip.name == 'Lisbon'", #Predicate<Accommodation> { $0.trip?.name == "Lisbon" }))
        cases.append(.init("trip.rating > 3", #Predicate<Accommodation> { ($0.trip?.rating ?? 0) > 3 }))
        cases.append(.init("trip == nil", #Predicate<Accommodation> { $0.trip == nil }))
        cases.append(.init("trip != nil AND nights > 1", #Predicate<Accommodation> { $0.trip != nil && $0.nights > 1 }))
        cases.append(.init("trip.destination BEGINSWITH 'P'", #Predicate<Accommodation> { $0.trip!.destination.starts(with: "P") }))
        return cases
    }

    // MARK: The data set

    /// Five trips with accommodations, and one accommodation without a trip.
    static func insertDataset(_ context: ModelContext) throws {
        func trip(_ name: String, _ destination: String, _ start: Double, _ budget: Decimal?, _ rating: Int, _ stays: [(String, Int16)]) {
            let trip = Trip(name: name, destination: destination, start: Date(timeIntervalSinceReferenceDate: start), budget: budget)
            trip.rating = rating
            trip.stays = stays.map { Accommodation(name: $0.0, nights: $0.1) }
            context.insert(trip)
        }
        trip("Lisbon", "Portugal", 10, 1200, 5, [("Hotel Avenida", 3), ("Hostel Alfama", 2)])
        trip("Porto", "Portugal", 20, nil, 3, [("Hotel Ribeira", 4)])
        trip("Paris", "", 30, 800, 4, [])
        trip("Évora", "portugal", 40, 300, 2, [("Casa", 1)])
        trip("Kyoto", "Japan", 50, nil, 4, [("Ryokan", 5), ("Hotel K", 2), ("Hostel", 1)])
        context.insert(Accommodation(name: "Tent", nights: 7))
        try context.save()
    }

    static let storeTypes = ["SQLite", "InMemory", "Binary", "XML", "PipeCSV", "PostgreSQL"]

    static func configuration(_ storeType: String, in folder: URL) throws -> ModelConfiguration {
        switch storeType {
        case "InMemory": return ModelConfiguration(isStoredInMemoryOnly: true)
        case "PostgreSQL": return ModelConfiguration(storeType: storeType, url: try TestPostgreSQLServer.freshStoreURL("models"))
        default: return ModelConfiguration(storeType: storeType, url: folder.appendingPathComponent("Trips.store"))
        }
    }

    /// The IDs a `#Predicate` and its string predicate fetch.
    static func answers<Model: PersistentModel>(
        _ typedCase: TypedPredicateCase<Model>, in context: ModelContext
    ) throws -> (typed: Set<ObjectID>, string: Set<ObjectID>) {
        let typed = try context.fetchIdentifiers(FetchDescriptor(predicate: typedCase.predicate)).map(\.objectID)
        let request = FetchRequest(
            entityName: Model.persistentEntitySchema.entityName, predicate: try FetchPredicate(format: typedCase.format))
        return (Set(typed), Set(try context.managedObjectContext.fetchObjectIDs(request)))
    }

    // MARK: Tests

    @Test("Every #Predicate answers as its string predicate", arguments: storeTypes)
    func typedPredicatesAnswerAsStringPredicates(storeType: String) throws {
        try withTemporaryDirectory { folder in
            let container = try ModelContainer(
                for: [Trip.self, Accommodation.self], configurations: [try Self.configuration(storeType, in: folder)], registry: StoreRegistry())
            try Self.insertDataset(ModelContext(container))
            // A new context: every answer comes from the store.
            let context = ModelContext(container)
            let lisbon = try #require(try context.fetch(FetchDescriptor<Trip>(predicate: #Predicate { $0.name == "Lisbon" })).first)
            #expect(lisbon.stays.count == 2)
            for typedCase in Self.tripCases() {
                let (typed, string) = try Self.answers(typedCase, in: context)
                #expect(typed == string, "\(storeType) \(typedCase.source)")
                #expect(!string.isEmpty && string.count < 5, "\(storeType) \(typedCase.source) does not tell the trips apart")
            }
            for typedCase in Self.accommodationCases() {
                let (typed, string) = try Self.answers(typedCase, in: context)
                #expect(typed == string, "\(storeType) \(typedCase.source)")
                #expect(!string.isEmpty && string.count < 8, "\(storeType) \(typedCase.source) does not tell the stays apart")
            }
            // Objects compare by identifier (`persistentModelID` is the object itself).
            let lisbonID = lisbon.persistentModelID
            let lisbonStays = try context.fetch(
                FetchDescriptor<Accommodation>(predicate: #Predicate { $0.trip?.persistentModelID == lisbonID }))
            #expect(Set(lisbonStays.map(\.name)) == ["Hotel Avenida", "Hostel Alfama"], "\(storeType)")
            let others = try context.fetchCount(
                FetchDescriptor<Accommodation>(predicate: #Predicate { $0.trip?.persistentModelID != lisbonID }))
            #expect(others == 6, "\(storeType)")
            let objectID = lisbon.persistentObjectID
            #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.persistentObjectID == objectID })) == 1)
        }
    }

    @Test func answersAreTheOnesExpected() throws {
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try Self.insertDataset(ModelContext(container))
        let context = ModelContext(container)
        func names(_ predicate: Predicate<Trip>) throws -> [String] {
            try context.fetch(FetchDescriptor(predicate: predicate, sortBy: [SortDescriptor(\.name)])).map(\.name)
        }
        #expect(try names(#Predicate { ($0.budget ?? 0) > 500 }) == ["Lisbon", "Paris"])
        #expect(try names(#Predicate { $0.stays.contains(where: { $0.name.starts(with: "Hotel") }) }) == ["Kyoto", "Lisbon", "Porto"])
        #expect(try names(#Predicate { $0.stays.filter { $0.nights > 1 }.count == 2 }) == ["Kyoto", "Lisbon"])
        #expect(try names(#Predicate { $0.stays.allSatisfy { $0.nights >= 2 } }) == ["Lisbon", "Paris", "Porto"])
    }

    @Test func theTranslationIsTheStringPredicate() throws {
        for typedCase in Self.tripCases() where !Self.semanticOnly.contains(typedCase.format) {
            let translated = try FetchDescriptor(predicate: typedCase.predicate).fetchRequest().predicate
            #expect(translated == (try FetchPredicate(format: typedCase.format)), "\(typedCase.source): \(translated?.predicateFormat ?? "nil")")
        }
        for typedCase in Self.accommodationCases() where !Self.semanticOnly.contains(typedCase.format) {
            let translated = try FetchDescriptor(predicate: typedCase.predicate).fetchRequest().predicate
            #expect(translated == (try FetchPredicate(format: typedCase.format)), "\(typedCase.source): \(translated?.predicateFormat ?? "nil")")
        }
    }

    /// Cases whose translation answers as the string predicate without being written the same
    /// way (`??` and the ternary operator spell out both branches; decimal and date constants).
    static let semanticOnly: Set<String> = [
        "rating >= 4", "budget > 500", "budget < 500 OR budget == nil", "trip.rating > 3",
        "start > CAST(25, 'NSDate')", "budget * 2 == 1600", "budget > 1000",
    ]

    @Test func theSQLiteStoreCompilesTheSameSQL() throws {
        try withTemporaryDirectory { folder in
            let model = try ObjectModel(for: Trip.self, Accommodation.self)
            let store = try SQLiteStore(model: model, configurationName: nil, url: folder.appendingPathComponent("Trips.sqlite"), options: [:])
            try store.loadMetadata()
            let (_, schema) = try store.ready()
            func sql(_ predicate: FetchPredicate, entity: String) throws -> (String, [StoreValue]) {
                let mapping = try #require(schema.entities[entity])
                let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: store.identifier, entity: mapping)
                let condition = try compiler.condition(predicate)
                return (condition + " FROM " + compiler.rootJoins.clauses.joined(separator: " "), compiler.parameters)
            }
            func check<Model: PersistentModel>(_ typedCase: TypedPredicateCase<Model>) throws {
                let entity = Model.persistentEntitySchema.entityName
                let translated = try #require(try FetchDescriptor(predicate: typedCase.predicate).fetchRequest().predicate)
                let typed = try sql(translated, entity: entity)
                let string = try sql(try FetchPredicate(format: typedCase.format), entity: entity)
                #expect(typed.0 == string.0, "\(typedCase.source)")
                #expect(typed.1 == string.1, "\(typedCase.source)")
            }
            var checked = 0
            for typedCase in Self.tripCases() where !Self.semanticOnly.contains(typedCase.format) {
                try check(typedCase)
                checked += 1
            }
            for typedCase in Self.accommodationCases() where !Self.semanticOnly.contains(typedCase.format) {
                try check(typedCase)
                checked += 1
            }
            #expect(checked > 25)
            // One in full: a to-one key path and a string comparison, in SQL.
            let stays = try #require(
                try FetchDescriptor<Accommodation>(predicate: #Predicate { $0.trip?.name == "Lisbon" }).fetchRequest().predicate)
            let (condition, parameters) = try sql(stays, entity: "Accommodation")
            #expect(condition.contains("JOIN"))
            #expect(parameters == [.string("Lisbon")])
        }
    }

    @Test func whatCannotBeTranslatedFailsAtFetchNamingTheExpression() throws {
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try Self.insertDataset(ModelContext(container))
        let context = ModelContext(container)
        func failure(_ predicate: Predicate<Trip>) -> StoreError? {
            storeError { _ = try context.fetch(FetchDescriptor(predicate: predicate)) }
        }
        let remainder = failure(#Predicate { $0.rating % 2 == 0 })
        #expect(remainder?.code == .coreData)
        #expect(remainder?.message.contains("#Predicate<Trip>") == true)
        #expect(remainder?.message.contains("IntRemainder") == true, "\(remainder?.message ?? "")")
        #expect(remainder?.entityName == "Trip")
        let division = failure(#Predicate { $0.rating / 2 == 2 })
        #expect(division?.message.contains("integer division") == true, "\(division?.message ?? "")")
        let length = failure(#Predicate { $0.name.count > 4 })
        #expect(length?.message.contains("length") == true, "\(length?.message ?? "")")
        let transient = failure(#Predicate { $0.viewCount > 0 })
        #expect(transient?.message.contains("not a persisted property of Trip") == true, "\(transient?.message ?? "")")
        let computed = failure(#Predicate { $0.title == "x" })
        #expect(computed?.message.contains("not a persisted property of Trip") == true, "\(computed?.message ?? "")")
        let outer = failure(#Predicate { trip in trip.stays.contains(where: { $0.name == trip.name }) })
        #expect(outer?.message.contains("object being fetched") == true, "\(outer?.message ?? "")")
        // fetchCount, fetchIdentifiers and enumerate fail the same way.
        let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.rating % 2 == 0 })
        #expect(storeError { _ = try context.fetchCount(descriptor) }?.message.contains("IntRemainder") == true)
        #expect(storeError { _ = try context.fetchIdentifiers(descriptor) }?.message.contains("IntRemainder") == true)
        #expect(storeError { try context.enumerate(descriptor) { _ in } }?.message.contains("IntRemainder") == true)
    }

    // MARK: The descriptor and the context

    @Test func descriptorPropertiesMapOntoTheRequest() throws {
        var descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.rating > 3 }, sortBy: [SortDescriptor(\.name)])
        descriptor.propertiesToFetch = [\.name, \.rating]
        descriptor.relationshipKeyPathsForPrefetching = [\.stays]
        descriptor.fetchLimit = 2
        descriptor.fetchOffset = 1
        descriptor.includePendingChanges = false
        let request = try descriptor.fetchRequest()
        #expect(request.predicate == (try FetchPredicate(format: "rating > 3")))
        #expect(request.propertiesToFetch == [.property("name"), .property("rating")])
        #expect(request.relationshipKeyPathsForPrefetching == ["stays"])
        #expect(request.sortKeys == [SortKey("name")])
        #expect(request.fetchLimit == 2)
        #expect(request.fetchOffset == 1)
        #expect(request.includesPendingChanges == false)
        descriptor.propertiesToFetch = [\.title]
        #expect(storeError { _ = try descriptor.fetchRequest() }?.message.contains("propertiesToFetch names") == true)
    }

    @Test func fetchCountIdentifiersAndEnumerate() throws {
        try withTemporaryDirectory { folder in
            let container = try ModelContainer(
                for: [Trip.self, Accommodation.self], configurations: [ModelConfiguration(url: folder.appendingPathComponent("Trips.store"))],
                registry: StoreRegistry())
            try Self.insertDataset(ModelContext(container))
            let context = ModelContext(container)
            let descriptor = FetchDescriptor<Trip>(predicate: #Predicate { $0.rating >= 3 }, sortBy: [SortDescriptor(\.name)])
            #expect(try context.fetchCount(descriptor) == 4)
            let ids = try context.fetchIdentifiers(descriptor)
            #expect(ids.count == 4)
            #expect(ids == (try context.fetch(descriptor).map(\.persistentModelID)))
            #expect(ids.allSatisfy { !$0.isTemporary })

            var seen: [String] = []
            try context.enumerate(descriptor, batchSize: 3) { seen.append($0.name) }
            #expect(seen == ["Kyoto", "Lisbon", "Paris", "Porto"])
            // Changing objects in the block needs allowEscapingMutations.
            let mutation = storeError { try context.enumerate(descriptor, batchSize: 2) { $0.rating += 1 } }
            #expect(mutation?.message.contains("allowEscapingMutations") == true)
            context.rollback()
            try context.enumerate(descriptor, batchSize: 2, allowEscapingMutations: true) { $0.rating += 1 }
            try context.save()
            #expect(try context.fetchCount(FetchDescriptor<Trip>(predicate: #Predicate { $0.rating >= 5 })) == 3)
            #expect(storeError { try context.enumerate(descriptor, batchSize: 0) { _ in } }?.message.contains("batchSize") == true)
        }
    }
}
