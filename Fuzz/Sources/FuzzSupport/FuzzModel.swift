import Foundation
import PersistentStores

/// The model every store harness loads its inputs with: the League model of the PipeCSV
/// fixture and the tests, the Vehicles model of the XML fixture, one attribute of every type,
/// and an ordered to-many (the crash tests' buckets), so seeds from the fixtures and from saved
/// graphs all reach the decoders.
public enum FuzzModel {
    /// The model.
    public static let model: ObjectModel = {
        do {
            return try ObjectModel {
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
                Entity("Vehicle") {
                    Attribute("make", .string)
                    Attribute("model", .string)
                    Attribute("nickname", .string)
                    Attribute("year", .integer32)
                    Relationship(
                        "vehiclePictures", to: "VehiclePicture", inverse: "picturesForVehicle", toMany: true,
                        deleteRule: .cascade)
                }
                Entity("VehiclePicture") {
                    Attribute("pictureName", .string)
                    Attribute("sequence", .integer32)
                    Attribute("imageData", .binaryData)
                    Relationship("picturesForVehicle", to: "Vehicle", inverse: "vehiclePictures")
                }
                Entity("AllTypes") {
                    for type in AttributeType.allCases {
                        Attribute("v" + type.rawValue, type)
                    }
                }
                Entity("Bucket") {
                    Attribute("generation", .integer64)
                    Relationship("items", to: "Item", inverse: "bucket", toMany: true, ordered: true, deleteRule: .cascade)
                }
                Entity("Item") {
                    Attribute("index", .integer64)
                    Attribute("payload", .string)
                    Relationship("bucket", to: "Bucket", inverse: "items")
                }
            }
        } catch {
            // The model above is fixed and valid; this line is reached only if it was edited
            // into an invalid one, which the first run of any harness shows at once.
            fatalError("the fuzz model is invalid: \(error)")
        }
    }()

    /// A small graph using every entity and attribute type, with hostile characters, for seeds.
    public static func sampleGraph(in context: ManagedObjectContext) throws {
        let team = try context.insert(entityName: "Team")
        try team.setValue("Crew | \"quoted\" <&> é 🚀\nnext line", forKey: "name")
        try team.setValue("red", forKey: "uniformColor")
        for index in 0..<3 {
            let player = try context.insert(entityName: "Player")
            try player.setValue(.string("Player \(index)"), forKey: "firstName")
            try player.setValue(.string("p\(index)@example.com"), forKey: "email")
            try player.setObject(team, forKey: "team")
        }
        let vehicle = try context.insert(entityName: "Vehicle")
        try vehicle.setValue("make", forKey: "make")
        try vehicle.setValue(.int(2006), forKey: "year")
        let picture = try context.insert(entityName: "VehiclePicture")
        try picture.setValue(.data(Data([0, 1, 2, 255])), forKey: "imageData")
        try picture.setObject(vehicle, forKey: "picturesForVehicle")
        let all = try context.insert(entityName: "AllTypes")
        for type in AttributeType.allCases {
            if let value = sampleValue(type) { try all.setValue(value, forKey: "v" + type.rawValue) }
        }
        let bucket = try context.insert(entityName: "Bucket")
        try bucket.setValue(.int(7), forKey: "generation")
        for index in 0..<3 {
            let item = try context.insert(entityName: "Item")
            try item.setValue(.int(Int64(index)), forKey: "index")
            try item.setValue(.string(String(repeating: "x", count: index * 5)), forKey: "payload")
            try item.setObject(bucket, forKey: "bucket")
        }
    }

    /// A value of `type`, or nil for types without a simple sample.
    static func sampleValue(_ type: AttributeType) -> StoreValue? {
        switch type {
        case .integer16: return .int(-12)
        case .integer32: return .int(123_456)
        case .integer64: return .int(-9_000_000_000)
        case .decimal: return .decimal(Decimal(string: "3.14159") ?? 0)
        case .double: return .double(-0.000123)
        case .float: return .double(1.5)
        case .string: return .string("text\tand\u{1}")
        case .boolean: return .bool(true)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: 123_456.789))
        case .binaryData: return .data(Data([0xDE, 0xAD, 0xBE, 0xEF]))
        case .uuid: return .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        case .uri: return .uri(URL(string: "https://example.com/a?b=c") ?? URL(fileURLWithPath: "/"))
        default: return nil
        }
    }
}
