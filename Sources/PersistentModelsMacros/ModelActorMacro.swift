import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ModelActor`: makes an actor a model actor. It adds the container and a context of the
/// actor's own (`modelContainer`, `modelContext`), an `init(modelContainer:)` that makes the
/// context, and the `ModelActor` conformance.
struct ModelActorMacro: MemberMacro, ExtensionMacro {
    static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let actorDecl = declaration.as(ActorDeclSyntax.self) else {
            context.diagnose(
                Diagnostic(
                    node: Syntax(node),
                    message: ModelDiagnostic(
                        message: "@ModelActor applies to actors (its context is isolated to the actor)", id: "notAnActor")))
            return []
        }
        let access = accessModifier(of: actorDecl.modifiers)
        return [
            """
            /// The container the actor's context works on.
            \(raw: access)nonisolated let modelContainer: PersistentModels.ModelContainer
            """,
            """
            /// The actor's own context, isolated to the actor.
            \(raw: access)let modelContext: PersistentModels.ModelContext
            """,
            """
            /// A model actor with a new context on `modelContainer`.
            \(raw: access)init(modelContainer: PersistentModels.ModelContainer) {
                self.modelContainer = modelContainer
                self.modelContext = PersistentModels.ModelContext(modelContainer)
            }
            """,
        ]
    }

    static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax, providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        guard declaration.is(ActorDeclSyntax.self) else { return [] }
        return [try ExtensionDeclSyntax("extension \(type.trimmed): PersistentModels.ModelActor {}")]
    }

    /// `public `, `package ` or nothing, as the actor is declared.
    private static func accessModifier(of modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }
}
