import Foundation
@testable import ModelConformance
import PersistentModels
@testable import SQLiteStore
import StoreCore
import StoreTestSupport
import Testing

/// Foundation's `Predicate` translated into the framework's predicates: every supported form
/// translates into the string predicate it answers as (the answers on every store type are the
/// typed-model conformance case's, ModelConformanceTests); the SQL the SQLite store compiles for
/// it is the SQL of the string predicate; what cannot be translated fails with a `StoreError`
/// naming it.
@Suite struct PredicateTranslationTests {
    @Test func answersAreTheOnesExpected() throws {
        let container = try ModelContainer(
            for: Trip.self, Accommodation.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true))
        try PredicateCases.insertDataset(ModelContext(container))
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
        var checked = 0
        for check in ModelConformanceSuite.predicateChecks where check.isWrittenAlike {
            let translated = try check.translated()
            #expect(translated == (try FetchPredicate(format: check.format)), "\(check): \(translated?.predicateFormat ?? "nil")")
            checked += 1
        }
        #expect(checked > 25)
    }

    @Test func theSQLiteStoreCompilesTheSameSQL() throws {
        try withTemporaryDirectory { folder in
            let model = try ModelConformanceSuite.predicateModel()
            let store = try SQLiteStore(model: model, configurationName: nil, url: folder.appendingPathComponent("Trips.sqlite"), options: [:])
            try store.loadMetadata()
            let (_, schema) = try store.ready()
            func sql(_ predicate: FetchPredicate, entity: String) throws -> (String, [StoreValue]) {
                let mapping = try #require(schema.entities[entity])
                let compiler = SQLQueryCompiler(schema: schema, model: model, storeIdentifier: store.identifier, entity: mapping)
                let condition = try compiler.condition(predicate)
                return (condition + " FROM " + compiler.rootJoins.clauses.joined(separator: " "), compiler.parameters)
            }
            var checked = 0
            for check in ModelConformanceSuite.predicateChecks where check.isWrittenAlike {
                let translated = try #require(try check.translated())
                let typed = try sql(translated, entity: check.entityName)
                let string = try sql(try FetchPredicate(format: check.format), entity: check.entityName)
                #expect(typed.0 == string.0, "\(check)")
                #expect(typed.1 == string.1, "\(check)")
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
        try PredicateCases.insertDataset(ModelContext(container))
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
            try PredicateCases.insertDataset(ModelContext(container))
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
