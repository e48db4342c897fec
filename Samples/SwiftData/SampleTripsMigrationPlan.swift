// SwiftData sample code: only `import SwiftData` is changed, to `import PersistentModels`.
import Foundation
import PersistentModels

enum SampleTripsSchemaV1: VersionedSchema {
    static let versionIdentifier = Schema.Version(1, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Trip.self]
    }

    @Model
    final class Trip {
        var name: String
        var destination: String
        var startDate: Date
        var endDate: Date

        init(name: String, destination: String, startDate: Date, endDate: Date) {
            self.name = name
            self.destination = destination
            self.startDate = startDate
            self.endDate = endDate
        }
    }
}

enum SampleTripsSchemaV2: VersionedSchema {
    static let versionIdentifier = Schema.Version(2, 0, 0)

    static var models: [any PersistentModel.Type] {
        [Trip.self]
    }

    @Model
    final class Trip {
        @Attribute(.unique) var name: String
        @Attribute(originalName: "destination") var city: String
        var startDate: Date
        var endDate: Date
        var nights: Int = 0

        init(name: String, city: String, startDate: Date, endDate: Date) {
            self.name = name
            self.city = city
            self.startDate = startDate
            self.endDate = endDate
        }
    }
}

enum SampleTripsMigrationPlan: SchemaMigrationPlan {
    static var schemas: [any VersionedSchema.Type] {
        [SampleTripsSchemaV1.self, SampleTripsSchemaV2.self]
    }

    static var stages: [MigrationStage] {
        [migrateV1toV2]
    }

    static let migrateV1toV2 = MigrationStage.custom(
        fromVersion: SampleTripsSchemaV1.self,
        toVersion: SampleTripsSchemaV2.self,
        willMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<SampleTripsSchemaV1.Trip>(sortBy: [SortDescriptor(\.startDate)]))
            var names = Set<String>()
            for trip in trips where !names.insert(trip.name).inserted {
                context.delete(trip)
            }
            try context.save()
        },
        didMigrate: { context in
            let trips = try context.fetch(FetchDescriptor<SampleTripsSchemaV2.Trip>())
            for trip in trips {
                trip.nights = Int(trip.endDate.timeIntervalSince(trip.startDate) / 86_400)
            }
            try context.save()
        }
    )
}
