import Foundation

/// Reads Core Data's compiled model: the `NSKeyedArchiver` binary property list of an
/// `NSManagedObjectModel`, as a `.mom` file holds it and as a Core Data SQLite store keeps it
/// (inflated) in `Z_MODELCACHE`.
///
/// ```swift
/// let model = try CompiledModelReader.model(fromArchive: data, source: "TestModel.mom")
/// print(model.entityNames, model.coreDataVersionHashes)
/// ```
///
/// What is read: entities (name, parent, abstract flag, class name, renaming identifier,
/// version hash modifier, user info), attributes (type, optional, transient, indexed, default
/// value, minimum and maximum — from the flags of newer archives or the simple validation
/// predicates `SELF >= n` / `SELF <= n` / `SELF MATCHES "…"` of older ones — value
/// transformer, external storage, renaming identifier, version hash modifier, user info) and
/// relationships (destination, inverse, to-many, ordered, optional, transient, min/max count,
/// delete rule, renaming identifier, version hash modifier, user info), and the version
/// identifiers. Fetched properties, fetch request templates, configurations, fetch indexes and
/// uniqueness constraints are not read (they do not change what a store holds); a read-only
/// property reads as an ordinary one.
///
/// The archive is untrusted input. It is read with bounds checked (`BinaryPropertyList`),
/// one field of one object at a time (reference cycles and shared objects cost nothing), and
/// every archived object must be of the class its place calls for. Every malformed archive is
/// a 134080 ``StoreError`` whose message names `source` and what was wrong; a model the
/// archive describes but ``ObjectModel`` refuses (an inverse that does not point back, an
/// inheritance cycle) is a 134080 error quoting the model's own 134060 message.
public enum CompiledModelReader {
    /// The bounds an archive must keep.
    public struct Limits: Sendable, Hashable {
        /// The most objects the property list may hold (default 1,000,000).
        public var maximumObjects: Int
        /// The most entities the model may have (default 10,000).
        public var maximumEntities: Int
        /// The most properties one entity may declare (default 10,000).
        public var maximumPropertiesPerEntity: Int

        /// Creates limits.
        public init(maximumObjects: Int = 1_000_000, maximumEntities: Int = 10_000, maximumPropertiesPerEntity: Int = 10_000) {
            self.maximumObjects = maximumObjects
            self.maximumEntities = maximumEntities
            self.maximumPropertiesPerEntity = maximumPropertiesPerEntity
        }
    }

    /// The model archived in `data`.
    ///
    /// - Parameters:
    ///   - data: the archive's bytes (`bplist00…`).
    ///   - source: what the bytes are, for messages ("/path/Store.sqlite, table Z_MODELCACHE").
    ///   - fileURL: the file the bytes came from, recorded in errors.
    ///   - limits: the bounds the archive must keep.
    /// - Throws: 134080 for an archive that is malformed, holds objects of the wrong classes,
    ///   exceeds `limits`, or describes an invalid model.
    public static func model(fromArchive data: Data, source: String, fileURL: URL? = nil, limits: Limits = Limits()) throws
        -> ObjectModel
    {
        let prefix = "The compiled Core Data model in \(source) is not readable: "
        let archive: KeyedArchive
        do {
            let list = try BinaryPropertyList([UInt8](data), limits: .init(maximumObjects: limits.maximumObjects))
            archive = try KeyedArchive(list)
        } catch let failure as BinaryPropertyList.Failure {
            throw StoreError(.persistentStoreOpen, prefix + failure.reason, fileURL: fileURL)
        } catch let failure as KeyedArchive.Failure {
            throw StoreError(.persistentStoreOpen, prefix + failure.reason, fileURL: fileURL)
        }
        let decoder = CompiledModelDecoder(archive: archive, limits: limits)
        let parts: (entities: [EntityDescription], versionIdentifiers: [String])
        do {
            parts = try decoder.decode()
        } catch {
            throw StoreError(.persistentStoreOpen, prefix + error.reason, fileURL: fileURL)
        }
        do {
            return try ObjectModel(entities: parts.entities, versionIdentifiers: parts.versionIdentifiers)
        } catch let error as StoreError {
            throw StoreError(
                .persistentStoreOpen, prefix + "the model it describes is invalid: \(error.message)", fileURL: fileURL,
                entityName: error.entityName, propertyName: error.propertyName)
        }
    }
}

