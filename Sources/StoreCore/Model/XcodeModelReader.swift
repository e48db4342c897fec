import Foundation

/// Turns the `contents` XML of an Xcode `.xcdatamodel` into an ``ObjectModel``.
///
/// What is read (everything that matters to behaviour; unknown elements and attributes such as
/// `<elements>`, `syncable` or `codeGenerationType` are ignored):
/// - `<model userDefinedModelVersionIdentifier>` → ``ObjectModel/versionIdentifiers``;
/// - `<entity name representedClassName parentEntity isAbstract elementID versionHashModifier>`
///   with `<attribute>`, `<relationship>`, `<fetchedProperty>`, `<fetchIndex>`,
///   `<compoundIndexes>`, `<uniquenessConstraints>` and `<userInfo>` children;
/// - `<fetchRequest name entity predicateString fetchLimit …>` → fetch request templates;
/// - `<configuration name>` with `<memberEntity name>` children.
///
/// Every error is a 134060 ``StoreError`` naming the file, the element and its line.
struct XcodeModelReader {
    let file: URL

    /// Reads the model from a `contents` file.
    static func readContents(at file: URL) throws -> ObjectModel {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw StoreError(.coreData, "Cannot read the Xcode model file \(file.path): \(error.localizedDescription)", fileURL: file)
        }
        return try readContents(data, file: file)
    }

    /// Reads the model from the bytes of a `contents` file, naming `file` in errors.
    static func readContents(_ data: Data, file: URL) throws -> ObjectModel {
        let root = try XMLTreeBuilder.parse(data, file: file)
        return try XcodeModelReader(file: file).model(from: root)
    }

    func model(from root: XMLTreeBuilder.Element) throws -> ObjectModel {
        guard root.name == "model" else {
            throw failure(root, "the root element is <\(root.name)>, not <model>")
        }
        var entities: [EntityDescription] = []
        var configurations: [String: [String]] = [:]
        var templates: [FetchRequestTemplate] = []
        for child in root.children {
            switch child.name {
            case "entity": entities.append(try entity(from: child))
            case "fetchRequest": templates.append(try template(from: child))
            case "configuration":
                let name = try required("name", of: child)
                guard configurations[name] == nil else { throw failure(child, "configuration \(name) is declared twice") }
                configurations[name] = try child.children(named: "memberEntity").map { try required("name", of: $0) }
            default: continue  // <elements> (diagram layout) and anything newer
            }
        }
        let versionIdentifiers = root.attributes["userDefinedModelVersionIdentifier"].map { [$0] } ?? []
        do {
            return try ObjectModel(
                entities: entities, configurations: configurations, versionIdentifiers: versionIdentifiers,
                fetchRequestTemplates: templates)
        } catch var error as StoreError {
            error.message = "The Xcode model \(file.path) is invalid: \(error.message)"
            error.fileURL = file
            throw error
        }
    }

    // MARK: Entities

    private func entity(from element: XMLTreeBuilder.Element) throws -> EntityDescription {
        let name = try required("name", of: element)
        var entity = EntityDescription(
            name, parent: nonEmpty(element.attributes["parentEntity"]),
            abstract: try flag("isAbstract", of: element, default: false),
            className: nonEmpty(element.attributes["representedClassName"]),
            renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]))
        var compoundIndexCount = 0
        for child in element.children {
            switch child.name {
            case "attribute": entity.attributes.append(try attribute(from: child, entity: name))
            case "relationship": entity.relationships.append(try relationship(from: child, entity: name))
            case "fetchedProperty": entity.fetchedProperties.append(try fetchedProperty(from: child, entity: name))
            case "fetchIndex": entity.fetchIndexes.append(try fetchIndex(from: child, entity: name))
            case "compoundIndexes":
                // The form before fetch indexes: each <compoundIndex> lists property names.
                for compound in child.children(named: "compoundIndex") {
                    compoundIndexCount += 1
                    let properties = try compound.children(named: "index").map { try required("value", of: $0) }
                    entity.fetchIndexes.append(
                        FetchIndexDescription(
                            "compoundIndex\(compoundIndexCount)", elements: properties.map { .init(property: $0) }))
                }
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    let properties = try constraint.children(named: "constraint").map { try required("value", of: $0) }
                    if !properties.isEmpty { entity.uniquenessConstraints.append(properties) }
                }
            case "userInfo": entity.userInfo = try userInfo(from: child)
            default: continue
            }
        }
        return entity
    }

    // MARK: Attributes

    /// Xcode's `attributeType` strings.
    static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64, "Decimal": .decimal,
        "Double": .double, "Float": .float, "String": .string, "Boolean": .boolean, "Date": .date,
        "Binary": .binaryData, "Transformable": .transformable, "UUID": .uuid, "URI": .uri, "ObjectID": .objectID,
    ]

    private func attribute(from element: XMLTreeBuilder.Element, entity: String) throws -> AttributeDescription {
        let name = try required("name", of: element)
        let typeName = try required("attributeType", of: element)
        guard let type = Self.attributeTypes[typeName] else {
            throw failure(
                element,
                "attribute \(entity).\(name) has attributeType \"\(typeName)\", which is not supported (supported: \(Self.attributeTypes.keys.sorted().joined(separator: ", ")))",
                entity: entity, property: name)
        }
        var attribute = AttributeDescription(
            name, type, optional: try flag("optional", of: element, default: false),
            transient: try flag("transient", of: element, default: false),
            indexed: try flag("indexed", of: element, default: false),
            regularExpression: nonEmpty(element.attributes["regularExpressionString"]),
            valueTransformerName: nonEmpty(element.attributes["valueTransformerName"]),
            allowsExternalBinaryDataStorage: try flag("allowsExternalBinaryDataStorage", of: element, default: false),
            renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]))
        // A derived attribute (Xcode writes derived="YES" and the expression).
        if try flag("derived", of: element, default: false) {
            attribute.derivationExpression = nonEmpty(element.attributes["derivationExpression"])
        }
        let parse = { (key: String, text: String) throws -> StoreValue in
            guard let value = Self.value(text, of: type) else {
                throw failure(
                    element, "attribute \(entity).\(name) has \(key) \"\(text)\", which is not a valid \(typeName)",
                    entity: entity, property: name)
            }
            return value
        }

        // Default value: dates keep theirs as seconds since 2001 in defaultDateTimeInterval.
        if type == .date, let interval = nonEmpty(element.attributes["defaultDateTimeInterval"]) {
            attribute.defaultValue = try parse("defaultDateTimeInterval", interval)
        } else if let text = element.attributes["defaultValueString"], !text.isEmpty || type == .string {
            switch type {
            case .binaryData, .transformable, .objectID:
                throw failure(
                    element, "attribute \(entity).\(name) has a default value, which \(typeName) attributes cannot have",
                    entity: entity, property: name)
            default: attribute.defaultValue = try parse("defaultValueString", text)
            }
        }

        // Bounds: values for numbers and dates, lengths for strings and binary data.
        let minText = nonEmpty(element.attributes["minValueString"])
        let maxText = nonEmpty(element.attributes["maxValueString"])
        switch type {
        case .integer16, .integer32, .integer64, .decimal, .double, .float:
            attribute.minValue = try minText.map { try parse("minValueString", $0) }
            attribute.maxValue = try maxText.map { try parse("maxValueString", $0) }
        case .date:
            let minDate = nonEmpty(element.attributes["minDateTimeInterval"]) ?? minText
            let maxDate = nonEmpty(element.attributes["maxDateTimeInterval"]) ?? maxText
            attribute.minValue = try minDate.map { try parse("minDateTimeInterval", $0) }
            attribute.maxValue = try maxDate.map { try parse("maxDateTimeInterval", $0) }
        case .string, .binaryData:
            attribute.minLength = try minText.map { try length($0, "minValueString", element, entity, name) }
            attribute.maxLength = try maxText.map { try length($0, "maxValueString", element, entity, name) }
        default:
            if minText != nil || maxText != nil {
                throw failure(
                    element, "attribute \(entity).\(name) has a minimum or maximum, which \(typeName) attributes cannot have",
                    entity: entity, property: name)
            }
        }
        if let userInfoElement = element.children(named: "userInfo").first {
            attribute.userInfo = try userInfo(from: userInfoElement)
        }
        return attribute
    }

    /// A value of `type` written as Xcode writes it (numbers in the POSIX locale, booleans as
    /// YES/NO, dates as seconds since 2001); nil when the text does not fit the type.
    static func value(_ text: String, of type: AttributeType) -> StoreValue? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let parsed: StoreValue?
        switch type {
        case .integer16, .integer32, .integer64: parsed = Int64(trimmed).map(StoreValue.int)
        case .double, .float: parsed = Double(trimmed).map(StoreValue.double)
        case .decimal:
            guard Double(trimmed) != nil, trimmed.allSatisfy({ "0123456789+-.eE".contains($0) }) else { return nil }
            parsed = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX")).map(StoreValue.decimal)
        case .string: parsed = .string(text)
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "true", "1": parsed = .bool(true)
            case "no", "false", "0": parsed = .bool(false)
            default: parsed = nil
            }
        case .date: parsed = Double(trimmed).map { .date(Date(timeIntervalSinceReferenceDate: $0)) }
        case .uuid: parsed = UUID(uuidString: trimmed).map(StoreValue.uuid)
        case .uri: parsed = URL(string: trimmed).map(StoreValue.uri)
        case .binaryData, .transformable, .objectID: parsed = nil
        }
        // Range and finiteness checks (an Integer 16 of 70000 is not an Integer 16).
        guard let parsed, type.coerce(parsed) != nil else { return nil }
        if case .double(let v) = parsed, !v.isFinite { return nil }
        return parsed
    }

    private func length(
        _ text: String, _ key: String, _ element: XMLTreeBuilder.Element, _ entity: String, _ name: String
    ) throws -> Int {
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)), value >= 0 else {
            throw failure(
                element, "attribute \(entity).\(name) has \(key) \"\(text)\", which is not a length",
                entity: entity, property: name)
        }
        return value
    }

    // MARK: Relationships and fetched properties

    /// Xcode's `deletionRule` strings.
    static let deleteRules: [String: DeleteRule] = [
        "Nullify": .nullify, "Cascade": .cascade, "Deny": .deny, "No Action": .noAction,
    ]

    private func relationship(from element: XMLTreeBuilder.Element, entity: String) throws -> RelationshipDescription {
        let name = try required("name", of: element)
        let destination = try required("destinationEntity", of: element)
        let ruleName = element.attributes["deletionRule"] ?? "Nullify"
        guard let rule = Self.deleteRules[ruleName] else {
            throw failure(
                element, "relationship \(entity).\(name) has deletionRule \"\(ruleName)\" (expected Nullify, Cascade, Deny or No Action)",
                entity: entity, property: name)
        }
        let toMany = try flag("toMany", of: element, default: false)
        var minCount = 0
        var maxCount = 0
        // A to-one's counts (Xcode writes maxCount="1") carry nothing that optionality does not.
        if toMany {
            minCount = try count("minCount", of: element, entity: entity, property: name)
            maxCount = try count("maxCount", of: element, entity: entity, property: name)
        }
        var relationship = RelationshipDescription(
            name, to: destination, inverse: nonEmpty(element.attributes["inverseName"]), toMany: toMany,
            ordered: try flag("ordered", of: element, default: false),
            optional: try flag("optional", of: element, default: false),
            transient: try flag("transient", of: element, default: false), minCount: minCount, maxCount: maxCount,
            deleteRule: rule, renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]))
        if let userInfoElement = element.children(named: "userInfo").first {
            relationship.userInfo = try userInfo(from: userInfoElement)
        }
        return relationship
    }

    private func count(_ key: String, of element: XMLTreeBuilder.Element, entity: String, property: String) throws -> Int {
        guard let text = nonEmpty(element.attributes[key]) else { return 0 }
        guard let value = Int(text), value >= 0 else {
            throw failure(
                element, "relationship \(entity).\(property) has \(key) \"\(text)\", which is not a count",
                entity: entity, property: property)
        }
        return value
    }

    private func fetchedProperty(from element: XMLTreeBuilder.Element, entity: String) throws -> FetchedPropertyDescription {
        let name = try required("name", of: element)
        guard let request = element.children(named: "fetchRequest").first else {
            throw failure(
                element, "fetched property \(entity).\(name) has no <fetchRequest>", entity: entity, property: name)
        }
        var fetched = FetchedPropertyDescription(
            name, entity: try required("entity", of: request),
            predicate: nonEmpty(request.attributes["predicateString"]),
            optional: try flag("optional", of: element, default: false),
            renamingIdentifier: nonEmpty(element.attributes["elementID"]),
            versionHashModifier: nonEmpty(element.attributes["versionHashModifier"]))
        if let userInfoElement = element.children(named: "userInfo").first {
            fetched.userInfo = try userInfo(from: userInfoElement)
        }
        return fetched
    }

    // MARK: Indexes, templates, user info

    private func fetchIndex(from element: XMLTreeBuilder.Element, entity: String) throws -> FetchIndexDescription {
        let name = try required("name", of: element)
        let elements = try element.children(named: "fetchIndexElement").map { item -> FetchIndexDescription.Element in
            let collation: FetchIndexDescription.CollationType
            switch item.attributes["type"] ?? "Binary" {
            case "Binary": collation = .binary
            case "RTree": collation = .rTree
            case let other:
                throw failure(item, "fetch index \(entity).\(name) has element type \"\(other)\" (expected Binary or RTree)", entity: entity)
            }
            let ascending: Bool
            switch item.attributes["order"] ?? "ascending" {
            case "ascending": ascending = true
            case "descending": ascending = false
            case let other:
                throw failure(item, "fetch index \(entity).\(name) has element order \"\(other)\" (expected ascending or descending)", entity: entity)
            }
            if let property = nonEmpty(item.attributes["property"]) {
                return .init(property: property, collationType: collation, ascending: ascending)
            }
            if let expression = nonEmpty(item.attributes["expression"]) {
                return .init(expression: expression, collationType: collation, ascending: ascending)
            }
            throw failure(item, "fetch index \(entity).\(name) has an element with neither property nor expression", entity: entity)
        }
        return FetchIndexDescription(
            name, elements: elements, partialIndexPredicate: nonEmpty(element.attributes["partialIndexExpression"]))
    }

    private func template(from element: XMLTreeBuilder.Element) throws -> FetchRequestTemplate {
        let name = try required("name", of: element)
        func number(_ key: String) throws -> Int {
            guard let text = nonEmpty(element.attributes[key]) else { return 0 }
            guard let value = Int(text), value >= 0 else {
                throw failure(element, "fetch request \(name) has \(key) \"\(text)\", which is not a count")
            }
            return value
        }
        return FetchRequestTemplate(
            name, entity: try required("entity", of: element),
            predicate: nonEmpty(element.attributes["predicateString"]), fetchLimit: try number("fetchLimit"),
            fetchBatchSize: try number("fetchBatchSize"),
            includesSubentities: try flag(["includesSubentities", "includeSubentities"], of: element, default: true),
            includesPendingChanges: try flag(["includesPendingChanges"], of: element, default: true),
            returnsObjectsAsFaults: try flag(["returnObjectsAsFaults", "returnsObjectsAsFaults"], of: element, default: true),
            returnsDistinctResults: try flag(
                ["returnDistinctResults", "returnsDistinctResults"], of: element, default: false))
    }

    private func userInfo(from element: XMLTreeBuilder.Element) throws -> [String: String] {
        var info: [String: String] = [:]
        for entry in element.children(named: "entry") {
            info[try required("key", of: entry)] = entry.attributes["value"] ?? ""
        }
        return info
    }

    // MARK: Helpers

    private func required(_ key: String, of element: XMLTreeBuilder.Element) throws -> String {
        guard let value = element.attributes[key], !value.isEmpty else {
            throw failure(element, "<\(element.name)> has no \(key)")
        }
        return value
    }

    private func flag(_ key: String, of element: XMLTreeBuilder.Element, default defaultValue: Bool) throws -> Bool {
        guard let text = element.attributes[key] else { return defaultValue }
        switch text.lowercased() {
        case "yes", "true", "1": return true
        case "no", "false", "0": return false
        default: throw failure(element, "\(key) is \"\(text)\" (expected YES or NO)")
        }
    }

    /// The first of several spellings of a flag that is present.
    private func flag(_ keys: [String], of element: XMLTreeBuilder.Element, default defaultValue: Bool) throws -> Bool {
        guard let key = keys.first(where: { element.attributes[$0] != nil }) else { return defaultValue }
        return try flag(key, of: element, default: defaultValue)
    }

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// An error naming the file, the element (with its name attribute) and its line.
    private func failure(
        _ element: XMLTreeBuilder.Element, _ message: String, entity: String? = nil, property: String? = nil
    ) -> StoreError {
        let label = element.attributes["name"].map { "<\(element.name) name=\"\($0)\">" } ?? "<\(element.name)>"
        return StoreError(
            .coreData, "The Xcode model \(file.path) is invalid: \(label) at line \(element.line): \(message)",
            fileURL: file, entityName: entity, propertyName: property)
    }
}
