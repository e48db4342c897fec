import Foundation
import PersistentStores

/// A model as Swift source of `@Model` classes (docs/swift-models.md): what
/// `storectl export-model --format models` writes. One `final class` per entity, named after
/// it, with a stored property per attribute and relationship, `@Attribute`/`@Relationship`
/// options for what differs from the defaults, `#Unique` and `#Index` for the constraints and
/// indexes, and an `init` taking the required attributes without a default.
///
/// What `@Model` classes cannot say is written as a comment where it applies: a sub-entity's
/// parent (its inherited properties are repeated in its class), an abstract entity, ordered
/// to-many relationships (arrays keep the order they are given but the store does not keep it),
/// validation rules, fetched properties, derived attributes, transformable attributes (kept as
/// their stored `Data`), and default values that are no literal.
enum ModelClassSource {
    static func source(of model: ObjectModel, describing origin: String) -> String {
        var lines = [
            "// The model of \(origin) as @Model classes, written by `storectl export-model --format models`.",
            "import Foundation",
            "import PersistentModels",
        ]
        let entities = model.entities.sorted { $0.name < $1.name }
        for entity in entities {
            lines.append("")
            lines += classLines(entity, in: model)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The attributes and relationships of an entity with its parents' first.
    private static func properties(of entity: EntityDescription, in model: ObjectModel)
        -> (attributes: [AttributeDescription], relationships: [RelationshipDescription])
    {
        var chain = [entity]
        var seen: Set<String> = [entity.name]
        while let parentName = chain[0].parentEntityName, let parent = model.entity(named: parentName), seen.insert(parentName).inserted {
            chain.insert(parent, at: 0)
        }
        return (chain.flatMap(\.attributes), chain.flatMap(\.relationships))
    }

    private static func classLines(_ entity: EntityDescription, in model: ObjectModel) -> [String] {
        let className = identifier(entity.name)
        var lines: [String] = []
        if let parent = entity.parentEntityName {
            lines.append("// A sub-entity of \(parent) in the store's model: its properties are repeated here.")
        }
        if entity.isAbstract { lines.append("// Abstract in the store's model (no objects of its own).") }
        lines += ["@Model", "final class \(className) {"]
        let (attributes, relationships) = properties(of: entity, in: model)
        let singleUnique = Set(entity.uniquenessConstraints.filter { $0.count == 1 }.compactMap(\.first))
        let compoundUnique = entity.uniquenessConstraints.filter { $0.count > 1 }
        let indexed = entity.fetchIndexes.compactMap { index -> [String]? in
            let names = index.elements.compactMap(\.propertyName)
            return names.count == index.elements.count && !names.isEmpty ? names : nil
        } + attributes.filter(\.isIndexed).map { [$0.name] }
        var directives: [String] = []
        if !compoundUnique.isEmpty {
            directives.append("    #Unique<\(className)>(\(compoundUnique.map(keyPathList).joined(separator: ", ")))")
        }
        if !indexed.isEmpty { directives.append("    #Index<\(className)>(\(indexed.map(keyPathList).joined(separator: ", ")))") }
        if !directives.isEmpty { lines += directives + [""] }

        var required: [(name: String, type: String)] = []
        for attribute in attributes {
            guard let line = attributeLine(attribute, unique: singleUnique.contains(attribute.name), required: &required) else {
                lines.append("    // \(attribute.name): an attribute of type \(attribute.type.rawValue), which a @Model class cannot hold")
                continue
            }
            lines += line.map { "    " + $0 }
        }
        for relationship in relationships { lines += relationshipLines(relationship, of: entity.name, in: model).map { "    " + $0 } }
        for fetched in entity.fetchedProperties {
            lines.append("    // \(fetched.name): a fetched property of \(fetched.destinationEntityName) (no @Model form)")
        }
        lines.append("")
        let parameters = required.map { "\(identifier($0.name)): \($0.type)" }.joined(separator: ", ")
        if required.isEmpty {
            lines.append("    init() {}")
        } else {
            lines.append("    init(\(parameters)) {")
            for (name, _) in required { lines.append("        self.\(identifier(name)) = \(identifier(name))") }
            lines.append("    }")
        }
        lines.append("}")
        return lines
    }

    /// The declaration of an attribute (with comments before it), or nil for a type no
    /// property can hold; `required` gains the attribute when `init` must set it.
    private static func attributeLine(
        _ attribute: AttributeDescription, unique: Bool, required: inout [(name: String, type: String)]
    ) -> [String]? {
        let swiftType: String
        var comments: [String] = []
        switch attribute.type {
        case .integer16: swiftType = "Int16"
        case .integer32: swiftType = "Int32"
        case .integer64: swiftType = "Int"
        case .decimal: swiftType = "Decimal"
        case .double: swiftType = "Double"
        case .float: swiftType = "Float"
        case .string: swiftType = "String"
        case .boolean: swiftType = "Bool"
        case .date: swiftType = "Date"
        case .binaryData: swiftType = "Data"
        case .uuid: swiftType = "UUID"
        case .uri: swiftType = "URL"
        case .transformable:
            swiftType = "Data"
            comments.append(
                "// Transformable in the store's model\(attribute.valueTransformerName.map { " (\($0))" } ?? ""): its stored bytes.")
        case .objectID: return nil
        }
        var options: [String] = []
        if unique { options.append(".unique") }
        if attribute.allowsExternalBinaryDataStorage { options.append(".externalStorage") }
        if attribute.isTransient { options.append(".ephemeral") }
        var arguments = options
        if let original = attribute.renamingIdentifier, original != attribute.name {
            arguments.append("originalName: \(literal(original))")
        }
        if attribute.derivationExpression != nil { comments.append("// Derived in the store's model: \(attribute.derivationExpression ?? "").") }
        var rules: [String] = []
        if let value = attribute.minValue { rules.append("minimum \(describe(value))") }
        if let value = attribute.maxValue { rules.append("maximum \(describe(value))") }
        if let length = attribute.minLength { rules.append("minimum length \(length)") }
        if let length = attribute.maxLength { rules.append("maximum length \(length)") }
        if let expression = attribute.regularExpression { rules.append("matching \(literal(expression))") }
        if !rules.isEmpty { comments.append("// Validated in the store's model: \(rules.joined(separator: ", ")).") }
        let initial = attribute.defaultValue.flatMap { defaultLiteral($0, type: attribute.type) }
        if let value = attribute.defaultValue, initial == nil, value != .null {
            comments.append("// Default in the store's model: \(describe(value)) (no literal form).")
        }
        let attributePrefix = arguments.isEmpty ? "" : "@Attribute(\(arguments.joined(separator: ", "))) "
        var declaration = "\(attributePrefix)var \(identifier(attribute.name)): \(swiftType)\(attribute.isOptional ? "?" : "")"
        if let initial {
            declaration += " = \(initial)"
        } else if !attribute.isOptional {
            required.append((attribute.name, swiftType))
        }
        return comments + [declaration]
    }

    private static func relationshipLines(_ relationship: RelationshipDescription, of entityName: String, in model: ObjectModel) -> [String] {
        let destination = identifier(relationship.destinationEntityName)
        var comments: [String] = []
        var arguments: [String] = []
        if relationship.deleteRule != .nullify { arguments.append("deleteRule: .\(relationship.deleteRule.rawValue)") }
        if relationship.isToMany {
            if relationship.minCount != 0 { arguments.append("minimumModelCount: \(relationship.minCount)") }
            if relationship.maxCount != 0 { arguments.append("maximumModelCount: \(relationship.maxCount)") }
        }
        if let original = relationship.renamingIdentifier, original != relationship.name {
            arguments.append("originalName: \(literal(original))")
        }
        // The inverse is declared on one side of each pair only (both would be ambiguous):
        // the side whose entity and name sort first.
        if let inverse = relationship.inverseName,
            (entityName, relationship.name) <= (relationship.destinationEntityName, inverse)
        {
            arguments.append("inverse: \\\(destination).\(identifier(inverse))")
        }
        if relationship.isOrdered { comments.append("// Ordered in the store's model: the array's order is not stored.") }
        if relationship.isTransient { comments.append("// Transient in the store's model.") }
        if !relationship.isOptional, !relationship.isToMany { comments.append("// Required in the store's model.") }
        let prefix = arguments.isEmpty ? "" : "@Relationship(\(arguments.joined(separator: ", "))) "
        let declaration = relationship.isToMany
            ? "\(prefix)var \(identifier(relationship.name)): [\(destination)] = []"
            : "\(prefix)var \(identifier(relationship.name)): \(destination)?"
        return comments + [declaration]
    }

    /// A default value as a Swift literal of the attribute's type, when it has one.
    private static func defaultLiteral(_ value: StoreValue, type: AttributeType) -> String? {
        switch (type, value) {
        case (.string, .string(let v)): return literal(v)
        case (.boolean, .bool(let v)): return "\(v)"
        case (.integer16, .int(let v)), (.integer32, .int(let v)), (.integer64, .int(let v)): return "\(v)"
        case (.double, .double(let v)), (.float, .double(let v)):
            return v.isFinite ? "\(v)" : nil
        case (.double, .int(let v)), (.float, .int(let v)), (.decimal, .int(let v)): return "\(v)"
        case (.decimal, .decimal(let v)): return "\(v)".contains(where: { !"-0123456789.".contains($0) }) ? nil : "\(v)"
        default: return nil
        }
    }

    /// A value as a comment shows it.
    private static func describe(_ value: StoreValue) -> String {
        switch value {
        case .string(let v): return literal(v)
        case .int(let v): return "\(v)"
        case .double(let v): return "\(v)"
        case .bool(let v): return "\(v)"
        case .decimal(let v): return "\(v)"
        case .date(let v): return ISO8601DateFormatter().string(from: v)
        default: return ModelSwiftSource.value(value)
        }
    }

    /// `[\.a, \.b]`.
    private static func keyPathList(_ names: [String]) -> String {
        "[" + names.map { "\\.\(identifier($0))" }.joined(separator: ", ") + "]"
    }

    /// A name as a Swift identifier: in backticks when it is a keyword.
    static func identifier(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    private static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "protocol", "public", "rethrows", "static", "struct",
        "subscript", "typealias", "var", "break", "case", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "switch", "where", "while", "as", "catch", "false", "is", "nil",
        "super", "self", "Self", "throw", "throws", "true", "try", "Any", "Type",
    ]

    /// A Swift string literal.
    static func literal(_ text: String) -> String { ModelSwiftSource.literal(text) }
}
