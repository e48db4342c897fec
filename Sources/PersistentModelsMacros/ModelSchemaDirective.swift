import SwiftDiagnostics
import SwiftSyntax

/// The `#Unique<T>(...)` and `#Index<T>(...)` declarations of a `@Model` class, as `@Model`
/// reads them: each argument is an array of key paths `\.property` (or `\T.property`) naming
/// persisted properties of the class; each array is one uniqueness constraint or one fetch
/// index.
struct ModelSchemaDirective {
    /// The uniqueness constraints, each a list of property names, in declaration order.
    var unique: [[String]] = []
    /// The fetch indexes, each a list of property names, without repeats.
    var indexes: [[String]] = []
    /// What is wrong with them.
    var diagnostics: [Diagnostic] = []

    /// Reads the directives among a class's members.
    static func read(_ members: MemberBlockItemListSyntax, className: String, properties: [ModelProperty]) -> ModelSchemaDirective {
        var result = ModelSchemaDirective()
        for member in members {
            guard let directive = member.decl.as(MacroExpansionDeclSyntax.self) else { continue }
            let macro = directive.macroName.text
            guard macro == "Unique" || macro == "Index" else { continue }
            if let generic = directive.genericArgumentClause?.arguments.first,
                case .type(let type) = generic.argument, type.trimmedDescription != className,
                type.trimmedDescription != "Self"
            {
                result.diagnose(
                    Syntax(type), "#\(macro)<\(type.trimmedDescription)> in the @Model class \(className) names another type; "
                        + "write #\(macro)<\(className)>", id: "directiveType")
                continue
            }
            for argument in directive.arguments {
                guard let array = argument.expression.as(ArrayExprSyntax.self) else {
                    result.diagnose(
                        Syntax(argument.expression), "#\(macro) takes array literals of key paths, like [\\.name, \\.start]",
                        id: "directiveArray")
                    continue
                }
                var names: [String] = []
                for element in array.elements {
                    if let name = result.property(element.expression, macro: macro, className: className, properties: properties) {
                        names.append(name)
                    }
                }
                guard names.count == array.elements.count else { continue }
                if names.isEmpty {
                    result.diagnose(Syntax(array), "#\(macro) needs at least one key path in each array", id: "directiveEmpty")
                } else if macro == "Unique" {
                    result.unique.append(names)
                } else if !result.indexes.contains(names) {
                    result.indexes.append(names)
                }
            }
        }
        return result
    }

    /// The persisted property a key path names, or nil (with a diagnostic).
    private mutating func property(
        _ expression: ExprSyntax, macro: String, className: String, properties: [ModelProperty]
    ) -> String? {
        guard let keyPath = expression.as(KeyPathExprSyntax.self), keyPath.components.count == 1,
            let component = keyPath.components.first?.component.as(KeyPathPropertyComponentSyntax.self),
            keyPath.root == nil || keyPath.root?.trimmedDescription == className
        else {
            diagnose(
                Syntax(expression), "'\(expression.trimmedDescription)' is not a key path to a property of \(className) "
                    + "(write \\.property)", id: "directiveKeyPath")
            return nil
        }
        let name = component.declName.baseName.text.trimmingBackticks
        guard let property = properties.first(where: { $0.name == name }) else {
            diagnose(
                Syntax(expression), "'\(expression.trimmedDescription)' is not a persisted property of \(className); "
                    + "#\(macro) takes stored attributes (not computed or @Transient properties)", id: "directiveNotPersisted")
            return nil
        }
        var mayBeToMany = false
        switch property.kind {
        case .toMany: mayBeToMany = true
        case .resolvedArray(let element, _):
            mayBeToMany = !property.attributeOnly && ModelProperty.attributeTypes[element] == nil
        default: break
        }
        switch mayBeToMany {
        case true:
            diagnose(
                Syntax(expression), "'\(expression.trimmedDescription)' may be a to-many relationship; #\(macro) takes "
                    + "attributes and to-one relationships", id: "directiveToMany")
            return nil
        case false:
            return name
        }
    }

    private mutating func diagnose(_ node: Syntax, _ message: String, id: String) {
        diagnostics.append(Diagnostic(node: node, message: ModelDiagnostic(message: message, id: id)))
    }
}
