import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Synchronization
import Testing

/// Three versions of a trip model, as an application that shipped three releases declares them.
enum TripsV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: String
        var destination: String
        init(name: String, destination: String) {
            self.name = name
            self.destination = destination
        }
    }
}

enum TripsV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        @Attribute(originalName: "destination") var city: String
        var nights: Int = 1
        init(name: String, city: String, nights: Int) {
            self.name = name
            self.city = city
            self.nights = nights
        }
    }
}

enum TripsV3: VersionedSchema {
    static let versionIdentifier = Schema.Version(3, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        @Attribute(.unique) var name: String
        var city: String
        var nights: Int = 1
        var note: String?
        init(name: String, city: String, nights: Int) {
            self.name = name
            self.city = city
            self.nights = nights
        }
    }
}

/// A version no plan lists (an unrelated application's model, or a newer release's).
enum TripsUnlisted: VersionedSchema {
    static let versionIdentifier = Schema.Version(9, 0, 0)
    static var models: [any PersistentModel.Type] { [Trip.self] }

    @Model final class Trip {
        var name: String
        var budget: Double = 0
        init(name: String) { self.name = name }
    }
}

/// Which stage code ran, in order (stage closures are `@Sendable`).
let stageLog = Mutex<[String]>([])

/// V1 → V2 removes duplicate names before `name` becomes unique, and fills `nights` after;
/// V2 → V3 is inferred.
enum TripsPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] { [v1ToV2, .lightweight(fromVersion: TripsV2.self, toVersion: TripsV3.self)] }

    static let v1ToV2 = MigrationStage.custom(
        fromVersion: TripsV1.self, toVersion: TripsV2.self,
        willMigrate: { context in
            stageLog.withLock { $0.append("will") }
            var seen: Set<String> = []
            for trip in try context.fetch(FetchDescriptor<TripsV1.Trip>(sortBy: [SortDescriptor(\.destination)])) {
                if !seen.insert(trip.name).inserted { context.delete(trip) }
            }
            try context.save()
        },
        didMigrate: { context in
            stageLog.withLock { $0.append("did") }
            for trip in try context.fetch(FetchDescriptor<TripsV2.Trip>()) { trip.nights = trip.city.count }
        })
}

/// A plan whose first stage's code fails.
enum FailingPlan: SchemaMigrationPlan {
    struct Refused: Error {}
    static var schemas: [any VersionedSchema.Type] { [TripsV1.self, TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] {
        [
            .custom(fromVersion: TripsV1.self, toVersion: TripsV2.self, willMigrate: { _ in throw Refused() }, didMigrate: nil),
            .lightweight(fromVersion: TripsV2.self, toVersion: TripsV3.self),
        ]
    }
}

/// A plan with a stage between versions it does not list.
enum MalformedPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] { [TripsV2.self, TripsV3.self] }
    static var stages: [MigrationStage] { [.lightweight(fromVersion: TripsV1.self, toVersion: TripsV3.self)] }
}

/// `VersionedSchema`, `SchemaMigrationPlan` and `MigrationStage` on every file store type: a
/// store of any listed version opens with the latest classes after the stages from its version
/// ran; an unlisted version is refused untouched.
@Suite(.serialized) struct SchemaMigrationPlanTests {
    static let storeTypes: [(type: String, fileName: String)] = [
        ("SQLite", "trips.sqlite"), ("Binary", "trips.bin"), ("XML", "trips.xml"), ("PipeCSV", "trips.txt"),
    ]

    private func configuration(_ type: String, _ url: URL) -> ModelConfiguration {
        ModelConfiguration(storeType: type, url: url)
    }

