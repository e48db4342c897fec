import Foundation

/// Writes an ``ObjectModel`` as the `contents` XML of an Xcode `.xcdatamodel`: the form Xcode
/// opens and ``ObjectModel/init(contentsOf:)`` reads back to an equal model (the same version
/// hashes, this framework's and Core Data's).
///
/// Everything ``XcodeModelReader`` reads is written: entities with their attributes,
/// relationships, fetched properties, fetch indexes, uniqueness constraints and user info,
/// fetch request templates, configurations and the version identifier. A model with several
/// version identifiers keeps the first (Xcode has one field for it).
enum XcodeModelWriter {
    /// The `contents` file of `model`, UTF-8; 134060 when a name or value holds a character
    /// XML 1.0 cannot carry (a control character other than tab, line feed and carriage return).
    static func contents(of model: ObjectModel) throws -> Data {
        try checkCharacters(of: model)
        var lines: [String] = [#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#]
        var modelAttributes: [(String, String)] = [
            ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
            ("minimumToolsVersion", "Automatic"), ("sourceLanguage", "Swift"),
        ]
        if let identifier = model.versionIdentifiers.first { modelAttributes.append(("userDefinedModelVersionIdentifier", identifier)) }
        lines.append(openTag("model", modelAttributes))
        for entity in model.entities { lines += entityLines(entity) }
        for template in model.fetchRequestTemplates {
            var attributes: [(String, String)] = [("name", template.name), ("entity", template.entityName)]
            if let predicate = template.predicateFormat { attributes.append(("predicateString", predicate)) }
            if template.fetchLimit > 0 { attributes.append(("fetchLimit", String(template.fetchLimit))) }
            if template.fetchBatchSize > 0 { attributes.append(("fetchBatchSize", String(template.fetchBatchSize))) }
            if !template.includesSubentities { attributes.append(("includeSubentities", "NO")) }
            if !template.includesPendingChanges { attributes.append(("includesPendingChanges", "NO")) }
            if !template.returnsObjectsAsFaults { attributes.append(("returnObjectsAsFaults", "NO")) }
            if template.returnsDistinctResults { attributes.append(("returnDistinctResults", "YES")) }
            lines.append("    " + emptyTag("fetchRequest", attributes))
        }
        for name in model.configurations.keys.sorted() {
            lines.append("    " + openTag("configuration", [("name", name)]))
            for member in model.configurations[name] ?? [] { lines.append("        " + emptyTag("memberEntity", [("name", member)])) }
            lines.append("    </configuration>")
        }
        lines.append("</model>")
        return Data((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// Throws 134060 naming the first text of `model` with a character XML cannot hold.
    static func checkCharacters(of model: ObjectModel) throws {
        func check(_ text: String?, _ what: @autoclosure () -> String) throws {
            guard let text else { return }
            for scalar in text.unicodeScalars where !isXMLCharacter(scalar) {
                throw StoreError(
                    .coreData,
                    "The model cannot be written as an Xcode model: \(what()) holds U+\(String(scalar.value, radix: 16, uppercase: true)), which XML cannot carry")
            }
        }
        for identifier in model.versionIdentifiers { try check(identifier, "a version identifier") }
        for (name, members) in model.configurations {
            try check(name, "configuration \(name)")
            for member in members { try check(member, "configuration \(name)") }
        }
        for template in model.fetchRequestTemplates {
            for text in [template.name, template.entityName, template.predicateFormat] { try check(text, "fetch request \(template.name)") }
        }
        for entity in model.entities {
            let what = "entity \(entity.name)"
            for text in [entity.name, entity.parentEntityName, entity.className, entity.renamingIdentifier, entity.versionHashModifier] {
                try check(text, what)
            }
            for (key, value) in entity.userInfo { try check(key, what); try check(value, what) }
            for constraint in entity.uniquenessConstraints { for name in constraint { try check(name, what) } }
            for index in entity.fetchIndexes {
                try check(index.name, what)
                try check(index.partialIndexPredicateFormat, what)
                for element in index.elements { try check(element.propertyName, what); try check(element.expression, what) }
            }
            for attribute in entity.attributes {
                let what = "attribute \(entity.name).\(attribute.name)"
                for text in [attribute.name, attribute.regularExpression, attribute.valueTransformerName, attribute.renamingIdentifier,
                             attribute.versionHashModifier, attribute.derivationExpression] {
                    try check(text, what)
                }
                for value in [attribute.defaultValue, attribute.minValue, attribute.maxValue] { try check(value.flatMap(Self.text), what) }
                for (key, value) in attribute.userInfo { try check(key, what); try check(value, what) }
            }
            for relationship in entity.relationships {
                let what = "relationship \(entity.name).\(relationship.name)"
                for text in [relationship.name, relationship.destinationEntityName, relationship.inverseName, relationship.renamingIdentifier,
                             relationship.versionHashModifier] {
                    try check(text, what)
                }
                for (key, value) in relationship.userInfo { try check(key, what); try check(value, what) }
            }
            for fetched in entity.fetchedProperties {
                let what = "fetched property \(entity.name).\(fetched.name)"
                for text in [fetched.name, fetched.destinationEntityName, fetched.predicateFormat, fetched.renamingIdentifier, fetched.versionHashModifier] {
                    try check(text, what)
                }
                for (key, value) in fetched.userInfo { try check(key, what); try check(value, what) }
            }
        }
    }

    /// Whether XML 1.0 can carry `scalar` (its `Char` production).
    static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD, 0x20...0xD7FF, 0xE000...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    private static func entityLines(_ entity: EntityDescription) -> [String] {
        var attributes: [(String, String)] = [("name", entity.name)]
        if let className = entity.className { attributes.append(("representedClassName", className)) }
        if let parent = entity.parentEntityName { attributes.append(("parentEntity", parent)) }
        if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
        if let identifier = entity.renamingIdentifier { attributes.append(("elementID", identifier)) }
        if let modifier = entity.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        attributes.append(("syncable", "YES"))
        var lines = ["    " + openTag("entity", attributes)]
        let indent = "        "
        for attribute in entity.attributes { lines += attributeLines(attribute).map { indent + $0 } }
        for relationship in entity.relationships { lines += relationshipLines(relationship).map { indent + $0 } }
        for fetched in entity.fetchedProperties {
            var fetchedAttributes: [(String, String)] = [("name", fetched.name)]
            if fetched.isOptional { fetchedAttributes.append(("optional", "YES")) }
            if let identifier = fetched.renamingIdentifier { fetchedAttributes.append(("elementID", identifier)) }
            if let modifier = fetched.versionHashModifier { fetchedAttributes.append(("versionHashModifier", modifier)) }
            lines.append(indent + openTag("fetchedProperty", fetchedAttributes))
            var request: [(String, String)] = [("name", "fetchedPropertyFetchRequest"), ("entity", fetched.destinationEntityName)]
            if let predicate = fetched.predicateFormat { request.append(("predicateString", predicate)) }
            lines.append(indent + "    " + emptyTag("fetchRequest", request))
            lines += userInfoLines(fetched.userInfo).map { indent + "    " + $0 }
            lines.append(indent + "</fetchedProperty>")
        }
        for index in entity.fetchIndexes {
            var indexAttributes: [(String, String)] = [("name", index.name)]
            if let partial = index.partialIndexPredicateFormat { indexAttributes.append(("partialIndexExpression", partial)) }
            lines.append(indent + openTag("fetchIndex", indexAttributes))
            for element in index.elements {
                var elementAttributes: [(String, String)] = []
                if let property = element.propertyName { elementAttributes.append(("property", property)) }
                if let expression = element.expression { elementAttributes.append(("expression", expression)) }
                elementAttributes.append(("type", element.collationType == .rTree ? "RTree" : "Binary"))
                elementAttributes.append(("order", element.isAscending ? "ascending" : "descending"))
                lines.append(indent + "    " + emptyTag("fetchIndexElement", elementAttributes))
            }
            lines.append(indent + "</fetchIndex>")
        }
        if !entity.uniquenessConstraints.isEmpty {
            lines.append(indent + "<uniquenessConstraints>")
            for constraint in entity.uniquenessConstraints {
                lines.append(indent + "    <uniquenessConstraint>")
                for property in constraint { lines.append(indent + "        " + emptyTag("constraint", [("value", property)])) }
                lines.append(indent + "    </uniquenessConstraint>")
            }
            lines.append(indent + "</uniquenessConstraints>")
        }
        lines += userInfoLines(entity.userInfo).map { indent + $0 }
        lines.append("    </entity>")
        return lines
    }

    /// Xcode's `attributeType` names.
    static func typeName(_ type: AttributeType) -> String {
        switch type {
        case .integer16: return "Integer 16"
        case .integer32: return "Integer 32"
        case .integer64: return "Integer 64"
        case .decimal: return "Decimal"
        case .double: return "Double"
        case .float: return "Float"
        case .string: return "String"
        case .boolean: return "Boolean"
        case .date: return "Date"
        case .binaryData: return "Binary"
        case .uuid: return "UUID"
        case .uri: return "URI"
        case .transformable: return "Transformable"
        case .objectID: return "ObjectID"
        }
    }

    private static func attributeLines(_ attribute: AttributeDescription) -> [String] {
        var attributes: [(String, String)] = [("name", attribute.name)]
        if attribute.isOptional { attributes.append(("optional", "YES")) }
        if attribute.isTransient { attributes.append(("transient", "YES")) }
        if attribute.isIndexed { attributes.append(("indexed", "YES")) }
        attributes.append(("attributeType", typeName(attribute.type)))
        if let value = attribute.defaultValue, let text = text(value) {
            attributes.append((attribute.type == .date ? "defaultDateTimeInterval" : "defaultValueString", text))
        }
        switch attribute.type {
        case .string, .binaryData:
            if let minimum = attribute.minLength { attributes.append(("minValueString", String(minimum))) }
            if let maximum = attribute.maxLength { attributes.append(("maxValueString", String(maximum))) }
        case .date:
            if let minimum = attribute.minValue.flatMap(text) { attributes.append(("minDateTimeInterval", minimum)) }
            if let maximum = attribute.maxValue.flatMap(text) { attributes.append(("maxDateTimeInterval", maximum)) }
        default:
            if let minimum = attribute.minValue.flatMap(text) { attributes.append(("minValueString", minimum)) }
            if let maximum = attribute.maxValue.flatMap(text) { attributes.append(("maxValueString", maximum)) }
        }
        if let expression = attribute.regularExpression { attributes.append(("regularExpressionString", expression)) }
        if let transformer = attribute.valueTransformerName { attributes.append(("valueTransformerName", transformer)) }
        if attribute.allowsExternalBinaryDataStorage { attributes.append(("allowsExternalBinaryDataStorage", "YES")) }
        if let identifier = attribute.renamingIdentifier { attributes.append(("elementID", identifier)) }
        if let modifier = attribute.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        if let derivation = attribute.derivationExpression {
            attributes.append(("derived", "YES"))
            attributes.append(("derivationExpression", derivation))
        }
        if attribute.type.isNumeric || attribute.type == .boolean { attributes.append(("usesScalarValueType", "YES")) }
        attributes.append(("syncable", "YES"))
        return element("attribute", attributes, children: userInfoLines(attribute.userInfo))
    }

    private static func relationshipLines(_ relationship: RelationshipDescription) -> [String] {
        var attributes: [(String, String)] = [("name", relationship.name)]
        if relationship.isOptional { attributes.append(("optional", "YES")) }
        if relationship.isTransient { attributes.append(("transient", "YES")) }
        if relationship.isToMany {
            attributes.append(("toMany", "YES"))
            if relationship.isOrdered { attributes.append(("ordered", "YES")) }
            if relationship.minCount > 0 { attributes.append(("minCount", String(relationship.minCount))) }
            if relationship.maxCount > 0 { attributes.append(("maxCount", String(relationship.maxCount))) }
        } else {
            attributes.append(("maxCount", "1"))
        }
        let rule: String
        switch relationship.deleteRule {
        case .nullify: rule = "Nullify"
        case .cascade: rule = "Cascade"
        case .deny: rule = "Deny"
        case .noAction: rule = "No Action"
        }
        attributes.append(("deletionRule", rule))
        attributes.append(("destinationEntity", relationship.destinationEntityName))
        if let inverse = relationship.inverseName {
            attributes.append(("inverseName", inverse))
            attributes.append(("inverseEntity", relationship.destinationEntityName))
        }
        if let identifier = relationship.renamingIdentifier { attributes.append(("elementID", identifier)) }
        if let modifier = relationship.versionHashModifier { attributes.append(("versionHashModifier", modifier)) }
        attributes.append(("syncable", "YES"))
        return element("relationship", attributes, children: userInfoLines(relationship.userInfo))
    }

    private static func userInfoLines(_ info: [String: String]) -> [String] {
        guard !info.isEmpty else { return [] }
        return ["<userInfo>"] + info.keys.sorted().map { "    " + emptyTag("entry", [("key", $0), ("value", info[$0] ?? "")]) }
            + ["</userInfo>"]
    }

    /// A value as Xcode writes it: numbers in the POSIX form, booleans YES/NO, dates as seconds
    /// since 2001; nil for values a `contents` file has no form for (binary data, object IDs).
    static func text(_ value: StoreValue) -> String? {
        switch value {
        case .int(let v): return String(v)
        case .double(let v): return v.isFinite ? "\(v)" : nil
        case .decimal(let v): return "\(v)"
        case .bool(let v): return v ? "YES" : "NO"
        case .string(let v): return v
        case .date(let v): return "\(v.timeIntervalSinceReferenceDate)"
        case .uuid(let v): return v.uuidString
        case .uri(let v): return v.absoluteString
        case .null, .data, .objectID: return nil
        }
    }

    private static func element(_ name: String, _ attributes: [(String, String)], children: [String]) -> [String] {
        guard !children.isEmpty else { return [emptyTag(name, attributes)] }
        return [openTag(name, attributes)] + children.map { "    " + $0 } + ["</\(name)>"]
    }

    private static func openTag(_ name: String, _ attributes: [(String, String)]) -> String {
        "<\(name)" + attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined() + ">"
    }

    private static func emptyTag(_ name: String, _ attributes: [(String, String)]) -> String {
        "<\(name)" + attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined() + "/>"
    }

    /// Text escaped for a double-quoted attribute value (line breaks and tabs as character
    /// references, so they survive attribute-value normalisation).
    static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            case "\t": result += "&#9;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

extension ObjectModel {
    /// The model as the `contents` file of an Xcode `.xcdatamodel` (UTF-8 XML), which
    /// ``init(contentsOf:)`` and Xcode read back to a model with the same version hashes;
    /// `storectl export-model` writes it.
    ///
    /// ```swift
    /// let folder = URL(fileURLWithPath: "Exported.xcdatamodel")
    /// try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    /// try model.xcodeModelContents().write(to: folder.appendingPathComponent("contents"))
    /// ```
    ///
    /// - Throws: 134060 when a name or value holds a character XML 1.0 cannot carry (a control
    ///   character other than tab, line feed and carriage return), naming it.
    public func xcodeModelContents() throws -> Data { try XcodeModelWriter.contents(of: self) }
}
