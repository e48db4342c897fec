import Foundation

/// An `NSKeyedArchiver` archive read from a ``BinaryPropertyList``: its `$objects`, the root
/// object, and typed access to the fields of each archived object.
///
/// Archived objects are numbered as in `$objects` (0 is `$null`). Nothing here follows
/// references on its own: a caller asks for one field of one object at a time, so the
/// reference cycles every archived object graph has (an entity's properties refer back to
/// the entity) cost nothing, and a hostile archive cannot make reading it recurse.
struct KeyedArchive {
    /// Why the archive cannot be read, as a clause naming the archived object.
    struct Failure: Error, Equatable {
        /// What was wrong.
        let reason: String
    }

    private let list: BinaryPropertyList
    /// The property-list index of each archived object.
    private let members: [Int]
    /// The number of the root object (`$top.root`).
    let root: Int

    /// Reads the archive structure (`$archiver`, `$objects`, `$top`) of `list`.
    init(_ list: BinaryPropertyList) throws(Failure) {
        self.list = list
        guard case .dictionary(let keys, let values) = list.objects[list.top] else {
            throw Failure(reason: "the top object is not a dictionary, so not a keyed archive")
        }
        var top: [String: Int] = [:]
        for (key, value) in zip(keys, values) {
            guard case .string(let name) = list.objects[key] else {
                throw Failure(reason: "the top dictionary has a key that is not a string")
            }
            top[name] = value
        }
        guard let archiver = top["$archiver"], case .string(let name) = list.objects[archiver], name == "NSKeyedArchiver" else {
            throw Failure(reason: "it is not an NSKeyedArchiver archive (no $archiver \"NSKeyedArchiver\")")
        }
        guard let objectsIndex = top["$objects"], case .array(let members) = list.objects[objectsIndex], !members.isEmpty else {
            throw Failure(reason: "the archive has no $objects array")
        }
        self.members = members
        guard let topIndex = top["$top"], case .dictionary(let topKeys, let topValues) = list.objects[topIndex] else {
            throw Failure(reason: "the archive has no $top dictionary")
        }
        var rootNumber: Int?
        for (key, value) in zip(topKeys, topValues) {
            if case .string("root") = list.objects[key], case .uid(let uid) = list.objects[value] { rootNumber = uid }
        }
        guard let rootNumber, rootNumber > 0, rootNumber < members.count else {
            throw Failure(reason: "the archive's $top has no root object")
        }
        self.root = rootNumber
    }

    /// The number of archived objects.
    var count: Int { members.count }

    /// Archived object `number` as the property list holds it.
    func object(_ number: Int) -> BinaryPropertyList.Object { list.objects[members[number]] }

    /// The fields of archived object `number` (a dictionary of an archived class instance).
    func fields(of number: Int) throws(Failure) -> [String: BinaryPropertyList.Object] {
        guard case .dictionary(let keys, let values) = object(number) else {
            throw Failure(reason: "archived object \(number) is not an object with fields")
        }
        var fields: [String: BinaryPropertyList.Object] = [:]
        for (key, value) in zip(keys, values) {
            guard case .string(let name) = list.objects[key] else {
                throw Failure(reason: "archived object \(number) has a field name that is not a string")
            }
            fields[name] = list.objects[value]
        }
        return fields
    }

    /// The class names of archived object `number`, most specific first (`$class` →
    /// `$classes`, or `$classname` alone).
    func classNames(of number: Int) throws(Failure) -> [String] {
        let fields = try fields(of: number)
        guard case .uid(let classNumber)? = fields["$class"], classNumber > 0, classNumber < count else {
            throw Failure(reason: "archived object \(number) has no class")
        }
        let description = try self.fields(of: classNumber)
        if case .array(let names)? = description["$classes"] {
            var result: [String] = []
            for name in names {
                guard case .string(let text) = list.objects[name] else {
                    throw Failure(reason: "the class of archived object \(number) has a class name that is not a string")
                }
                result.append(text)
            }
            if !result.isEmpty { return result }
        }
        guard case .string(let name)? = description["$classname"] else {
            throw Failure(reason: "the class of archived object \(number) has no name")
        }
        return [name]
    }

