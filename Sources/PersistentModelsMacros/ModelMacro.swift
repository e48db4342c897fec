import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Model`: makes a class a persistent model. It derives the entity from the stored
/// properties (``ModelProperty``), turns each into accessors over the object's backing data
/// (through `@_PersistedProperty`), and adds the `PersistentModel` conformance.
struct ModelMacro: MemberMacro, MemberAttributeMacro, ExtensionMacro {
    // MARK: Members

    static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(
                Diagnostic(
                    node: Syntax(node),
                    message: ModelDiagnostic(
                        message: "@Model applies to classes (a persistent model has an identity)", id: "notAClass")))
            return []
        }
        var properties: [ModelProperty] = []
        for member in classDecl.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            switch ModelProperty.analyze(variable) {
            case .persistent(let property): properties.append(property)
            case .skipped: break
            case .invalid(let diagnostics): diagnostics.forEach(context.diagnose)
            }
        }
        let className = classDecl.name.trimmed.text
        let directives = ModelSchemaDirective.read(classDecl.memberBlock.members, className: className, properties: properties)
        directives.diagnostics.forEach(context.diagnose)
        func constraintList(_ lists: [[String]]) -> String {
            "[" + lists.map { "[" + $0.map(literal).joined(separator: ", ") + "]" }.joined(separator: ", ") + "]"
        }
        var schemaExtras = ""
        if !directives.unique.isEmpty { schemaExtras += ",\n    uniquenessConstraints: \(constraintList(directives.unique))" }
        if !directives.indexes.isEmpty { schemaExtras += ",\n    fetchIndexes: \(constraintList(directives.indexes))" }
        let access = classDecl.modifiers.contains { $0.name.tokenKind == .keyword(.public) || $0.name.tokenKind == .keyword(.open) }
            ? "public " : ""
        let schemaEntries = properties.map { schemaEntry($0, className: className) }.joined(separator: ",\n")
        let markers = properties.map { "self._$\($0.name) = PersistentModels._ModelPropertyMarker()" }.joined(separator: "\n")
        let keyPathCases = properties.map { "case \\\(className).\($0.identifier.text): return \(literal($0.name))" }
            .joined(separator: "\n")
        return [
            // Read on every property access, by the generated accessors only (none hands out an
            // inout reference to it), and set once: no runtime exclusivity check.
            """
            @exclusivity(unchecked) private var _$backingDataStorage: PersistentModels.ModelBackingData? = nil
            """,
            """
            private var _$backingData: PersistentModels.ModelBackingData {
                PersistentModels.ModelBackingData.made(in: &_$backingDataStorage, linkedBy: _$instanceLink, for: \(raw: className).self)
            }
            """,
            """
            private let _$observationRegistrar = Observation.ObservationRegistrar()
            """,
            // The managed object's reference to this instance, cleared as the instance is freed.
            // Set by the contexts only (no accessor hands out an inout reference to it): no
            // runtime exclusivity check.
            """
            @exclusivity(unchecked) private var _$instanceLink = PersistentModels._ModelInstanceLink()
            """,
            """
            /// Makes this instance the one standing for a managed object (used by contexts, not by applications).
            \(raw: access)func _persistentLink(
                to object: PersistentModels.ManagedObject, slots: [Int], context: PersistentModels.ManagedObjectContext?
            ) {
                _$instanceLink.attach(object, slots: slots, context: context, instance: self)
            }
            """,
            """
            /// An instance standing for a fetched object, with no backing data until one is needed (used by contexts, not by applications).
            \(raw: access)required init(
                _persistentObject object: PersistentModels.ManagedObject, schema: PersistentModels.ModelEntitySchema, slots: [Int],
                context: PersistentModels.ManagedObjectContext?
            ) {
                \(raw: markers)
                // A property's initial value, written as the instance was initialised, went to a
                // backing data of a new object: the values are the object's.
                self._$backingDataStorage = nil
                self._$instanceLink.attach(object, slots: slots, context: context, instance: self)
            }
            """,
            """
            /// The object's backing data: its values before it is inserted, its managed object after.
            \(raw: access)var persistentBackingData: PersistentModels.ModelBackingData { _$backingData }
            """,
            """
            /// The entity derived from the class's stored properties.
            \(raw: access)static let persistentEntitySchema = PersistentModels.ModelEntitySchema(
                className: \(raw: literal(className)),
                properties: [
            \(raw: schemaEntries)
                ]\(raw: schemaExtras))
            """,
            """
            /// An instance standing for an object read from a store (used by contexts, not by applications).
            \(raw: access)required init(backingData: PersistentModels.ModelBackingData) {
                \(raw: markers)
                self._$backingDataStorage = backingData
            }
            """,
            """
            /// The name of the persisted property a key path of this class reaches; nil for any other key path.
            \(raw: access)static func persistentPropertyName(for keyPath: AnyKeyPath) -> String? {
                switch keyPath {
                \(raw: keyPathCases)
                default: return nil
                }
            }
            """,
        ]
    }

    /// The `ModelPropertySchema` expression of a property.
    private static func schemaEntry(_ property: ModelProperty, className: String) -> String {
        let name = literal(property.name)
        var arguments: [String]
        switch property.kind {
        case .attribute(_, let attributeType, let optional):
            arguments = [name, ".\(attributeType)", "optional: \(optional)"]
            if let value = property.defaultLiteral { arguments.append("defaultValue: \(value).storeValue") }
            if property.isUnique { arguments.append("unique: true") }
            if property.usesExternalStorage { arguments.append("externalStorage: true") }
            if property.isEphemeral { arguments.append("ephemeral: true") }
            if let originalName = property.originalName { arguments.append("originalName: \(originalName)") }
            if let hashModifier = property.hashModifier { arguments.append("hashModifier: \(hashModifier)") }
            return "        .attribute(\(arguments.joined(separator: ", ")))"
        case .toOne(let destination), .toMany(let destination, _):
            let isToMany: Bool
            if case .toMany = property.kind { isToMany = true } else { isToMany = false }
            arguments = [name, "to: \(destination).self", "toMany: \(isToMany)", "deleteRule: .\(property.deleteRule)"]
            if let inverse = property.inverse {
                arguments.append("inverse: \(literal(inverse.property))")
                arguments.append("inverseDeclaredOn: \(inverse.type).self")
            }
            if let minimum = property.minimumCount { arguments.append("minimumModelCount: \(minimum)") }
            if let maximum = property.maximumCount { arguments.append("maximumModelCount: \(maximum)") }
            if let originalName = property.originalName { arguments.append("originalName: \(originalName)") }
            if let hashModifier = property.hashModifier { arguments.append("hashModifier: \(hashModifier)") }
            return "        .relationship(\(arguments.joined(separator: ", ")))"
        case .resolved(let swiftType, let optional):
            arguments = [name, typeExpression(swiftType), "optional: \(optional)"]
            if let value = property.defaultConstant { arguments.append("defaultValue: \(value)") }
            arguments += attributeOptions(property)
            return "        .value(\(arguments.joined(separator: ", ")))"
        case .resolvedArray(let element, let optionalArray):
            arguments = [name, typeExpression(element), "optionalArray: \(optionalArray)"]
            if let value = property.defaultConstant { arguments.append("defaultValue: \(value)") }
            arguments += attributeOptions(property)
            return "        .elements(\(arguments.joined(separator: ", ")))"
        }
    }

    /// The `@Attribute` arguments of a property the compiler settles.
    private static func attributeOptions(_ property: ModelProperty) -> [String] {
        var arguments: [String] = []
        if property.isUnique { arguments.append("unique: true") }
        if property.usesExternalStorage { arguments.append("externalStorage: true") }
        if property.isEphemeral { arguments.append("ephemeral: true") }
        if let originalName = property.originalName { arguments.append("originalName: \(originalName)") }
        if let hashModifier = property.hashModifier { arguments.append("hashModifier: \(hashModifier)") }
        if property.attributeOnly { arguments.append("attributeOnly: true") }
        return arguments
    }

    /// The metatype expression of a type as written (`Status.self`, `(String?).self`).
    static func typeExpression(_ swiftType: String) -> String {
        swiftType.hasSuffix("?") ? "(\(swiftType)).self" : "\(swiftType).self"
    }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            default: escaped.append(character)
            }
        }
        return "\"" + escaped + "\""
    }

    // MARK: Member attributes

    static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        guard declaration.is(ClassDeclSyntax.self), let variable = member.as(VariableDeclSyntax.self),
            case .persistent(let property) = ModelProperty.analyze(variable),
            !ModelProperty.hasAttribute(variable, named: "_PersistedProperty")
        else { return [] }
        let index = ModelProperty.persistentProperties(of: declaration.memberBlock.members)
            .firstIndex { $0.name == property.name } ?? 0
        return ["@_PersistedProperty(\(raw: index))"]
    }

    // MARK: Conformance

    static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol, conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ClassDeclSyntax.self), !protocols.isEmpty else { return [] }
        let conformances = protocols.map { protocolType -> String in
            switch protocolType.trimmedDescription {
            case "PersistentModel", "PersistentModels.PersistentModel": return "PersistentModels.PersistentModel"
            case "Observable", "Observation.Observable": return "Observation.Observable"
            default: return protocolType.trimmedDescription
            }
        }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): \(raw: conformances.joined(separator: ", ")) {}")]
    }
}
