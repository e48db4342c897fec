import Foundation
import PersistentStores
@testable import storectl

/// What one in-process `storectl` run printed and returned.
struct Run {
    let status: Int32
    let output: String
    let errors: String
}

/// Runs `storectl` with `arguments` in this process, capturing both streams.
func storectl(_ arguments: String...) -> Run {
    storectl(arguments)
}

/// Runs `storectl` with `arguments` in this process, capturing both streams.
func storectl(_ arguments: [String]) -> Run {
    let (console, captured) = Console.capturing()
    let status = Console.$current.withValue(console) { StoreCtl.run(arguments) }
    return Run(status: status, output: captured.standardOutput, errors: captured.standardError)
}

/// The League model the demo writes, with a required last name for the validation tests.
func leagueModel(requiredLastName: Bool = false) throws -> ObjectModel {
    try ObjectModel {
        Entity("Team") {
            Attribute("name", .string)
            Attribute("uniformColor", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("firstName", .string)
            Attribute("lastName", .string, optional: !requiredLastName)
            Attribute("email", .string)
            Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
        }
    }
}

/// The model of the Vehicles.xml fixture, as its README lists it.
func vehiclesModel() throws -> ObjectModel {
    try ObjectModel {
        Entity("Vehicle") {
            Attribute("make", .string)
            Attribute("model", .string)
            Attribute("nickname", .string)
            Attribute("year", .integer32)
            Relationship(
                "vehiclePictures", to: "VehiclePicture", inverse: "picturesForVehicle", toMany: true, deleteRule: .cascade)
        }
        Entity("VehiclePicture") {
            Attribute("pictureName", .string)
            Attribute("sequence", .integer32)
            Attribute("imageData", .binaryData)
            Relationship("picturesForVehicle", to: "Vehicle", inverse: "vehiclePictures", deleteRule: .nullify)
        }
    }
}

/// The file extension the tests give each store type.
func fileName(for type: String) -> String { "League.\(type.lowercased())" }

/// The lines of `text`, without the empty last one.
func lines(_ text: String) -> [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
