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
        /// A to-one relationship to a `@Model` class (the Swift type is `Destination?`, with
        /// `@Relationship`; without it the type is `.resolved`).
        case toOne(destination: String)
        /// A to-many relationship (`[Destination]`, or `[Destination]?` when `optionalArray`,
        /// with `@Relationship`; without it the type is `.resolvedArray`).
        case toMany(destination: String, optionalArray: Bool)
        /// A type the syntax does not settle (`Status`, `Status?`): the compiler picks the
        /// schema and accessors by its conformances — a `RawRepresentable` or `Codable`
        /// attribute, or (optional, without `@Attribute`) a to-one relationship.
        case resolved(swiftType: String, optional: Bool)
        /// An array the syntax does not settle (`[Tag]`, `[String]`): a to-many relationship
        /// when the elements are `@Model` classes, else a `Codable` attribute.
        case resolvedArray(element: String, optionalArray: Bool)
    }

    /// The property name (without backticks).
    let name: String
    /// The property's identifier as written.
    let identifier: TokenSyntax
    var kind: Kind
    /// A literal initial value of an attribute, as Swift source (it becomes the model's default
    /// value); nil when there is none or it is not a literal.
    var defaultLiteral: String?
    /// The initial value of a `.resolved` or `.resolvedArray` property when it is a constant
    /// (a literal, a case like `.planned`, an array or dictionary literal of those): the
    /// model's default value.
    var defaultConstant: String?
    /// The initial value of a property as written (any expression): what a non-optional
    /// `.resolved` property reads as when its stored value does not decode.
    var initialValue: String?
    /// Whether `@Attribute` marks a `.resolved` property as an attribute (never a relationship).
    var attributeOnly = false

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
        if let value = binding.initializer?.value {
            property.initialValue = value.trimmedDescription
            if isConstant(value) { property.defaultConstant = value.trimmedDescription }
        }
        var diagnostics: [Diagnostic] = []
        for element in variable.attributes {
            guard case .attribute(let attribute) = element else { continue }
            switch attribute.attributeName.trimmedDescription {
            case "Attribute", "PersistentModels.Attribute":
                switch kind {
                case .attribute:
                    property.readAttributeOptions(attribute, diagnostics: &diagnostics)
                case .resolved, .resolvedArray:
                    property.attributeOnly = true
                    property.readAttributeOptions(attribute, diagnostics: &diagnostics)
                case .toOne, .toMany:
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(attribute),
                            message: ModelDiagnostic(
                                message: "@Attribute applies to attributes; '\(name)' is a relationship (use @Relationship)",
                                id: "attributeOnRelationship")))
                }
            case "Relationship", "PersistentModels.Relationship":
                if case .resolved(let swiftType, false) = kind {
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(type),
                            message: ModelDiagnostic(
                                message: "a to-one relationship is optional: declare '\(name)' as '\(swiftType)?'",
                                id: "nonOptionalToOne"),
                            fixIts: [
                                FixIt(
                                    message: ModelFixIt(message: "make it an optional to-one relationship '\(swiftType)?'", id: "makeOptional"),
                                    changes: [
                                        .replace(oldNode: Syntax(type), newNode: Syntax(OptionalTypeSyntax(wrappedType: type.trimmed))),
                                    ]),
                            ]))
                } else if case .attribute = kind {
                    diagnostics.append(
                        Diagnostic(
                            node: Syntax(attribute),
                            message: ModelDiagnostic(
                                message: "@Relationship applies to properties whose type is a @Model class, an optional "
                                    + "of one or an array of one; '\(name)' is an attribute", id: "relationshipOnAttribute")))
                } else {
                    property.readRelationshipOptions(attribute, diagnostics: &diagnostics)
                    // @Relationship settles a type the syntax leaves open.
                    if case .resolved(let destination, true) = kind { property.kind = .toOne(destination: destination) }
                    if case .resolvedArray(let destination, let optionalArray) = kind {
                        property.kind = .toMany(destination: destination, optionalArray: optionalArray)
                    }
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
        if let name = valueTypeName(of: type), let attributeType = attributeTypes[name] {
            return .kind(.attribute(swiftType: type.trimmedDescription, attributeType: attributeType, optional: false))
        }
        if isValueSyntax(type) { return .kind(.resolved(swiftType: type.trimmedDescription, optional: false)) }
        return .rejected(unsupported(type, because: "it is not a named type"))
    }

    private static func classifyOptional(wrapped: TypeSyntax, whole: TypeSyntax) -> Classification {
        if let element = arrayElement(of: wrapped) { return classifyArray(of: element, whole: whole, optionalArray: true) }
        if let name = valueTypeName(of: wrapped), let attributeType = attributeTypes[name] {
            return .kind(.attribute(swiftType: wrapped.trimmedDescription, attributeType: attributeType, optional: true))
        }
        if !wrapped.is(OptionalTypeSyntax.self), isValueSyntax(wrapped) {
            return .kind(.resolved(swiftType: wrapped.trimmedDescription, optional: true))
        }
        return .rejected(unsupported(whole, because: "it is not a named type"))
    }

    /// An array property (`whole`, optional or not) of `element`s: a to-many relationship when
    /// the elements are `@Model` classes, a `Codable` attribute otherwise.
    private static func classifyArray(of element: TypeSyntax, whole: TypeSyntax, optionalArray: Bool) -> Classification {
        guard isValueSyntax(element) else {
            return .rejected(unsupported(whole, because: "its elements are not of a named type"))
        }
        return .kind(.resolvedArray(element: element.trimmedDescription, optionalArray: optionalArray))
    }

    /// Whether a type is written as a value the compiler can settle: a named type (generic
    /// arguments included), an array, a dictionary or an optional of those; not a function,
    /// a tuple, an existential, an opaque type, a metatype or an implicitly unwrapped optional.
    static func isValueSyntax(_ type: TypeSyntax) -> Bool {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return identifier.genericArgumentClause?.arguments.allSatisfy(isValueArgument) ?? true
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return isValueSyntax(member.baseType)
                && (member.genericArgumentClause?.arguments.allSatisfy(isValueArgument) ?? true)
        }
        if let array = type.as(ArrayTypeSyntax.self) { return isValueSyntax(array.element) }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return isValueSyntax(dictionary.key) && isValueSyntax(dictionary.value)
        }
        if let optional = type.as(OptionalTypeSyntax.self) { return isValueSyntax(optional.wrappedType) }
        return false
    }

    private static func isValueArgument(_ argument: GenericArgumentSyntax) -> Bool {
        if case .type(let type) = argument.argument { return isValueSyntax(type) }
        return false
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
                    + "(supported: attribute value types, RawRepresentable and Codable types, their optionals and arrays, "
                    + "an optional @Model class, an array of a @Model class)",
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

    /// Whether an initial value is a constant the model can keep as a default value: a literal,
    /// a case (`.planned`, `Status.planned`), or an array or dictionary literal of those.
    static func isConstant(_ value: ExprSyntax) -> Bool {
        if literalText(value) != nil { return true }
        if let member = value.as(MemberAccessExprSyntax.self), member.declName.argumentNames == nil {
            guard let base = member.base else { return true }
            return base.is(DeclReferenceExprSyntax.self) || base.as(MemberAccessExprSyntax.self).map { isConstant(ExprSyntax($0)) } == true
        }
        if let array = value.as(ArrayExprSyntax.self) { return array.elements.allSatisfy { isConstant($0.expression) } }
        if let dictionary = value.as(DictionaryExprSyntax.self) {
            switch dictionary.content {
            case .colon: return true
            case .elements(let elements): return elements.allSatisfy { isConstant($0.key) && isConstant($0.value) }
            }
        }
        return false
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
