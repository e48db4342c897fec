import Foundation
import PersistentStores

/// A model as Swift source that builds it with the model DSL (`ObjectModel { Entity … }`):
/// what `storectl export-model --swift` writes. Every argument that differs from the DSL's
/// default is written, in the order the initialisers declare them, so the source compiles to
/// a model equal to the one exported (fetched properties, fetch indexes, templates and
/// configurations included).
enum ModelSwiftSource {
    static func source(of model: ObjectModel, describing origin: String) -> String {
        var lines = [
            "// The model of \(origin), written by `storectl export-model --swift`.",
            "import Foundation",
            "import PersistentStores",
            "",
        ]
        var modelArguments: [String] = []
        if !model.configurations.isEmpty {
            let entries = model.configurations.keys.sorted().map { "\(literal($0)): [\((model.configurations[$0] ?? []).map(literal).joined(separator: ", "))]" }
            modelArguments.append("configurations: [\(entries.joined(separator: ", "))]")
        }
        if !model.versionIdentifiers.isEmpty {
            modelArguments.append("versionIdentifiers: [\(model.versionIdentifiers.map(literal).joined(separator: ", "))]")
        }
        if !model.fetchRequestTemplates.isEmpty {
            let templates = model.fetchRequestTemplates.map(template).joined(separator: ",\n        ")
            modelArguments.append("fetchRequestTemplates: [\n        \(templates),\n    ]")
        }
        let head = modelArguments.isEmpty ? "let model = try ObjectModel {" : "let model = try ObjectModel(\(modelArguments.joined(separator: ", "))) {"
        lines.append(head)
        for entity in model.entities { lines += entityLines(entity).map { "    " + $0 } }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func entityLines(_ entity: EntityDescription) -> [String] {
        var arguments = [literal(entity.name)]
        if let parent = entity.parentEntityName { arguments.append("parent: \(literal(parent))") }
        if entity.isAbstract { arguments.append("abstract: true") }
        if let className = entity.className { arguments.append("className: \(literal(className))") }
        if let identifier = entity.renamingIdentifier { arguments.append("renamingIdentifier: \(literal(identifier))") }
        if let modifier = entity.versionHashModifier { arguments.append("versionHashModifier: \(literal(modifier))") }
        if !entity.uniquenessConstraints.isEmpty {
            arguments.append("uniquenessConstraints: [\(entity.uniquenessConstraints.map { "[\($0.map(literal).joined(separator: ", "))]" }.joined(separator: ", "))]")
        }
        if !entity.userInfo.isEmpty { arguments.append("userInfo: \(dictionary(entity.userInfo))") }
        if !entity.fetchIndexes.isEmpty {
            arguments.append("fetchIndexes: [\(entity.fetchIndexes.map(fetchIndex).joined(separator: ", "))]")
        }
        var lines = ["Entity(\(arguments.joined(separator: ", "))) {"]
        for attribute in entity.attributes { lines.append("    " + self.attribute(attribute)) }
        for relationship in entity.relationships { lines.append("    " + self.relationship(relationship)) }
        for fetched in entity.fetchedProperties { lines.append("    " + fetchedProperty(fetched)) }
        lines.append("}")
        return lines
    }

    private static func attribute(_ attribute: AttributeDescription) -> String {
        var arguments = [literal(attribute.name), "." + attribute.type.rawValue]
        if !attribute.isOptional { arguments.append("optional: false") }
        if attribute.isTransient { arguments.append("transient: true") }
        if attribute.isIndexed { arguments.append("indexed: true") }
        if let value = attribute.defaultValue { arguments.append("defaultValue: \(self.value(value))") }
        if let value = attribute.minValue { arguments.append("minValue: \(self.value(value))") }
        if let value = attribute.maxValue { arguments.append("maxValue: \(self.value(value))") }
        if let length = attribute.minLength { arguments.append("minLength: \(length)") }
        if let length = attribute.maxLength { arguments.append("maxLength: \(length)") }
        if let expression = attribute.regularExpression { arguments.append("regularExpression: \(literal(expression))") }
        if let transformer = attribute.valueTransformerName { arguments.append("valueTransformerName: \(literal(transformer))") }
        if attribute.allowsExternalBinaryDataStorage { arguments.append("allowsExternalBinaryDataStorage: true") }
        if let identifier = attribute.renamingIdentifier { arguments.append("renamingIdentifier: \(literal(identifier))") }
        if let modifier = attribute.versionHashModifier { arguments.append("versionHashModifier: \(literal(modifier))") }
        if !attribute.userInfo.isEmpty { arguments.append("userInfo: \(dictionary(attribute.userInfo))") }
        if let derivation = attribute.derivationExpression { arguments.append("derivation: \(literal(derivation))") }
        return "Attribute(\(arguments.joined(separator: ", ")))"
    }

    private static func relationship(_ relationship: RelationshipDescription) -> String {
        var arguments = [literal(relationship.name), "to: \(literal(relationship.destinationEntityName))"]
        if let inverse = relationship.inverseName { arguments.append("inverse: \(literal(inverse))") }
        if relationship.isToMany { arguments.append("toMany: true") }
        if relationship.isOrdered { arguments.append("ordered: true") }
        if !relationship.isOptional { arguments.append("optional: false") }
        if relationship.isTransient { arguments.append("transient: true") }
        if relationship.minCount != 0 { arguments.append("minCount: \(relationship.minCount)") }
        if relationship.maxCount != 0 { arguments.append("maxCount: \(relationship.maxCount)") }
        if relationship.deleteRule != .nullify { arguments.append("deleteRule: .\(relationship.deleteRule.rawValue)") }
        if let identifier = relationship.renamingIdentifier { arguments.append("renamingIdentifier: \(literal(identifier))") }
        if let modifier = relationship.versionHashModifier { arguments.append("versionHashModifier: \(literal(modifier))") }
        if !relationship.userInfo.isEmpty { arguments.append("userInfo: \(dictionary(relationship.userInfo))") }
        return "Relationship(\(arguments.joined(separator: ", ")))"
    }

    private static func fetchedProperty(_ fetched: FetchedPropertyDescription) -> String {
        var arguments = [literal(fetched.name), "entity: \(literal(fetched.destinationEntityName))"]
        if let predicate = fetched.predicateFormat { arguments.append("predicate: \(literal(predicate))") }
        if !fetched.isOptional { arguments.append("optional: false") }
        if let identifier = fetched.renamingIdentifier { arguments.append("renamingIdentifier: \(literal(identifier))") }
        if let modifier = fetched.versionHashModifier { arguments.append("versionHashModifier: \(literal(modifier))") }
        if !fetched.userInfo.isEmpty { arguments.append("userInfo: \(dictionary(fetched.userInfo))") }
        return "FetchedPropertyDescription(\(arguments.joined(separator: ", ")))"
    }

    private static func fetchIndex(_ index: FetchIndexDescription) -> String {
        let elements = index.elements.map { element -> String in
            var arguments: [String] = []
            if let property = element.propertyName { arguments.append("property: \(literal(property))") }
            if let expression = element.expression { arguments.append("expression: \(literal(expression))") }
            if element.collationType != .binary { arguments.append("collationType: .\(element.collationType.rawValue)") }
            if !element.isAscending { arguments.append("ascending: false") }
            return ".init(\(arguments.joined(separator: ", ")))"
        }
        var arguments = [literal(index.name), "elements: [\(elements.joined(separator: ", "))]"]
        if let partial = index.partialIndexPredicateFormat { arguments.append("partialIndexPredicate: \(literal(partial))") }
        return "FetchIndexDescription(\(arguments.joined(separator: ", ")))"
    }

    private static func template(_ template: FetchRequestTemplate) -> String {
        var arguments = [literal(template.name), "entity: \(literal(template.entityName))"]
        if let predicate = template.predicateFormat { arguments.append("predicate: \(literal(predicate))") }
        if template.fetchLimit != 0 { arguments.append("fetchLimit: \(template.fetchLimit)") }
        if template.fetchBatchSize != 0 { arguments.append("fetchBatchSize: \(template.fetchBatchSize)") }
        if !template.includesSubentities { arguments.append("includesSubentities: false") }
        if !template.includesPendingChanges { arguments.append("includesPendingChanges: false") }
        if !template.returnsObjectsAsFaults { arguments.append("returnsObjectsAsFaults: false") }
        if template.returnsDistinctResults { arguments.append("returnsDistinctResults: true") }
        return "FetchRequestTemplate(\(arguments.joined(separator: ", ")))"
    }

    /// A `StoreValue` as a Swift expression.
    static func value(_ value: StoreValue) -> String {
        switch value {
        case .null: return ".null"
        case .bool(let v): return ".bool(\(v))"
        case .int(let v): return ".int(\(v))"
        case .double(let v):
            if v.isNaN { return ".double(.nan)" }
            if v.isInfinite { return v < 0 ? ".double(-.infinity)" : ".double(.infinity)" }
            return ".double(\(v))"
        case .decimal(let v): return ".decimal(Decimal(string: \(literal("\(v)")), locale: Locale(identifier: \"en_US_POSIX\"))!)"
        case .string(let v): return ".string(\(literal(v)))"
        case .date(let v): return ".date(Date(timeIntervalSinceReferenceDate: \(v.timeIntervalSinceReferenceDate)))"
        case .data(let v): return ".data(Data(base64Encoded: \(literal(v.base64EncodedString())))!)"
        case .uuid(let v): return ".uuid(UUID(uuidString: \(literal(v.uuidString)))!)"
        case .uri(let v): return ".uri(URL(string: \(literal(v.absoluteString)))!)"
        case .objectID(let v): return ".null /* object ID \(v.uriRepresentation.absoluteString) has no literal form */"
        }
    }

    /// A Swift string literal (escapes from `debugDescription`).
    static func literal(_ text: String) -> String { text.debugDescription }

    private static func dictionary(_ info: [String: String]) -> String {
        "[" + info.keys.sorted().map { "\(literal($0)): \(literal(info[$0] ?? ""))" }.joined(separator: ", ") + "]"
    }
}
