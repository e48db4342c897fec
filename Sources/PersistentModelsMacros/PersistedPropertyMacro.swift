import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@_PersistedProperty(index)`, which `@Model` puts on each persisted property: turns the
/// stored property into accessors over the object's backing data, reading and writing the
/// property by its index in the entity schema (never by name), and adds the empty marker
/// property that lets the compiler check the class's initializers set it.
struct PersistedPropertyMacro: AccessorMacro, PeerMacro {
    static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            case .persistent(let property) = ModelProperty.analyze(variable),
            let index = index(of: node)
        else { return [] }
        let marker = "_$\(property.name)"
        // The initial value is written through `DATA`, the backing data the init accessor
        // makes when the object has none yet; an initial nil or empty relationship is not
        // written into an object that has no backing data yet (unset reads as nil and empty),
        // so the model instance a fetch makes for a stored object (`init(backingData:)`, in
        // which each initial value is written too) allocates nothing for it.
        let initialize: String
        var skipWhenNoData: String?
        let get: String
        let set: String
        switch property.kind {
        case .attribute(let swiftType, _, let optional):
            initialize = "DATA.setAttributeValue(initialValue, at: \(index))"
            if optional { skipWhenNoData = "initialValue == nil" }
            get = optional
                ? "_$backingData.optionalAttributeValue(at: \(index), as: \(swiftType).self)"
                : "_$backingData.attributeValue(at: \(index), as: \(swiftType).self)"
            set = "_$backingData.setAttributeValue(newValue, at: \(index))"
        case .toOne(let destination):
            initialize = "DATA.setToOne(initialValue, at: \(index))"
            skipWhenNoData = "initialValue == nil"
            get = "_$backingData.toOne(at: \(index), as: \(destination).self)"
            set = "_$backingData.setToOne(newValue, at: \(index))"
        case .toMany(let destination, let optionalArray):
            let suffix = optionalArray ? " ?? []" : ""
            initialize = "DATA.setToMany(initialValue\(suffix), at: \(index))"
            skipWhenNoData = optionalArray ? "(initialValue ?? []).isEmpty" : "initialValue.isEmpty"
            get = "_$backingData.toMany(at: \(index), as: \(destination).self)"
            set = "_$backingData.setToMany(newValue\(suffix), at: \(index))"
        case .resolved(let swiftType, let optional):
            // The compiler picks the overload by the type's conformances (ModelBackingData+Values).
            let type = ModelMacro.typeExpression(swiftType)
            initialize = "DATA.setValue(initialValue, at: \(index), as: \(type))"
            if optional { skipWhenNoData = "initialValue == nil" }
            set = "_$backingData.setValue(newValue, at: \(index), as: \(type))"
            if optional {
                get = "_$backingData.value(at: \(index), as: \(type))"
            } else if let fallback = property.initialValue ?? (swiftType.hasPrefix("[") ? "[:]" : nil) {
                get = "_$backingData.requiredValue(at: \(index), as: \(type), fallback: \(fallback))"
            } else {
                get = "_$backingData.requiredValue(at: \(index), as: \(type))"
            }
        case .resolvedArray(let element, let optionalArray):
            let type = ModelMacro.typeExpression(element)
            initialize = "DATA.setElements(initialValue, at: \(index), as: \(type))"
            get = "_$backingData.\(optionalArray ? "optionalElements" : "elements")(at: \(index), as: \(type))"
            set = "_$backingData.setElements(newValue, at: \(index), as: \(type))"
        }
        let data = "PersistentModels.ModelBackingData.made(in: &_$backingDataStorage, for: \(className(in: context)).self)"
        var write = initialize.replacing("DATA", with: data)
        if let skipWhenNoData {
            write = "if _$backingDataStorage != nil || !(\(skipWhenNoData)) {\n    \(write)\n}"
        }
        // Observation: reads and writes are reported to the class's registrar, as an
        // `@Observable` class's are, with the property's key path made once per class (a key
        // path literal in the accessor would be instantiated on every read).
        let keyPath = "\(className(in: context))._$keyPath_\(property.name)"
        // A read borrows the backing data when the object has one (every object but a new one
        // none of whose properties was set): `_$backingData` makes and stores one, and the
        // reference it returns is retained and released around every read.
        func read(_ data: String) -> String { data + get.dropFirst("_$backingData".count) }
        // An attribute of an instance linked to a managed object (every fetched one, which has no
        // backing data until something else needs one) is read through the link.
        var linkedRead = ""
        if case .attribute = property.kind {
            linkedRead = "if _$instanceLink.isLinked { return \(read("_$instanceLink")) }\n"
        }
        return [
            """
            @storageRestrictions(accesses: _$backingDataStorage, initializes: \(raw: marker))
            init(initialValue) {
                \(raw: write)
                \(raw: marker) = PersistentModels._ModelPropertyMarker()
            }
            """,
            """
            get {
                _$observationRegistrar.access(self, keyPath: \(raw: keyPath))
                \(raw: linkedRead)if let data = _$backingDataStorage { return \(raw: read("data")) }
                return \(raw: get)
            }
            """,
            """
            set {
                _$observationRegistrar.withMutation(of: self, keyPath: \(raw: keyPath)) {
                    \(raw: set)
                }
            }
            """,
        ]
    }

    static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let variable = declaration.as(VariableDeclSyntax.self),
            case .persistent(let property) = ModelProperty.analyze(variable)
        else { return [] }
        return [
            "private var _$\(raw: property.name): PersistentModels._ModelPropertyMarker",
            "private static let _$keyPath_\(raw: property.name) = \\\(raw: className(in: context)).\(property.identifier)",
        ]
    }

    /// The name of the class the property is declared in (`Self` where the macro is not told).
    private static func className(in context: some MacroExpansionContext) -> String {
        for node in context.lexicalContext {
            if let declaration = node.as(ClassDeclSyntax.self) { return declaration.name.trimmed.text }
        }
        return "Self"
    }

    /// The property index the attribute carries.
    private static func index(of node: AttributeSyntax) -> Int? {
        guard let argument = node.arguments?.as(LabeledExprListSyntax.self)?.first?.expression else { return nil }
        return Int(argument.trimmedDescription)
    }
}
