import SwiftDiagnostics
import SwiftSyntax

/// A stored property of a `@Model` class as the macros read it from its syntax: what it maps
/// to (an attribute of a value type, a to-one or a to-many relationship) and the options its
/// `@Attribute` or `@Relationship` gives.
struct ModelProperty {
    /// What the property maps to.
    enum Kind {
        /// An attribute: the Swift type as written (without the optional), the framework's
        /// `AttributeType` case, and whether the Swift type is optional.
        case attribute(swiftType: String, attributeType: String, optional: Bool)
        /// A to-one relationship to a `@Model` class (the Swift type is `Destination?`).
        case toOne(destination: String)
        /// A to-many relationship (`[Destination]`, or `[Destination]?` when `optionalArray`).
        case toMany(destination: String, optionalArray: Bool)
    }

    /// The property name (without backticks).
    let name: String
    /// The property's identifier as written.
    let identifier: TokenSyntax
    let kind: Kind
    /// A literal initial value of an attribute, as Swift source (it becomes the model's default
    /// value); nil when there is none or it is not a literal.
    var defaultLiteral: String?

    // @Attribute
    var isUnique = false
    var usesExternalStorage = false
    var isEphemeral = false
    var originalName: String?
    var hashModifier: String?

    // @Relationship
    var deleteRule = "nullify"
    /// The inverse named by `inverse: \Destination.property`: the type as written and the property.
    var inverse: (type: String, property: String)?
    var minimumCount: String?
    var maximumCount: String?

    /// The Swift value types an attribute can have, with the attribute type each maps to.
    static let attributeTypes: [String: String] = [
        "String": "string", "Bool": "boolean",
        "Int": "integer64", "Int64": "integer64", "UInt": "integer64", "UInt64": "integer64", "UInt32": "integer64",
        "Int32": "integer32", "UInt16": "integer32",
        "Int16": "integer16", "Int8": "integer16", "UInt8": "integer16",
        "Double": "double", "Float": "float", "Decimal": "decimal",
        "Date": "date", "Data": "binaryData", "UUID": "uuid", "URL": "uri",
    ]

    /// How a variable declaration of a `@Model` class is treated.
    enum Analysis {
        /// A persisted property.
        case persistent(ModelProperty)
        /// Not persisted and not checked: static, computed, `@Transient`, or made by a macro.
        case skipped
        /// Not supported: the diagnostics say why.
        case invalid([Diagnostic])
    }

