import CLibXML2
import Foundation
import StoreCore
import StoreTestSupport
import Testing
import XMLStore

@Suite("Vehicles.xml fixture", .enabled(if: Fixtures.available, "fixtures not found at \(Fixtures.directory.path)"))
struct FixtureTests {
    @Test func loadsOneVehicleWithTwoPicturesPointingBack() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyVehicles(to: directory)
            let stack = try XMLStack(model: Models.vehicles, url: url)
            let vehicles = try stack.nodes("Vehicle")
            let pictures = try stack.nodes("VehiclePicture")
            #expect(vehicles.count == 1)
            #expect(pictures.count == 2)
            let vehicle = try #require(vehicles.first)
            #expect(vehicle.attributes == [
                "make": "manufacturer", "model": "model name", "nickname": "vehicle short name", "year": .int(2006),
            ])
            #expect(vehicle.objectID.referenceObject == .int(102))
            #expect(Set(pictures.map { $0.attributes["pictureName"] }) == ["picture_1", "picture_2 picture name"])
            for picture in pictures {
                #expect(picture.attributes["sequence"] == .int(0))
                #expect(picture.attributes["imageData"] == nil)
                #expect(picture.toOne["picturesForVehicle"] == vehicle.objectID)
            }
            // The file lists z104 before z103; the order is kept.
            #expect(vehicle.toMany["vehiclePictures"]?.map(\.referenceObject) == [.int(104), .int(103)])
            #expect(stack.store.identifier == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
            let metadata = try stack.coordinator.metadata(for: stack.store)
            #expect(metadata[MetadataKey.storeType] == "XML")
            #expect(metadata[MetadataKey.storeUUID] == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
        }
    }

    @Test func deletingTheVehicleCascadesAndTheFileKeepsCoreDatasShape() throws {
        try withTemporaryDirectory { directory in
            let url = try Fixtures.copyVehicles(to: directory)
            let stack = try XMLStack(model: Models.vehicles, url: url)
            let context = ManagedObjectContext(coordinator: stack.coordinator)
            // A new vehicle with one picture, so the rewritten file still has objects to inspect.
            let car = try context.insert(entityName: "Vehicle")
            try car.setValue("Citroën", forKey: "make")
            try car.setValue(.int(1955), forKey: "year")
            let photo = try context.insert(entityName: "VehiclePicture")
            try photo.setValue("front & <back>", forKey: "pictureName")
            try photo.setObject(car, forKey: "picturesForVehicle")
            let old = try #require(try context.fetch(entityName: "Vehicle").first { $0.value(forKey: "make") == "manufacturer" })
            context.delete(old)
            try context.save()

            let reopened = try XMLStack(model: Models.vehicles, url: url)
            #expect(try reopened.nodes("Vehicle").count == 1)
            let pictures = try reopened.nodes("VehiclePicture")
            #expect(pictures.map { $0.attributes["pictureName"] } == ["front & <back>"])
            #expect(!pictures.contains { [.int(103), .int(104)].contains($0.objectID.referenceObject) })
            #expect(reopened.store.identifier == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")

            let shape = try XMLShape(url)
            #expect(shape.lines.prefix(2) == [
                "<?xml version=\"1.0\"?>", "<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">",
            ])
            #expect(shape.root == "database")
            #expect(shape.databaseInfoChildren == ["version", "UUID", "nextObjectID", "metadata"])
            #expect(shape.version == "134481920")
            #expect(shape.uuid == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
            // New objects continue after the highest number in the file (z104).
            #expect(shape.objects.map(\.id).sorted() == ["z105", "z106"])
            #expect(shape.nextObjectID == "107")
            let vehicle = try #require(shape.objects.first { $0.type == "VEHICLE" })
            let picture = try #require(shape.objects.first { $0.type == "VEHICLEPICTURE" })
            #expect(vehicle.attributes.map(\.name) == ["make", "year"])
            #expect(vehicle.attributes.map(\.type) == ["string", "int32"])
            #expect(vehicle.attributes.map(\.text) == ["Citroën", "1955"])
            #expect(vehicle.relationships.map(\.name) == ["vehiclepictures"])
            #expect(vehicle.relationships.first?.type == "0/0")
            #expect(vehicle.relationships.first?.destination == "VEHICLEPICTURE")
            #expect(vehicle.relationships.first?.idrefs == picture.id)
            #expect(picture.relationships.map(\.name) == ["picturesforvehicle"])
            #expect(picture.relationships.first?.type == "1/1")
            #expect(picture.relationships.first?.destination == "VEHICLE")
            #expect(picture.relationships.first?.idrefs == vehicle.id)
            // Element names and attribute names are exactly Core Data's.
            let coreDataElements: Set = ["database", "databaseInfo", "version", "UUID", "nextObjectID", "metadata", "object", "attribute", "relationship"]
            let propertyListElements: Set = ["plist", "dict", "key", "string", "array", "data", "integer"]
            #expect(Set(shape.elementNames).isSubset(of: coreDataElements.union(propertyListElements)))
            #expect(coreDataElements.isSubset(of: Set(shape.elementNames)))
            #expect(Set(shape.objectAttributeNames) == ["type", "id"])
            #expect(Set(shape.propertyAttributeNames).isSubset(of: ["name", "type", "destination", "idrefs"]))
            // Text layout: four-space indentation, relationships with an end tag, no idrefs when empty.
            let text = text(of: url)
            #expect(text.contains("\n    <object type=\"VEHICLE\" id=\"\(vehicle.id)\">\n        <attribute name=\"make\" type=\"string\">Citroën</attribute>"))
            #expect(text.contains("<attribute name=\"picturename\" type=\"string\">front &amp; &lt;back&gt;</attribute>"))
            #expect(text.contains("destination=\"VEHICLE\" idrefs=\"\(vehicle.id)\"></relationship>\n    </object>"))
            #expect(text.hasSuffix("</object>\n</database>\n"))
        }
    }

    @Test func metadataIsReadWithoutAddingTheStoreAndTheFixtureIsNeverWritten() throws {
        let before = contents(of: Fixtures.vehicles)
        let metadata = try XMLStore.metadata(forStoreAt: Fixtures.vehicles, options: [:])
        #expect(metadata[MetadataKey.storeType] == "XML")
        #expect(metadata[MetadataKey.storeUUID] == "343C8D7F-A000-42C4-8463-43FA1E5EF3FB")
        let readOnly = try XMLStack(model: Models.vehicles, url: Fixtures.vehicles, options: [StoreOptionKey.readOnly: true])
        #expect(try readOnly.nodes("Vehicle").count == 1)
        let error = storeError { try readOnly.save(deleted: try readOnly.nodes("Vehicle")) }
        #expect(error?.code == .persistentStoreOperation)
        #expect(contents(of: Fixtures.vehicles) == before)
    }
}

