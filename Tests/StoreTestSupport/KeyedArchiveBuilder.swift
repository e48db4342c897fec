import Foundation

/// Builds binary property lists and `NSKeyedArchiver` archives of Core Data models by hand,
/// for the tests of the compiled-model reader: well-formed ones, and ones with cycles, wrong
/// classes or impossible sizes that no archiver would write.
public enum KeyedArchiveBuilder {
    /// One object of a property list; containers hold the indexes of other objects.
    public enum Object: Sendable {
        case null
        case bool(Bool)
        case int(Int64)
        case string(String)
        case uid(Int)
        case array([Int])
        case dictionary([(Int, Int)])
    }

    /// `objects` as a `bplist00` with `top` as its top object (8-byte offsets and references,
    /// so any size works).
    public static func propertyList(_ objects: [Object], top: Int = 0) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        func appendLength(_ marker: UInt8, _ count: Int) {
            if count < 15 {
                bytes.append(marker | UInt8(count))
            } else {
                bytes.append(marker | 0x0F)
                bytes.append(0x13)
                bytes += bigEndian(UInt64(count), size: 8)
            }
        }
        for object in objects {
            offsets.append(bytes.count)
            switch object {
            case .null: bytes.append(0x00)
            case .bool(let value): bytes.append(value ? 0x09 : 0x08)
            case .int(let value):
                bytes.append(0x13)
                bytes += bigEndian(UInt64(bitPattern: value), size: 8)
            case .string(let text):
                let utf16 = Array(text.utf16)
                if utf16.allSatisfy({ $0 < 0x80 }) {
                    appendLength(0x50, utf16.count)
                    bytes += utf16.map { UInt8($0) }
                } else {
                    appendLength(0x60, utf16.count)
                    for unit in utf16 { bytes += bigEndian(UInt64(unit), size: 2) }
                }
            case .uid(let value):
                bytes.append(0x83)
                bytes += bigEndian(UInt64(value), size: 4)
            case .array(let members):
                appendLength(0xA0, members.count)
                for member in members { bytes += bigEndian(UInt64(member), size: 8) }
            case .dictionary(let entries):
                appendLength(0xD0, entries.count)
                for entry in entries { bytes += bigEndian(UInt64(entry.0), size: 8) }
                for entry in entries { bytes += bigEndian(UInt64(entry.1), size: 8) }
            }
        }
        let table = bytes.count
        for offset in offsets { bytes += bigEndian(UInt64(offset), size: 8) }
        bytes += [0, 0, 0, 0, 0, 0, 8, 8]
        bytes += bigEndian(UInt64(objects.count), size: 8)
        bytes += bigEndian(UInt64(top), size: 8)
        bytes += bigEndian(UInt64(table), size: 8)
        return Data(bytes)
    }

    /// `data` as raw deflate (RFC 1951) made of stored blocks: what Core Data's model cache
    /// holds, without compressing (any inflater reads it).
    public static func rawDeflateStored(_ data: Data) -> Data {
        var output: [UInt8] = []
        let bytes = [UInt8](data)
        var start = 0
        repeat {
            let count = min(65_535, bytes.count - start)
            let isLast = start + count == bytes.count
            output.append(isLast ? 0x01 : 0x00)
            output += [UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            output += bytes[start..<start + count]
            start += count
        } while start < bytes.count
        return Data(output)
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (UInt64($0) * 8)) }
    }

    /// A keyed archive under construction: `$objects` in order, object 0 `$null`; classes are
    /// added once by name.
    public struct Archive {
        /// The archived objects (`$objects`), as property-list objects whose containers refer
        /// to other entries of `plist`.
        private var plist: [Object] = []
        /// Property-list index of each archived object.
        private var members: [Int] = []
        private var classes: [String: Int] = [:]

        /// An archive holding `$null` only.
        public init() {
            _ = add(.string("$null"))
        }

        /// Adds a plain archived object (a string, a number); returns its archive number.
        public mutating func add(_ object: Object) -> Int {
            plist.append(object)
            members.append(plist.count - 1)
            return members.count - 1
        }

        /// Reserves an archive number for an object whose fields are set later (objects that
        /// refer to each other).
        public mutating func reserve() -> Int { add(.null) }

        /// The archived class description for `names` (most specific first).
        public mutating func classNumber(_ names: [String]) -> Int {
            if let known = classes[names[0]] { return known }
            let nameIndexes = names.map { name -> Int in
                plist.append(.string(name))
                return plist.count - 1
            }
            plist.append(.array(nameIndexes))
            let classesIndex = plist.count - 1
            let number = add(.dictionary([(key("$classname"), value(.string(names[0]))), (key("$classes"), classesIndex)]))
            classes[names[0]] = number
            return number
        }

        /// Sets archive object `number` to an instance of `className` with `fields`: each
        /// field a plain value (`.int`, `.bool`, `.string`) or a reference (`.uid(number)`).
        public mutating func set(_ number: Int, className: [String], fields: [(String, Object)]) {
            let classRef = classNumber(className)
            var entries = [(key("$class"), value(.uid(classRef)))]
            for (name, field) in fields { entries.append((key(name), value(field))) }
            plist[members[number]] = .dictionary(entries)
        }

        /// Adds an instance of `className` with `fields`; returns its archive number.
        public mutating func object(_ className: [String], _ fields: [(String, Object)]) -> Int {
            let number = reserve()
            set(number, className: className, fields: fields)
            return number
        }

        /// Adds an `NSArray` (or a set, given its class) of references.
        public mutating func collection(_ references: [Int], className: [String] = ["NSArray", "NSObject"]) -> Int {
            let number = reserve()
            let classRef = classNumber(className)
            let refs = references.map { value(.uid($0)) }
            plist.append(.array(refs))
            let arrayIndex = plist.count - 1
            plist[members[number]] = .dictionary([(key("$class"), value(.uid(classRef))), (key("NS.objects"), arrayIndex)])
            return number
        }

        /// Adds an `NSDictionary` of references.
        public mutating func dictionary(_ entries: [(Int, Int)], className: [String] = ["NSMutableDictionary", "NSDictionary", "NSObject"]) -> Int {
            let number = reserve()
            let classRef = classNumber(className)
            let keyRefs = entries.map { value(.uid($0.0)) }
            let valueRefs = entries.map { value(.uid($0.1)) }
            plist.append(.array(keyRefs))
            let keysIndex = plist.count - 1
            plist.append(.array(valueRefs))
            let valuesIndex = plist.count - 1
            plist[members[number]] = .dictionary([
                (key("$class"), value(.uid(classRef))), (key("NS.keys"), keysIndex), (key("NS.objects"), valuesIndex),
            ])
            return number
        }

        /// The archive as a binary property list, with `root` as `$top.root`.
        public func data(root: Int) -> Data {
            var objects = plist
            func append(_ object: Object) -> Int {
                objects.append(object)
                return objects.count - 1
            }
            let objectsArray = append(.array(members))
            let rootKey = append(.string("root"))
            let rootValue = append(.uid(root))
            let topDictionary = append(.dictionary([(rootKey, rootValue)]))
            let archiverKey = append(.string("$archiver"))
            let archiverValue = append(.string("NSKeyedArchiver"))
            let versionKey = append(.string("$version"))
            let versionValue = append(.int(100_000))
            let objectsKey = append(.string("$objects"))
            let topKey = append(.string("$top"))
            let top = append(.dictionary([
                (archiverKey, archiverValue), (versionKey, versionValue), (objectsKey, objectsArray), (topKey, topDictionary),
            ]))
            return KeyedArchiveBuilder.propertyList(objects, top: top)
        }

        private mutating func key(_ name: String) -> Int {
            plist.append(.string(name))
            return plist.count - 1
        }

        private mutating func value(_ object: Object) -> Int {
            plist.append(object)
            return plist.count - 1
        }
    }

    /// A small model archived the way Core Data archives one: `Person` (name: String, optional;
    /// age: Integer 32, default 18; friends: to-many → Person, its own inverse) and `Employee`
    /// (a sub-entity of Person; employer: to-one → Company, inverse staff) and `Company`
    /// (title: String; staff: to-many, cascade → Employee). `mutate` may change the archive
    /// (the numbers of the objects it needs are passed) before it is written.
    public static func sampleModel(mutate: (inout Archive, SampleNumbers) -> Void = { _, _ in }) -> Data {
        var archive = Archive()
        let model = archive.reserve()
        let person = archive.reserve()
        let employee = archive.reserve()
        let company = archive.reserve()
        let entityClass = ["NSEntityDescription", "NSObject"]
        let attributeClass = ["NSAttributeDescription", "NSPropertyDescription", "NSObject"]
        let relationshipClass = ["NSRelationshipDescription", "NSPropertyDescription", "NSObject"]
        let names = (
            person: archive.add(.string("Person")), employee: archive.add(.string("Employee")),
            company: archive.add(.string("Company"))
        )
        func attribute(_ entity: Int, _ name: String, type: Int64, extra: [(String, Object)] = []) -> Int {
            let nameNumber = archive.add(.string(name))
            return archive.object(
                attributeClass,
                [("NSPropertyName", .uid(nameNumber)), ("NSEntity", .uid(entity)), ("NSAttributeType", .int(type)), ("_P", .int(243))]
                    + extra)
        }
        let name = attribute(person, "name", type: 700)
        let ageDefault = archive.add(.int(18))
        let age = attribute(person, "age", type: 200, extra: [("NSDefaultValue", .uid(ageDefault))])
        let friends = archive.reserve()
        let friendsName = archive.add(.string("friends"))
        archive.set(
            friends, className: relationshipClass,
            fields: [
                ("NSPropertyName", .uid(friendsName)), ("NSEntity", .uid(person)), ("NSDestinationEntity", .uid(person)),
                ("NSInverseRelationship", .uid(friends)), ("NSDeleteRule", .int(1)), ("NSMaxCount", .int(0)),
                ("NSMinCount", .int(0)), ("_P", .int(243)),
            ])
        let employer = archive.reserve()
        let staff = archive.reserve()
        let employerName = archive.add(.string("employer"))
        let staffName = archive.add(.string("staff"))
        archive.set(
            employer, className: relationshipClass,
            fields: [
                ("NSPropertyName", .uid(employerName)), ("NSEntity", .uid(employee)), ("NSDestinationEntity", .uid(company)),
                ("NSInverseRelationship", .uid(staff)), ("NSDeleteRule", .int(1)), ("NSMaxCount", .int(1)), ("_P", .int(243)),
            ])
        archive.set(
            staff, className: relationshipClass,
            fields: [
                ("NSPropertyName", .uid(staffName)), ("NSEntity", .uid(company)), ("NSDestinationEntity", .uid(employee)),
                ("NSInverseRelationship", .uid(employer)), ("NSDeleteRule", .int(2)), ("NSMaxCount", .int(0)), ("_P", .int(243)),
            ])
        let title = attribute(company, "title", type: 700, extra: [])
        let personProperties = archive.dictionary([
            (archive.add(.string("name")), name), (archive.add(.string("age")), age), (friendsName, friends),
        ])
        let employeeProperties = archive.dictionary([(employerName, employer)])
        let companyProperties = archive.dictionary([(archive.add(.string("title")), title), (staffName, staff)])
        archive.set(
            person, className: entityClass,
            fields: [("NSEntityName", .uid(names.person)), ("NSProperties", .uid(personProperties)), ("NSManagedObjectModel", .uid(model))])
        archive.set(
            employee, className: entityClass,
            fields: [
                ("NSEntityName", .uid(names.employee)), ("NSProperties", .uid(employeeProperties)), ("NSSuperentity", .uid(person)),
                ("NSManagedObjectModel", .uid(model)),
            ])
        archive.set(
            company, className: entityClass,
            fields: [("NSEntityName", .uid(names.company)), ("NSProperties", .uid(companyProperties)), ("NSManagedObjectModel", .uid(model))])
        let entities = archive.dictionary([(names.company, company), (names.employee, employee), (names.person, person)])
        archive.set(model, className: ["NSManagedObjectModel", "NSObject"], fields: [("NSEntities", .uid(entities))])
        mutate(&archive, SampleNumbers(model: model, person: person, employee: employee, company: company, name: name, friends: friends))
        return archive.data(root: model)
    }

    /// The archive numbers of the sample model's objects, for tests that change them.
    public struct SampleNumbers: Sendable {
        public let model, person, employee, company, name, friends: Int
    }
}