/// The walk over an archived `NSManagedObjectModel`; every failure a ``KeyedArchive/Failure``.
private struct CompiledModelDecoder {
    typealias Failure = KeyedArchive.Failure
    typealias Object = BinaryPropertyList.Object

    let archive: KeyedArchive
    let limits: CompiledModelReader.Limits

    /// Core Data's `NSAttributeType` numbers.
    static let attributeTypes: [Int64: AttributeType] = [
        100: .integer16, 200: .integer32, 300: .integer64, 400: .decimal, 500: .double, 600: .float, 700: .string,
        800: .boolean, 900: .date, 1000: .binaryData, 1100: .uuid, 1200: .uri, 1800: .transformable, 2000: .objectID,
    ]

    /// Core Data's `NSDeleteRule` numbers.
    static let deleteRules: [Int64: DeleteRule] = [0: .noAction, 1: .nullify, 2: .cascade, 3: .deny]

    func decode() throws(Failure) -> (entities: [EntityDescription], versionIdentifiers: [String]) {
        let root = archive.root
        try requireClass("NSManagedObjectModel", of: root, describedAs: "the archive's root object")
        let fields = try archive.fields(of: root)
        guard let entitiesNumber = try archive.reference(fields["NSEntities"], in: root, field: "NSEntities") else {
            throw Failure(reason: "the model has no entities (NSEntities)")
        }
        let entries = try archive.dictionaryEntries(entitiesNumber, describedAs: "the model's entities")
        guard entries.count <= limits.maximumEntities else {
            throw Failure(reason: "the model has \(entries.count) entities, more than the limit of \(limits.maximumEntities)")
        }
        // Entity names by archived object number, so references to entities resolve to names.
        var names: [Int: String] = [:]
        for entry in entries {
            guard let name = try archive.string(.uid(entry.key), in: entitiesNumber, field: "NSEntities"), !name.isEmpty else {
                throw Failure(reason: "the model's entities have a key that is not a name")
            }
            guard names[entry.value] == nil else {
                throw Failure(reason: "archived object \(entry.value) is listed as two entities, \(names[entry.value] ?? "") and \(name)")
            }
            names[entry.value] = name
        }
        var entities: [EntityDescription] = []
        for entry in entries {
            entities.append(try entity(entry.value, names: names))
        }
        var identifiers: [String] = []
        if let set = try archive.reference(fields["NSVersionIdentifiers"], in: root, field: "NSVersionIdentifiers") {
            for member in try archive.collectionMembers(set, describedAs: "the model's version identifiers") {
                guard let identifier = try archive.string(.uid(member), in: set, field: "NS.objects") else {
                    throw Failure(reason: "the model's version identifiers hold $null")
                }
                identifiers.append(identifier)
            }
        }
        return (entities, identifiers.sorted())
    }

    // MARK: Entities

