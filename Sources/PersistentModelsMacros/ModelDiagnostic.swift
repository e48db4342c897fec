import SwiftDiagnostics

/// A diagnostic of the `@Model` macros: what is wrong with a declaration, in the user's terms.
struct ModelDiagnostic: DiagnosticMessage, Error {
    let message: String
    let id: String
    var severity: DiagnosticSeverity = .error

    var diagnosticID: MessageID { MessageID(domain: "PersistentModels", id: id) }
}

/// The text of a fix-it the `@Model` macros offer.
struct ModelFixIt: FixItMessage {
    let message: String
    let id: String

    var fixItID: MessageID { MessageID(domain: "PersistentModels", id: id) }
}