    /// Reads a member of a `@Model` class.
    static func analyze(_ variable: VariableDeclSyntax) -> Analysis {
        if variable.modifiers.contains(where: {
            [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind)
        }) {
            return .skipped
        }
        if hasAttribute(variable, named: "Transient") {
            for binding in variable.bindings where binding.initializer == nil && binding.accessorBlock == nil {
                return .invalid([
                    Diagnostic(
                        node: Syntax(binding),
                        message: ModelDiagnostic(
                            message: "@Transient property '\(binding.pattern.trimmedDescription)' needs an initial value "
                                + "(objects read from a store are made without the class's initializers)",
                            id: "transientWithoutValue")),
                ])
            }
            return .skipped
        }
        guard variable.bindings.count == 1, let binding = variable.bindings.first else {
            return .invalid([
                Diagnostic(
                    node: Syntax(variable),
                    message: ModelDiagnostic(
                        message: "declare one stored property per 'var' in a @Model class", id: "multipleBindings")),
            ])
        }
        guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else { return .skipped }
        if pattern.identifier.text.hasPrefix("_$") { return .skipped }
        if let accessors = binding.accessorBlock {
            switch accessors.accessors {
            case .getter:
                return .skipped
            case .accessors(let list):
                let kinds = list.map(\.accessorSpecifier.tokenKind)
                if kinds.contains(.keyword(.willSet)) || kinds.contains(.keyword(.didSet)) {
                    return .invalid([
                        Diagnostic(
                            node: Syntax(accessors),
                            message: ModelDiagnostic(
                                message: "property observers (willSet/didSet) are not supported on the persisted "
                                    + "property '\(pattern.identifier.text)'; mark it @Transient or move the logic to a method",
                                id: "observers")),
                    ])
                }
                return .skipped
            }
        }
        if variable.bindingSpecifier.tokenKind == .keyword(.let) {
            return .invalid([
                Diagnostic(
                    node: Syntax(variable.bindingSpecifier),
                    message: ModelDiagnostic(
                        message: "persisted property '\(pattern.identifier.text)' must be a 'var' (a @Model object's "
                            + "values are read from and written to its store)", id: "letProperty"),
                    fixIts: [
                        FixIt(
                            message: ModelFixIt(message: "replace 'let' with 'var'", id: "letToVar"),
                            changes: [
                                .replace(
                                    oldNode: Syntax(variable.bindingSpecifier),
                                    newNode: Syntax(variable.bindingSpecifier.with(\.tokenKind, .keyword(.var)))),
                            ]),
                    ]),
            ])
        }
        if variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }) {
            return .invalid([
                Diagnostic(
                    node: Syntax(variable),
                    message: ModelDiagnostic(
                        message: "'lazy' is not supported on the persisted property '\(pattern.identifier.text)'; "
                            + "mark it @Transient", id: "lazyProperty")),
            ])
        }
        guard let type = binding.typeAnnotation?.type else {
            return .invalid([missingType(binding, name: pattern.identifier.text)])
        }
        let name = pattern.identifier.text.trimmingBackticks
        let kind: Kind
        switch classify(type) {
        case .kind(let classified): kind = classified
        case .rejected(let diagnostic): return .invalid([diagnostic])
        }
        var property = ModelProperty(name: name, identifier: pattern.identifier.trimmed, kind: kind)
        if case .attribute(let swiftType, _, _) = kind, let value = binding.initializer?.value,
            let literal = literalText(value)
        {
            property.defaultLiteral = "(\(literal) as \(swiftType))"
        }
        var diagnostics: [Diagnostic] = []
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            switch attribute.attributeName.trimmedDescription {
            case "Attribute", "PersistentModels.Attribute":
                if case .attribute = kind {
                    property.readAttributeOptions(attribute, diagnostics: &diagnostics)
                } else {
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(attribute),
                            message: ModelDiagnostic(
                                message: "@Attribute applies to attributes; '\(name)' is a relationship (use @Relationship)",
                                id: "attributeOnRelationship")))
                }
            case "Relationship", "PersistentModels.Relationship":
                if case .attribute = kind {
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(attribute),
                            message: ModelDiagnostic(
                                message: "@Relationship applies to properties whose type is a @Model class, an optional "
                                    + "of one or an array of one; '\(name)' is an attribute", id: "relationshipOnAttribute")))
                } else {
                    property.readRelationshipOptions(attribute, diagnostics: &diagnostics)
                }
            default:
                break
            }
        }
        return diagnostics.isEmpty ? .persistent(property) : .invalid(diagnostics)
    }

    /// The persisted properties of a class body, in declaration order.
    static func persistentProperties(of members: MemberBlockItemListSyntax) -> [ModelProperty] {
        members.compactMap { member in
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                case .persistent(let property) = analyze(variable)
            else { return nil }
            return property
        }
    }

    // MARK: Types

    /// What a type maps to, or why it cannot be persisted.
    enum Classification {
        case kind(Kind)
        case rejected(Diagnostic)
    }

    /// What a property's type maps to, or the diagnostic for a type that is not supported.
    static func classify(_ type: TypeSyntax) -> Classification {
        if let optional = type.as(OptionalTypeSyntax.self) {
            return classifyOptional(wrapped: optional.wrappedType, whole: type)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let argument = identifier.genericArgumentClause?.arguments.first,
            identifier.genericArgumentClause?.arguments.count == 1,
            case .type(let wrapped) = argument.argument
        {
            return classifyOptional(wrapped: wrapped, whole: type)
        }
        if let iuo = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return .rejected(
                Diagnostic(
                    node: Syntax(type),
                    message: ModelDiagnostic(
                        message: "implicitly unwrapped optionals are not supported in a @Model class; use an optional",
                        id: "implicitlyUnwrapped"),
                    fixIts: [
                        FixIt(
                            message: ModelFixIt(message: "use '\(iuo.wrappedType.trimmedDescription)?'", id: "useOptional"),
                            changes: [
                                .replace(
                                    oldNode: Syntax(type),
                                    newNode: Syntax(OptionalTypeSyntax(wrappedType: iuo.wrappedType.trimmed))),
                            ]),
                    ]))
        }
        if let element = arrayElement(of: type) { return classifyArray(of: element, whole: type, optionalArray: false) }
        switch valueTypeName(of: type) {
        case .some(let name) where attributeTypes[name] != nil:
            return .kind(.attribute(swiftType: type.trimmedDescription, attributeType: attributeTypes[name] ?? "", optional: false))
        case .some(let name):
            return .rejected(
                Diagnostic(
                    node: Syntax(type),
                    message: ModelDiagnostic(
                        message: "'\(name)' is not a supported attribute type of a @Model class (supported: "
                            + attributeTypes.keys.sorted().joined(separator: ", ")
                            + ", optionals of each); a relationship to a @Model class is optional ('\(name)?') or an array ('[\(name)]')",
                        id: "unsupportedType"),
                    fixIts: [
                        FixIt(
                            message: ModelFixIt(message: "make it an optional to-one relationship '\(name)?'", id: "makeOptional"),
                            changes: [
                                .replace(oldNode: Syntax(type), newNode: Syntax(OptionalTypeSyntax(wrappedType: type.trimmed))),
                            ]),
                    ]))
        case .none:
            return .rejected(unsupported(type, because: "it is not a named type"))
        }
    }

    private static func classifyOptional(wrapped: TypeSyntax, whole: TypeSyntax) -> Classification {
        if let element = arrayElement(of: wrapped) { return classifyArray(of: element, whole: whole, optionalArray: true) }
        switch valueTypeName(of: wrapped) {
        case .some(let name) where attributeTypes[name] != nil:
            return .kind(.attribute(swiftType: wrapped.trimmedDescription, attributeType: attributeTypes[name] ?? "", optional: true))
        case .some:
            return .kind(.toOne(destination: wrapped.trimmedDescription))
        case .none:
            return .rejected(unsupported(whole, because: "it is not a named type"))
        }
    }

    /// An array property (`whole`, optional or not) of `element`s: a to-many relationship when
    /// the elements are `@Model` classes.
    private static func classifyArray(of element: TypeSyntax, whole: TypeSyntax, optionalArray: Bool) -> Classification {
        switch valueTypeName(of: element) {
        case .some(let name) where attributeTypes[name] != nil:
            return .rejected(unsupported(whole, because: "arrays of \(name) are not supported yet"))
        case .some:
            return .kind(.toMany(destination: element.trimmedDescription, optionalArray: optionalArray))
        case .none:
            return .rejected(unsupported(whole, because: "its elements are not a @Model class"))
        }
    }

    /// The element type of `[T]` or `Array<T>`.
    private static func arrayElement(of type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) { return array.element }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Array",
            let arguments = identifier.genericArgumentClause?.arguments, arguments.count == 1,
            case .type(let element) = arguments.first?.argument
        {
            return element
        }
        return nil
    }

    /// The name of a plain named type (`Date`, `Foundation.Date`, `Outer.Trip`): the last
    /// component for the standard library and Foundation, the whole text otherwise; nil for a
    /// type that is not a plain name (generic, tuple, function, dictionary, ...).
    static func valueTypeName(of type: TypeSyntax) -> String? {
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            return identifier.name.text
        }
        if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil {
            let base = member.baseType.trimmedDescription
            if base == "Swift" || base == "Foundation" { return member.name.text }
            return valueTypeName(of: member.baseType) == nil ? nil : member.trimmedDescription
        }
        return nil
    }

    private static func unsupported(_ type: TypeSyntax, because reason: String) -> Diagnostic {
        Diagnostic(
            node: Syntax(type),
            message: ModelDiagnostic(
                message: "'\(type.trimmedDescription)' is not a supported type for a property of a @Model class: \(reason) "
                    + "(supported: attribute value types and their optionals, an optional @Model class, an array of a @Model class)",
                id: "unsupportedType"))
    }

    private static func missingType(_ binding: PatternBindingSyntax, name: String) -> Diagnostic {
        var fixIts: [FixIt] = []
        if let value = binding.initializer?.value, let inferred = literalType(value) {
            var annotated = binding
            annotated.pattern = binding.pattern.trimmed
            annotated.typeAnnotation = TypeAnnotationSyntax(
                colon: .colonToken(trailingTrivia: .space), type: IdentifierTypeSyntax(name: .identifier(inferred)),
                trailingTrivia: .space)
            fixIts.append(
                FixIt(
                    message: ModelFixIt(message: "add the type ': \(inferred)'", id: "addType"),
                    changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))]))
        }
        return Diagnostic(
            node: Syntax(binding),
            message: ModelDiagnostic(
                message: "persisted property '\(name)' needs an explicit type (the @Model macro reads the type to map it)",
                id: "missingType"),
            fixIts: fixIts)
    }

    /// The type Swift infers for a literal initial value.
    private static func literalType(_ value: ExprSyntax) -> String? {
        if value.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if value.is(FloatLiteralExprSyntax.self) { return "Double" }
        if value.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if value.is(StringLiteralExprSyntax.self) { return "String" }
        if let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            return literalType(prefix.expression)
        }
        return nil
    }

    /// The source of a literal initial value (number, negative number, boolean, string without
    /// interpolation); nil for any other expression (including `nil`).
    private static func literalText(_ value: ExprSyntax) -> String? {
        if value.is(IntegerLiteralExprSyntax.self) || value.is(FloatLiteralExprSyntax.self)
            || value.is(BooleanLiteralExprSyntax.self)
        {
            return value.trimmedDescription
        }
        if let string = value.as(StringLiteralExprSyntax.self),
            string.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) })
        {
            return string.trimmedDescription
        }
        if let prefix = value.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-",
            prefix.expression.is(IntegerLiteralExprSyntax.self) || prefix.expression.is(FloatLiteralExprSyntax.self)
        {
            return value.trimmedDescription
        }
        return nil
    }

    // MARK: Options

    static func hasAttribute(_ variable: VariableDeclSyntax, named name: String) -> Bool {
        variable.attributes.contains { element in
            guard case .attribute(let attribute) = element else { return false }
            let written = attribute.attributeName.trimmedDescription
            return written == name || written == "PersistentModels.\(name)"
        }
    }

    /// `@Attribute(.unique, .externalStorage, .ephemeral, originalName: "old", hashModifier: "x")`.
    mutating func readAttributeOptions(_ attribute: AttributeSyntax, diagnostics: inout [Diagnostic]) {
        guard let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) else { return }
        for argument in arguments {
            switch argument.label?.text {
            case nil:
                switch argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text {
                case "unique": isUnique = true
                case "externalStorage": usesExternalStorage = true
                case "ephemeral": isEphemeral = true
                default:
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(argument),
                            message: ModelDiagnostic(
                                message: "attribute option '\(argument.expression.trimmedDescription)' is not supported "
                                    + "(supported: .unique, .externalStorage, .ephemeral)", id: "attributeOption")))
                }
            case "originalName":
                originalName = Self.stringLiteral(argument.expression, label: "originalName", diagnostics: &diagnostics)
            case "hashModifier":
                hashModifier = Self.stringLiteral(argument.expression, label: "hashModifier", diagnostics: &diagnostics)
            default:
                break
            }
        }
    }

    /// `@Relationship(deleteRule: .cascade, minimumModelCount: 1, maximumModelCount: 5,
    /// originalName: "old", inverse: \Other.property, hashModifier: "x")`.
    mutating func readRelationshipOptions(_ attribute: AttributeSyntax, diagnostics: inout [Diagnostic]) {
        guard let arguments = attribute.arguments?.as(LabeledExprListSyntax.self) else { return }
        for argument in arguments {
            switch argument.label?.text {
            case "deleteRule":
                if let rule = argument.expression.as(MemberAccessExprSyntax.self)?.declName.baseName.text,
                    ["nullify", "cascade", "deny", "noAction"].contains(rule)
                {
                    deleteRule = rule
                } else {
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(argument.expression),
                            message: ModelDiagnostic(
                                message: "write the delete rule as .nullify, .cascade, .deny or .noAction", id: "deleteRule")))
                }
            case "inverse":
                if let keyPath = argument.expression.as(KeyPathExprSyntax.self), let root = keyPath.root,
                    keyPath.components.count == 1,
                    let component = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self)
                {
                    inverse = (root.trimmedDescription, component.declName.baseName.text.trimmingBackticks)
                } else {
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(argument.expression),
                            message: ModelDiagnostic(
                                message: "write the inverse as a key path to a property of the destination class, "
                                    + "like \\Destination.property", id: "inverseKeyPath")))
                }
            case "minimumModelCount":
                minimumCount = Self.integerLiteral(argument.expression, label: "minimumModelCount", diagnostics: &diagnostics)
            case "maximumModelCount":
                maximumCount = Self.integerLiteral(argument.expression, label: "maximumModelCount", diagnostics: &diagnostics)
            case "originalName":
                originalName = Self.stringLiteral(argument.expression, label: "originalName", diagnostics: &diagnostics)
            case "hashModifier":
                hashModifier = Self.stringLiteral(argument.expression, label: "hashModifier", diagnostics: &diagnostics)
            default:
                break
            }
        }
    }

    private static func stringLiteral(_ expression: ExprSyntax, label: String, diagnostics: inout [Diagnostic]) -> String? {
        if let string = expression.as(StringLiteralExprSyntax.self),
            string.segments.allSatisfy({ $0.is(StringSegmentSyntax.self) })
        {
            return string.trimmedDescription
        }
        if expression.is(NilLiteralExprSyntax.self) { return nil }
        diagnostics.append(
            Diagnostic(
                node: Syntax(expression),
                message: ModelDiagnostic(message: "\(label): takes a string literal", id: "stringLiteral")))
        return nil
    }

    private static func integerLiteral(_ expression: ExprSyntax, label: String, diagnostics: inout [Diagnostic]) -> String? {
        if expression.is(IntegerLiteralExprSyntax.self) { return expression.trimmedDescription }
        if expression.is(NilLiteralExprSyntax.self) { return nil }
        diagnostics.append(
            Diagnostic(
                node: Syntax(expression),
                message: ModelDiagnostic(message: "\(label): takes an integer literal", id: "integerLiteral")))
        return nil
    }
}

extension String {
    /// The identifier without the backticks that escape a keyword.
    var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