    private func entity(_ number: Int, names: [Int: String]) throws(Failure) -> EntityDescription {
        let listedName = names[number] ?? ""
        let what = "entity \(listedName) (archived object \(number))"
        try requireClass("NSEntityDescription", of: number, describedAs: what)
        let fields = try archive.fields(of: number)
        guard let name = try archive.string(fields["NSEntityName"], in: number, field: "NSEntityName"), name == listedName else {
            throw Failure(reason: "\(what) is named differently in its own NSEntityName")
        }
        var parent: String?
        if let superNumber = try archive.reference(fields["NSSuperentity"], in: number, field: "NSSuperentity") {
            guard let superName = names[superNumber] else {
                throw Failure(reason: "the parent of \(what) is archived object \(superNumber), which is not one of the model's entities")
            }
            parent = superName
        }
        var entity = EntityDescription(
            name, parent: parent, abstract: try flag(fields["NSIsAbstract"], in: number, field: "NSIsAbstract"),
            className: try archive.string(fields["NSClassNameForEntity"], in: number, field: "NSClassNameForEntity"),
            renamingIdentifier: try renamingIdentifier(fields, of: number, name: name),
            versionHashModifier: try nonEmpty(archive.string(fields["NSVersionHashModifier"], in: number, field: "NSVersionHashModifier")),
            userInfo: try userInfo(fields["NSUserInfo"], in: number, describedAs: what))
        guard let propertiesNumber = try archive.reference(fields["NSProperties"], in: number, field: "NSProperties") else {
            return entity
        }
        let entries = try archive.dictionaryEntries(propertiesNumber, describedAs: "the properties of \(what)")
        guard entries.count <= limits.maximumPropertiesPerEntity else {
            throw Failure(
                reason: "\(what) has \(entries.count) properties, more than the limit of \(limits.maximumPropertiesPerEntity)")
        }
        for entry in entries {
            guard let key = try archive.string(.uid(entry.key), in: propertiesNumber, field: "NS.keys") else {
                throw Failure(reason: "the properties of \(what) have a key that is not a name")
            }
            let propertyWhat = "property \(name).\(key) (archived object \(entry.value))"
            let classes = try archive.classNames(of: entry.value)
            if classes.contains("NSRelationshipDescription") {
                entity.relationships.append(try relationship(entry.value, name: key, entity: name, names: names, what: propertyWhat))
            } else if classes.contains("NSFetchedPropertyDescription") {
                continue  // not read: a fetched property holds nothing in the store
            } else if classes.contains("NSAttributeDescription"), !classes.contains("NSCompositeAttributeDescription") {
                entity.attributes.append(try attribute(entry.value, name: key, entity: name, what: propertyWhat))
            } else {
                throw Failure(reason: "\(propertyWhat) is an \(classes.first ?? "object"), which is not a supported property")
            }
        }
        return entity
    }

    // MARK: Properties

    /// The flags every property has: `_P` (newer archives), else the separate keys.
    private struct PropertyFlags {
        var isOptional = false
        var isTransient = false
        var isOrdered = false
    }

    private func propertyFlags(_ fields: [String: Object], of number: Int) throws(Failure) -> PropertyFlags {
        if case .int(let packed)? = fields["_P"], packed != 0 {
            return PropertyFlags(isOptional: packed & 0x2 != 0, isTransient: packed & 0x8 != 0, isOrdered: packed & 0x400 != 0)
        }
        return PropertyFlags(
            isOptional: try flag(fields["NSIsOptional"], in: number, field: "NSIsOptional"),
            isTransient: try flag(fields["NSIsTransient"], in: number, field: "NSIsTransient"),
            isOrdered: try flag(fields["NSIsOrdered"], in: number, field: "NSIsOrdered"))
    }

    private func requirePropertyName(_ fields: [String: Object], of number: Int, name: String, what: String) throws(Failure) {
        guard try archive.string(fields["NSPropertyName"], in: number, field: "NSPropertyName") == name else {
            throw Failure(reason: "\(what) is named differently in its own NSPropertyName")
        }
    }