    @Test(arguments: storeTypes.map(\.type))
    func aVersionOneStoreRunsEveryStage(type: String) throws {
        let fileName = try #require(Self.storeTypes.first { $0.type == type }).fileName
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent(fileName)
            let registry = StoreRegistry()
            do {
                let container = try ModelContainer(for: [TripsV1.Trip.self], configurations: [configuration(type, url)], registry: registry)
                let context = ModelContext(container)
                context.insert(TripsV1.Trip(name: "Lisbon", destination: "Porto"))
                context.insert(TripsV1.Trip(name: "Lisbon", destination: "Faro"))
                context.insert(TripsV1.Trip(name: "Rome", destination: "Roma"))
                try context.save()
            }
            stageLog.withLock { $0 = [] }
            let container = try ModelContainer(
                for: [TripsV3.Trip.self], migrationPlan: TripsPlan.self, configurations: [configuration(type, url)], registry: registry)
            #expect(stageLog.withLock { $0 } == ["will", "did"])
            let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV3.Trip>(sortBy: [SortDescriptor(\.name)]))
            #expect(trips.map(\.name) == ["Lisbon", "Rome"])
            // The duplicate sorted last by destination ("Porto") was removed before V2; the
            // renamed attribute kept its values; didMigrate's nights were saved.
            #expect(trips.map(\.city) == ["Faro", "Roma"])
            #expect(trips.map(\.nights) == [4, 4])
            #expect(trips.map(\.note) == [nil, nil])
            #expect(container.migrationPlan == TripsPlan.self)
        }
    }

    @Test func aVersionTwoStoreRunsOnlyTheLaterStages() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("trips.sqlite")
            let registry = StoreRegistry()
            do {
                let container = try ModelContainer(for: [TripsV2.Trip.self], configurations: [ModelConfiguration(url: url)], registry: registry)
                let context = ModelContext(container)
                context.insert(TripsV2.Trip(name: "Oslo", city: "Bergen", nights: 2))
                try context.save()
            }
            stageLog.withLock { $0 = [] }
            let container = try ModelContainer(
                for: [TripsV3.Trip.self], migrationPlan: TripsPlan.self, configurations: [ModelConfiguration(url: url)], registry: registry)
            #expect(stageLog.withLock { $0 }.isEmpty)
            let trips = try ModelContext(container).fetch(FetchDescriptor<TripsV3.Trip>())
            #expect(trips.map(\.nights) == [2])
            #expect(trips.map(\.city) == ["Bergen"])
        }
    }

    @Test func aCurrentStoreAndANewStoreRunNoStage() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("trips.sqlite")
            let registry = StoreRegistry()
            stageLog.withLock { $0 = [] }
            for name in ["Oslo", "Rome"] {
                let container = try ModelContainer(
                    for: [TripsV3.Trip.self], migrationPlan: TripsPlan.self, configurations: [ModelConfiguration(url: url)],
                    registry: registry)
                let context = ModelContext(container)
                context.insert(TripsV3.Trip(name: name, city: name, nights: 1))
                try context.save()
            }
            #expect(stageLog.withLock { $0 }.isEmpty)
            let container = try ModelContainer(for: [TripsV3.Trip.self], configurations: [ModelConfiguration(url: url)], registry: registry)
            #expect(try ModelContext(container).fetchCount(FetchDescriptor<TripsV3.Trip>()) == 2)
        }
    }

    @Test func aStoreOfAnUnlistedVersionIsRefusedUntouched() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("trips.xml")
            let registry = StoreRegistry()
            do {
                let container = try ModelContainer(
                    for: [TripsUnlisted.Trip.self], configurations: [configuration("XML", url)], registry: registry)
                let context = ModelContext(container)
                context.insert(TripsUnlisted.Trip(name: "Oslo"))
                try context.save()
            }
            let before = try Data(contentsOf: url)
            let error = try #require(throws: StoreError.self) {
                try ModelContainer(
                    for: [TripsV3.Trip.self], migrationPlan: TripsPlan.self, configurations: [configuration("XML", url)],
                    registry: registry)
            }
            #expect(error.code == .migrationMissingSourceModel)
            #expect(try Data(contentsOf: url) == before)
        }
    }

    @Test func aFailingStageLeavesTheStoreAtItsVersion() throws {
        try withTemporaryDirectory { folder in
            let url = folder.appendingPathComponent("trips.sqlite")
            let registry = StoreRegistry()
            do {
                let container = try ModelContainer(for: [TripsV1.Trip.self], configurations: [ModelConfiguration(url: url)], registry: registry)
                let context = ModelContext(container)
                context.insert(TripsV1.Trip(name: "Oslo", destination: "Bergen"))
                try context.save()
            }
            #expect(throws: FailingPlan.Refused.self) {
                try ModelContainer(
                    for: [TripsV3.Trip.self], migrationPlan: FailingPlan.self, configurations: [ModelConfiguration(url: url)],
                    registry: registry)
            }
            // Still version 1: it opens with V1's classes and no migration.
            let container = try ModelContainer(
                for: [TripsV1.Trip.self],
                configurations: [ModelConfiguration(storeType: "SQLite", url: url, options: [StoreOptionKey.migrateAutomatically: .bool(false)])],
                registry: registry)
            #expect(try ModelContext(container).fetch(FetchDescriptor<TripsV1.Trip>()).map(\.destination) == ["Bergen"])
        }
    }

    @Test func aMalformedPlanIsRefused() throws {
        try withTemporaryDirectory { folder in
            let error = try #require(throws: StoreError.self) {
                try ModelContainer(
                    for: [TripsV3.Trip.self], migrationPlan: MalformedPlan.self,
                    configurations: [ModelConfiguration(url: folder.appendingPathComponent("trips.sqlite"))], registry: StoreRegistry())
            }
            #expect(error.code == .migration)
            #expect(error.message.contains("MalformedPlan"))
            #expect(error.message.contains("TripsV1"))
        }
    }

    @Test func schemaVersionsOrderAndDescribe() throws {
        #expect(Schema.Version(1, 2, 3) < Schema.Version(1, 3, 0))
        #expect(Schema.Version(2, 0, 0).description == "2.0.0")
        let schema = try Schema(versionedSchema: TripsV2.self)
        #expect(schema.version == Schema.Version(2, 0, 0))
        #expect(schema.entityNames == ["Trip"])
    }
}
