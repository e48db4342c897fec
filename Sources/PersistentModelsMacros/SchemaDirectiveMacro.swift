import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `#Unique<T>(...)` and `#Index<T>(...)`: declarations inside a `@Model` class that `@Model`
/// reads from the class's syntax (``ModelSchemaDirective``); on their own they add nothing,
/// so written outside a class they are an error.
struct SchemaDirectiveMacro: DeclarationMacro {
    static func expansion(
        of node: some FreestandingMacroExpansionSyntax, in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if context.lexicalContext.first?.is(ClassDeclSyntax.self) != true {
            context.diagnose(
                Diagnostic(
                    node: Syntax(node),
                    message: ModelDiagnostic(
                        message: "#\(node.macroName.text) belongs inside a @Model class, where @Model reads it",
                        id: "directiveOutsideModel")))
        }
        return []
    }
}