    private func attribute(_ number: Int, name: String, entity: String, what: String) throws(Failure) -> AttributeDescription {
        let fields = try archive.fields(of: number)
        try requirePropertyName(fields, of: number, name: name, what: what)
        let flags = try propertyFlags(fields, of: number)
        let typeNumber = try integer(fields["NSAttributeType"], in: number, field: "NSAttributeType") ?? 0
        let type: AttributeType
        if let known = Self.attributeTypes[typeNumber] {
            type = known
        } else if typeNumber == 0, flags.isTransient {
            type = .transformable  // an undefined transient: held in memory only, any value
        } else {
            let kind = [0: "undefined", 2100: "composite", 2200: "codable"][typeNumber].map { " (\($0))" } ?? ""
            throw Failure(reason: "\(what) has attribute type \(typeNumber)\(kind), which is not supported")
        }
        let attributeFlags = try integer(fields["NSFlagsKey"], in: number, field: "NSFlagsKey") ?? 0
        var attribute = AttributeDescription(
            name, type, optional: flags.isOptional, transient: flags.isTransient,
            indexed: try flag(fields["NSIsIndexed"], in: number, field: "NSIsIndexed"),
            valueTransformerName: try nonEmpty(archive.string(fields["NSValueTransformerName"], in: number, field: "NSValueTransformerName")),
            allowsExternalBinaryDataStorage: attributeFlags & 0x4 != 0,
            renamingIdentifier: try renamingIdentifier(fields, of: number, name: name),
            versionHashModifier: try nonEmpty(archive.string(fields["NSVersionHashModifier"], in: number, field: "NSVersionHashModifier")),
            userInfo: try userInfo(fields["NSUserInfo"], in: number, describedAs: what))
        if let value = try defaultValue(fields["NSDefaultValue"], of: type, in: number, what: what) {
            attribute.defaultValue = value
        }
        // Bounds of newer archives: flag 1 a maximum, flag 2 a minimum.
        if attributeFlags & 0x1 != 0 { try setBound(fields["NSMaxValueName"], isMinimum: false, of: &attribute, in: number, what: what) }
        if attributeFlags & 0x2 != 0 { try setBound(fields["NSMinValueName"], isMinimum: true, of: &attribute, in: number, what: what) }
        // Bounds of older archives: simple validation predicates.
        if let predicates = try archive.reference(fields["NSValidationPredicates"], in: number, field: "NSValidationPredicates") {
            for predicate in try archive.collectionMembers(predicates, describedAs: "the validation predicates of \(what)") {
                try applyValidationPredicate(predicate, to: &attribute, what: what)
            }
        }
        return attribute
    }

    private func relationship(
        _ number: Int, name: String, entity: String, names: [Int: String], what: String
    ) throws(Failure) -> RelationshipDescription {
        let fields = try archive.fields(of: number)
        try requirePropertyName(fields, of: number, name: name, what: what)
        let flags = try propertyFlags(fields, of: number)
        var destination: String?
        if let target = try archive.reference(fields["NSDestinationEntity"], in: number, field: "NSDestinationEntity") {
            guard let targetName = names[target] else {
                throw Failure(reason: "the destination of \(what) is archived object \(target), which is not one of the model's entities")
            }
            destination = targetName
        } else {
            destination = try archive.string(fields["_NSDestinationEntityName"], in: number, field: "_NSDestinationEntityName")
        }
        guard let destination, !destination.isEmpty else { throw Failure(reason: "\(what) has no destination entity") }
        var inverse = try nonEmpty(archive.string(fields["_NSInverseRelationshipName"], in: number, field: "_NSInverseRelationshipName"))
        if inverse == nil, let target = try archive.reference(fields["NSInverseRelationship"], in: number, field: "NSInverseRelationship") {
            try requireClass("NSRelationshipDescription", of: target, describedAs: "the inverse of \(what)")
            inverse = try archive.string(try archive.fields(of: target)["NSPropertyName"], in: target, field: "NSPropertyName")
        }
        let ruleNumber = try integer(fields["NSDeleteRule"], in: number, field: "NSDeleteRule") ?? 1
        guard let rule = Self.deleteRules[ruleNumber] else {
            throw Failure(reason: "\(what) has delete rule \(ruleNumber) (0 to 3 expected)")
        }
        let minCount = try count(fields["NSMinCount"], in: number, field: "NSMinCount", what: what)
        let maxCount = try count(fields["NSMaxCount"], in: number, field: "NSMaxCount", what: what)
        // Core Data's rule: a relationship is to-many unless its maximum count is 1.
        let toMany = maxCount != 1
        return RelationshipDescription(
            name, to: destination, inverse: inverse, toMany: toMany, ordered: toMany && flags.isOrdered,
            optional: flags.isOptional, transient: flags.isTransient, minCount: toMany ? minCount : 0,
            maxCount: toMany ? maxCount : 0, deleteRule: rule, renamingIdentifier: try renamingIdentifier(fields, of: number, name: name),
            versionHashModifier: try nonEmpty(archive.string(fields["NSVersionHashModifier"], in: number, field: "NSVersionHashModifier")),
            userInfo: try userInfo(fields["NSUserInfo"], in: number, describedAs: what))
    }

