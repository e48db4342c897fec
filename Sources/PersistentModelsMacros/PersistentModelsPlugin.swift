import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin of the PersistentModels macros.
@main
struct PersistentModelsPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        ModelMacro.self, PersistedPropertyMacro.self, PropertyMarkerMacro.self, ModelActorMacro.self,
        SchemaDirectiveMacro.self,
    ]
}