/// The element structure of a written store, read with libxml2's reader independently of the
/// store's own reader.
struct XMLShape {
    struct Property {
        var name = ""
        var type = ""
        var destination: String?
        var idrefs: String?
        var text = ""
    }

    struct Object {
        var type = ""
        var id = ""
        var attributes: [Property] = []
        var relationships: [Property] = []
    }

    var lines: [String] = []
    var root = ""
    var databaseInfoChildren: [String] = []
    var version = ""
    var uuid = ""
    var nextObjectID = ""
    var objects: [Object] = []
    var elementNames: [String] = []
    var objectAttributeNames: [String] = []
    var propertyAttributeNames: [String] = []

    init(_ url: URL) throws {
        lines = text(of: url).components(separatedBy: "\n")
        guard let reader = xmlReaderForFile(url.path, nil, 0) else { throw StoreError(.persistentStoreOpen, "cannot open \(url.path)") }
        defer { xmlFreeTextReader(reader) }
        func string(_ pointer: UnsafePointer<xmlChar>?) -> String { pointer.map { String(cString: $0) } ?? "" }
        func attributes() -> [String: String] {
            var result: [String: String] = [:]
            var status = xmlTextReaderMoveToFirstAttribute(reader)
            while status == 1 {
                result[string(xmlTextReaderConstName(reader))] = string(xmlTextReaderConstValue(reader))
                status = xmlTextReaderMoveToNextAttribute(reader)
            }
            xmlTextReaderMoveToElement(reader)
            return result
        }
        var path: [String] = []
        var textTarget: String?
        while true {
            let status = xmlTextReaderRead(reader)
            guard status == 1 else {
                if status < 0 { throw StoreError(.persistentStoreOpen, "\(url.path) is not well-formed") }
                break
            }
            let name = string(xmlTextReaderConstName(reader))
            switch xmlTextReaderNodeType(reader) {
            case Int32(XML_READER_TYPE_ELEMENT.rawValue):
                if !elementNames.contains(name) { elementNames.append(name) }
                let values = attributes()
                if path.isEmpty { root = name }
                if path == ["database", "databaseInfo"] { databaseInfoChildren.append(name) }
                if path == ["database"] && name == "object" {
                    objects.append(Object(type: values["type"] ?? "", id: values["id"] ?? ""))
                    objectAttributeNames += values.keys
                }
                if path == ["database", "object"] {
                    let property = Property(
                        name: values["name"] ?? "", type: values["type"] ?? "", destination: values["destination"],
                        idrefs: values["idrefs"])
                    propertyAttributeNames += values.keys
                    if name == "attribute" { objects[objects.count - 1].attributes.append(property) }
                    if name == "relationship" { objects[objects.count - 1].relationships.append(property) }
                    textTarget = name == "attribute" ? "attribute" : nil
                } else {
                    textTarget = path == ["database", "databaseInfo"] ? name : nil
                }
                if xmlTextReaderIsEmptyElement(reader) != 1 { path.append(name) }
            case Int32(XML_READER_TYPE_END_ELEMENT.rawValue):
                path.removeLast()
                textTarget = nil
            case Int32(XML_READER_TYPE_TEXT.rawValue):
                let value = string(xmlTextReaderConstValue(reader))
                switch textTarget {
                case "attribute": objects[objects.count - 1].attributes[objects[objects.count - 1].attributes.count - 1].text += value
                case "version": version += value
                case "UUID": uuid += value
                case "nextObjectID": nextObjectID += value
                default: break
                }
            default:
                break
            }
        }
    }
}