    // MARK: Values

    /// A default value as `type` holds it; nil for none.
    private func defaultValue(_ field: Object?, of type: AttributeType, in number: Int, what: String) throws(Failure) -> StoreValue? {
        guard let field else { return nil }
        var raw = field
        var className: String?
        if case .uid = field {
            guard let target = try archive.reference(field, in: number, field: "NSDefaultValue") else { return nil }
            raw = archive.object(target)
            if case .dictionary = raw {
                className = try archive.classNames(of: target).first
                raw = try archivedValue(target, className: className ?? "", what: what)
            }
        }
        let value: StoreValue?
        switch (raw, type) {
        case (.int(let v), .boolean): value = v == 0 || v == 1 ? .bool(v == 1) : nil
        case (.int(let v), .decimal): value = .decimal(Decimal(v))
        case (.int(let v), _): value = .int(v)
        case (.bool(let v), .boolean): value = .bool(v)
        case (.bool(let v), _): value = .int(v ? 1 : 0)
        case (.real(let v), .decimal): value = v.isFinite ? .decimal(Decimal(v)) : nil
        case (.real(let v), .integer16), (.real(let v), .integer32), (.real(let v), .integer64):
            value = Int64(exactly: v).map(StoreValue.int)
        case (.real(let v), _): value = .double(v)
        case (.date(let v), _): value = .date(Date(timeIntervalSinceReferenceDate: v))
        case (.string(let v), .uuid): value = UUID(uuidString: v).map(StoreValue.uuid)
        case (.string(let v), .uri): value = URL(string: v).map(StoreValue.uri)
        case (.string(let v), .decimal): value = Decimal(string: v, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal)
        case (.string(let v), _): value = .string(v)
        case (.data(let v), .uuid): value = v.count == 16 ? .uuid(UUID(uuid: Self.uuidBytes(v))) : nil
        case (.data(let v), _): value = .data(v)
        default: value = nil
        }
        guard let value, let fitted = type.coerce(value), fitted != .null else {
            throw Failure(
                reason: "\(what) has a default value (\(className ?? Self.kind(of: raw))) that is not a valid \(type.rawValue)")
        }
        return fitted
    }

    /// The plain value of an archived Foundation object: `NSDate`, `NSData`, `NSString`, `NSUUID`,
    /// `NSURL`, `NSDecimalNumber`.
    private func archivedValue(_ number: Int, className: String, what: String) throws(Failure) -> Object {
        let fields = try archive.fields(of: number)
        switch className {
        case "NSDate":
            if case .real(let time)? = fields["NS.time"] { return .date(time) }
        case "NSData", "NSMutableData":
            if case .data(let bytes)? = fields["NS.data"] { return .data(bytes) }
        case "NSString", "NSMutableString":
            if case .string(let text)? = fields["NS.string"] { return .string(text) }
        case "NSUUID":
            if case .data(let bytes)? = fields["NS.uuidbytes"], bytes.count == 16 { return .data(bytes) }
        case "NSURL":
            if let relative = try archive.string(fields["NS.relative"], in: number, field: "NS.relative"),
                try archive.reference(fields["NS.base"], in: number, field: "NS.base") == nil
            {
                return .string(relative)
            }
        case "NSDecimalNumber":
            if let decimal = Self.decimal(fields) { return .string(decimal.description) }
        default: break
        }
        throw Failure(reason: "\(what) has a default value of class \(className), which is not read")
    }