    /// The archived object a reference field points to; nil when the field is missing or
    /// refers to `$null`.
    func reference(_ value: BinaryPropertyList.Object?, in number: Int, field: String) throws(Failure) -> Int? {
        guard let value else { return nil }
        guard case .uid(let target) = value else {
            throw Failure(reason: "field \(field) of archived object \(number) is not a reference")
        }
        guard target < count else {
            throw Failure(reason: "field \(field) of archived object \(number) refers to object \(target), beyond the archive's \(count) objects")
        }
        return target == 0 ? nil : target
    }

    /// A string field: an inline string, or a reference to a string or to an
    /// `NSString`/`NSMutableString` object (`NS.string`); nil when missing or `$null`.
    func string(_ value: BinaryPropertyList.Object?, in number: Int, field: String) throws(Failure) -> String? {
        if case .string(let text)? = value { return text }
        guard let target = try reference(value, in: number, field: field) else { return nil }
        switch object(target) {
        case .string(let text): return text
        case .dictionary:
            if case .string(let text)? = try fields(of: target)["NS.string"] { return text }
            throw Failure(reason: "field \(field) of archived object \(number) refers to object \(target), which is not a string")
        default:
            throw Failure(reason: "field \(field) of archived object \(number) refers to object \(target), which is not a string")
        }
    }

    /// The members of an `NSArray`/`NSSet` (and mutable kinds) `target` (`NS.objects`), as
    /// archived object numbers.
    func collectionMembers(_ target: Int, describedAs what: String) throws(Failure) -> [Int] {
        let fields = try fields(of: target)
        guard case .array(let references)? = fields["NS.objects"] else {
            throw Failure(reason: "\(what) (archived object \(target)) is not an array or set")
        }
        return try references.map { (index: Int) throws(Failure) -> Int in
            guard case .uid(let member) = list.objects[index], member < count else {
                throw Failure(reason: "\(what) (archived object \(target)) has a member that is not a reference to an archived object")
            }
            return member
        }
    }

    /// The entries of a dictionary `target` as archived object numbers: an `NSDictionary`
    /// (`NS.keys` and `NS.objects`) or Core Data's `NSKnownKeysDictionary1` (`values`, keys in
    /// `searchMapping.keys`; slots holding `emptyToken` are empty).
    func dictionaryEntries(_ target: Int, describedAs what: String) throws(Failure) -> [(key: Int, value: Int)] {
        let fields = try fields(of: target)
        if case .array(let keyIndexes)? = fields["NS.keys"] {
            guard case .array(let valueIndexes)? = fields["NS.objects"], valueIndexes.count == keyIndexes.count else {
                throw Failure(reason: "\(what) (archived object \(target)) has keys and values of different counts")
            }
            var entries: [(key: Int, value: Int)] = []
            for (keyIndex, valueIndex) in zip(keyIndexes, valueIndexes) {
                guard case .uid(let key) = list.objects[keyIndex], case .uid(let value) = list.objects[valueIndex],
                    key < count, value < count
                else { throw Failure(reason: "\(what) (archived object \(target)) has an entry that is not a reference") }
                entries.append((key, value))
            }
            return entries
        }
        guard let valuesNumber = try reference(fields["values"], in: target, field: "values"),
            let mappingNumber = try reference(fields["searchMapping"], in: target, field: "searchMapping"),
            let keysNumber = try reference(try self.fields(of: mappingNumber)["keys"], in: mappingNumber, field: "keys")
        else { throw Failure(reason: "\(what) (archived object \(target)) is not a dictionary") }
        let keys = try collectionMembers(keysNumber, describedAs: "the keys of \(what)")
        let values = try collectionMembers(valuesNumber, describedAs: "the values of \(what)")
        guard keys.count == values.count else {
            throw Failure(reason: "\(what) (archived object \(target)) has \(keys.count) keys and \(values.count) values")
        }
        let emptyToken = try string(fields["emptyToken"], in: target, field: "emptyToken")
        var entries: [(key: Int, value: Int)] = []
        for (key, value) in zip(keys, values) {
            if let emptyToken, case .string(let text) = object(value), text == emptyToken { continue }
            entries.append((key, value))
        }
        return entries
    }
}
