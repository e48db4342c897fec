import Foundation
@testable import ModelConformance
import PersistentModels
import StoreTestSupport
import Testing

/// `ModelContainer(for:configuration:)`: the stores of `@Model` classes read from the
/// configuration layer (file, environment), so configuration chooses the backend as it does for
/// `PersistentContainer`.
@Suite struct ModelContainerConfigurationTests {
    /// Saves a trip through a container made from `sources`, reads it back through another.
    private func roundTrip(_ sources: () throws -> StoreConfigurationSources) throws -> ModelContainer {
        do {
            let container = try ModelContainer(for: Trip.self, Accommodation.self, configuration: try sources(), registry: StoreRegistry())
            let context = ModelContext(container)
            let trip = Trip(name: "Lisbon", destination: "Portugal", start: Date(timeIntervalSinceReferenceDate: 0))
            trip.stays = [Accommodation(name: "Hotel", nights: 2)]
            context.insert(trip)
            try context.save()
        }
        let container = try ModelContainer(for: Trip.self, Accommodation.self, configuration: try sources(), registry: StoreRegistry())
        let trips = try ModelContext(container).fetch(FetchDescriptor<Trip>())
        #expect(trips.map(\.name) == ["Lisbon"])
        #expect(trips.first?.stays.map(\.name) == ["Hotel"])
        return container
    }

    @Test func theEnvironmentChoosesTheStoreTypeAndPath() throws {
        try withTemporaryDirectory { folder in
            let path = folder.appendingPathComponent("trips.xml").path
            let environment = ["PERSISTENCE_STORE_TYPE": "XML", "PERSISTENCE_STORE_PATH": path]
            let container = try roundTrip { try StoreConfigurationSources(environment: environment) }
            #expect(container.coordinator.persistentStores.map(\.type) == ["XML"])
            #expect(container.configurations.map(\.storeType) == ["XML"])
            #expect(container.configurations.first?.url?.path == path)
            #expect(FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func aFileChoosesTheStoreAndTheEnvironmentWins() throws {
        try withTemporaryDirectory { folder in
            let file = folder.appendingPathComponent("stores.yaml")
            try """
                persistence:
                  name: Trips
                  folder: \(folder.path)
                  store:
                    type: Binary
                """.write(to: file, atomically: true, encoding: .utf8)
            let binary = try roundTrip { try StoreConfigurationSources(file: file, environment: [:]) }
            #expect(binary.coordinator.persistentStores.map(\.type) == ["Binary"])
            #expect(binary.configurations.first?.name == "Trips")
            #expect(binary.configurations.first?.url == folder.appendingPathComponent("Trips.binary"))
            // The environment switches the backend whatever the file says.
            let sqlite = try roundTrip { try StoreConfigurationSources(file: file, environment: ["PERSISTENCE_STORE_TYPE": "SQLite"]) }
            #expect(sqlite.coordinator.persistentStores.map(\.type) == ["SQLite"])
            #expect(sqlite.configurations.first?.url == folder.appendingPathComponent("Trips.sqlite"))
        }
    }

    @Test func aMistypedKeyOrAModelFileIsAnError() throws {
        try withTemporaryDirectory { folder in
            let typo = storeError {
                _ = try ModelContainer(
                    for: Trip.self, Accommodation.self,
                    configuration: try StoreConfigurationSources(environment: [
                        "PERSISTENCE_STORE_TPYE": "XML", "PERSISTENCE_FOLDER": folder.path,
                    ]), registry: StoreRegistry())
            }
            #expect(typo?.message.contains("PERSISTENCE_STORE_TPYE") == true, "\(typo?.message ?? "")")
            #expect(typo?.message.contains("PERSISTENCE_STORE_TYPE") == true)
            let model = storeError {
                _ = try ModelContainer(
                    for: Trip.self, Accommodation.self,
                    configuration: try StoreConfigurationSources(environment: [
                        "PERSISTENCE_MODEL": "League.json", "PERSISTENCE_FOLDER": folder.path,
                    ]), registry: StoreRegistry())
            }
            #expect(model?.message.contains("@Model classes") == true, "\(model?.message ?? "")")
            let created = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            #expect(created.isEmpty, "nothing was created")
        }
    }
}
