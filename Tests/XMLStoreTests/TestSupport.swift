import Foundation
import StoreCore
import StoreTestSupport
import Testing
import XMLStore

/// The shared fixtures folder: `$PERSISTENTSTORES_FIXTURES`, or `../shared/fixtures` beside the
/// package.
enum Fixtures {
    static let directory = sharedFixturesDirectory

    static let vehicles = directory.appendingPathComponent("coredata-xml/Vehicles.xml")

    static var available: Bool { FileManager.default.fileExists(atPath: vehicles.path) }

    /// Copies Vehicles.xml into `directory` (the fixture itself is never written).
    static func copyVehicles(to directory: URL) throws -> URL {
        let copy = directory.appendingPathComponent("Vehicles.xml")
        try FileManager.default.copyItem(at: vehicles, to: copy)
        return copy
    }
}

/// A registry holding only the XMLStore type.
let xmlRegistry = StoreStack<XMLStore>.registry

enum Models {
    /// The model of the Vehicles.xml fixture, as its README lists it.
    static let vehicles: ObjectModel = build {
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

    /// Team ↔ Player, as in Core Data's documentation.
    static let league: ObjectModel = build {
        Entity("Team") {
            Attribute("name", .string)
            Attribute("uniformColor", .string)
            Relationship("players", to: "Player", inverse: "team", toMany: true, deleteRule: .cascade)
        }
        Entity("Player") {
            Attribute("firstName", .string)
            Attribute("lastName", .string)
            Attribute("email", .string)
            Relationship("team", to: "Team", inverse: "players", deleteRule: .nullify)
        }
    }

    /// One attribute of every type, optional (`<type>Optional`) and not (`<type>`).
    static let allTypes: ObjectModel = build {
        Entity("AllTypes") {
            for type in AttributeType.allCases {
                Attribute(type.rawValue, type, optional: false)
                Attribute(type.rawValue + "Optional", type)
            }
        }
    }

    /// An abstract parent, two concrete children, a to-one to the parent and an ordered to-many.
    static let shapes: ObjectModel = build {
        Entity("Shape", abstract: true) {
            Attribute("color", .string)
        }
        Entity("Circle", parent: "Shape") {
            Attribute("radius", .float)
        }
        Entity("Polygon", parent: "Shape") {
            Relationship("vertices", to: "Vertex", inverse: "polygon", toMany: true, ordered: true, minCount: 3, deleteRule: .cascade)
        }
        Entity("Vertex") {
            Attribute("index", .integer16)
            Relationship("polygon", to: "Polygon", inverse: "vertices")
        }
        Entity("Canvas") {
            Relationship("favorite", to: "Shape")
        }
    }

    static func build(@ModelBuilder _ entities: () -> [EntityDescription]) -> ObjectModel {
        do {
            return try ObjectModel(entities: entities())
        } catch {
            Issue.record("test model is invalid: \(error)")
            return (try? ObjectModel(entities: [])) ?? Models.league
        }
    }
}

/// Writes `text` to `url`.
func write(_ text: String, to url: URL) throws {
    try Data(text.utf8).write(to: url)
}

/// A coordinator with one XMLStore store.
typealias XMLStack = StoreStack<XMLStore>