    /// An archived `NSDecimalNumber` whose mantissa fits in 64 bits.
    private static func decimal(_ fields: [String: Object]) -> Decimal? {
        guard case .data(let mantissa)? = fields["NS.mantissa"], case .int(let exponent)? = fields["NS.exponent"],
            mantissa.count <= 16, mantissa.dropFirst(8).allSatisfy({ $0 == 0 }), let exponentValue = Int(exactly: exponent)
        else { return nil }
        let significand = mantissa.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var negative = false
        if case .bool(let flag)? = fields["NS.negative"] { negative = flag }
        if case .int(let flag)? = fields["NS.negative"] { negative = flag != 0 }
        guard (-128...127).contains(exponentValue) else { return nil }
        return Decimal(sign: negative ? .minus : .plus, exponent: exponentValue, significand: Decimal(significand))
    }

    private static func uuidBytes(_ data: Data) -> uuid_t {
        let b = [UInt8](data)
        return (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])
    }

    private static func kind(of object: Object) -> String {
        switch object {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int: return "an integer"
        case .real: return "a real number"
        case .date: return "a date"
        case .data: return "data"
        case .string: return "a string"
        case .uid: return "a reference"
        case .array: return "an array"
        case .set: return "a set"
        case .dictionary: return "a dictionary"
        }
    }

    /// Sets a minimum or maximum from a number field, as the attribute's type takes it.
    private func setBound(
        _ field: Object?, isMinimum: Bool, of attribute: inout AttributeDescription, in number: Int, what: String
    ) throws(Failure) {
        let label = isMinimum ? "minimum" : "maximum"
        let value: Double
        switch field {
        case .int(let v)?: value = Double(v)
        case .real(let v)?: value = v
        default: throw Failure(reason: "\(what) says it has a \(label) but holds no number for it")
        }
        guard value.isFinite else { throw Failure(reason: "\(what) has a \(label) that is not finite") }
        switch attribute.type {
        case .string, .binaryData:
            guard let length = Int(exactly: value), length >= 0 else {
                throw Failure(reason: "\(what) has a \(label) length of \(value)")
            }
            if isMinimum { attribute.minLength = length } else { attribute.maxLength = length }
        case .integer16, .integer32, .integer64:
            guard let integer = Int64(exactly: value) else { throw Failure(reason: "\(what) has a \(label) of \(value)") }
            if isMinimum { attribute.minValue = .int(integer) } else { attribute.maxValue = .int(integer) }
        case .double, .float:
            if isMinimum { attribute.minValue = .double(value) } else { attribute.maxValue = .double(value) }
        case .decimal:
            if isMinimum { attribute.minValue = .decimal(Decimal(value)) } else { attribute.maxValue = .decimal(Decimal(value)) }
        case .date:
            let date = StoreValue.date(Date(timeIntervalSinceReferenceDate: value))
            if isMinimum { attribute.minValue = date } else { attribute.maxValue = date }
        default:
            throw Failure(reason: "\(what) has a \(label), which \(attribute.type.rawValue) attributes cannot have")
        }
    }

    /// Reads `SELF >= n`, `SELF <= n` and `SELF MATCHES "…"` (the validation predicates older
    /// archives keep their bounds in); other predicates are left alone (they do not change
    /// what a store holds).
    private func applyValidationPredicate(_ number: Int, to attribute: inout AttributeDescription, what: String) throws(Failure) {
        guard try archive.classNames(of: number).contains("NSComparisonPredicate") else { return }
        let fields = try archive.fields(of: number)
        guard let left = try archive.reference(fields["NSLeftExpression"], in: number, field: "NSLeftExpression"),
            let right = try archive.reference(fields["NSRightExpression"], in: number, field: "NSRightExpression"),
            let operation = try archive.reference(fields["NSPredicateOperator"], in: number, field: "NSPredicateOperator")
        else { return }
        let leftFields = try archive.fields(of: left)
        let rightFields = try archive.fields(of: right)
        guard try integer(leftFields["NSExpressionType"], in: left, field: "NSExpressionType") == 1,
            try integer(rightFields["NSExpressionType"], in: right, field: "NSExpressionType") == 0,
            let type = try integer(try archive.fields(of: operation)["NSOperatorType"], in: operation, field: "NSOperatorType")
        else { return }
        var constant = rightFields["NSConstantValue"]
        if case .uid? = constant, let target = try archive.reference(constant, in: right, field: "NSConstantValue") {
            constant = archive.object(target)
        }
        switch (type, constant) {
        case (3, .int?), (3, .real?): try setBound(constant, isMinimum: true, of: &attribute, in: right, what: what)
        case (1, .int?), (1, .real?): try setBound(constant, isMinimum: false, of: &attribute, in: right, what: what)
        case (7, .string(let pattern)?) where attribute.type == .string: attribute.regularExpression = pattern
        default: break
        }
    }

    // MARK: Helpers

    private func requireClass(_ name: String, of number: Int, describedAs what: String) throws(Failure) {
        let classes = try archive.classNames(of: number)
        guard classes.contains(name) else {
            throw Failure(reason: "\(what) is an \(classes.first ?? "object"), not an \(name)")
        }
    }

    private func flag(_ field: Object?, in number: Int, field name: String) throws(Failure) -> Bool {
        switch field {
        case nil: return false
        case .bool(let value)?: return value
        case .int(let value)?: return value != 0
        default: throw Failure(reason: "field \(name) of archived object \(number) is not a boolean")
        }
    }

    private func integer(_ field: Object?, in number: Int, field name: String) throws(Failure) -> Int64? {
        switch field {
        case nil: return nil
        case .int(let value)?: return value
        case .bool(let value)?: return value ? 1 : 0
        default: throw Failure(reason: "field \(name) of archived object \(number) is not an integer")
        }
    }

    private func count(_ field: Object?, in number: Int, field name: String, what: String) throws(Failure) -> Int {
        guard let value = try integer(field, in: number, field: name) else { return 0 }
        guard value >= 0, value <= Int64(Int32.max) else { throw Failure(reason: "\(what) has \(name) \(value), which is not a count") }
        return Int(value)
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// `NSRenamingIdentifier`, which Core Data archives as the name itself when none was set.
    private func renamingIdentifier(_ fields: [String: Object], of number: Int, name: String) throws(Failure) -> String? {
        let identifier = try archive.string(fields["NSRenamingIdentifier"], in: number, field: "NSRenamingIdentifier")
        return identifier == name ? nil : nonEmpty(identifier)
    }

    /// A user info dictionary of strings.
    private func userInfo(_ field: Object?, in number: Int, describedAs what: String) throws(Failure) -> [String: String] {
        guard let target = try archive.reference(field, in: number, field: "NSUserInfo") else { return [:] }
        var info: [String: String] = [:]
        for entry in try archive.dictionaryEntries(target, describedAs: "the user info of \(what)") {
            guard let key = try archive.string(.uid(entry.key), in: target, field: "NS.keys"),
                let value = try archive.string(.uid(entry.value), in: target, field: "NS.objects")
            else { throw Failure(reason: "the user info of \(what) holds $null") }
            info[key] = value
        }
        return info
    }
}
