import Foundation
import PersistentModels

/// One `#Predicate` of the typed-model conformance cases with the string predicate
/// (docs/predicates.md) it must answer as, without its model class: for checks of the
/// translation itself (``translated()``) and of what a store makes of it.
public struct TypedPredicateCheck: Sendable, CustomStringConvertible {
    /// The string predicate the `#Predicate` answers as.
    public let format: String
    /// The entity the predicate is about.
    public let entityName: String
    /// Where the `#Predicate` is written, and its string predicate.
    public let source: String
    /// Whether the translation is written as ``format`` is (equal `FetchPredicate`s), not only
    /// answering as it (`??` and the ternary operator spell out both branches; decimal and
    /// date constants).
    public let isWrittenAlike: Bool
    private let translate: @Sendable () throws -> FetchPredicate?
    private let fetchIDs: @Sendable (ModelContext) throws -> [ObjectID]

    init<Model: PersistentModel>(_ typedCase: TypedPredicateCase<Model>) {
        format = typedCase.format
        entityName = Model.persistentEntitySchema.entityName
        source = typedCase.source
        isWrittenAlike = !PredicateCases.semanticOnly.contains(typedCase.format)
        let predicate = typedCase.predicate
        translate = { try FetchDescriptor(predicate: predicate).fetchRequest().predicate }
        fetchIDs = { context in try context.fetchIdentifiers(FetchDescriptor(predicate: predicate)).map(\.objectID) }
    }

    /// The framework's predicate the `#Predicate` translates into.
    public func translated() throws -> FetchPredicate? { try translate() }

    /// The IDs the `#Predicate` and its string predicate fetch in `context`.
    public func answers(in context: ModelContext) throws -> (typed: Set<ObjectID>, string: Set<ObjectID>) {
        let request = FetchRequest(entityName: entityName, predicate: try FetchPredicate(format: format))
        return (Set(try fetchIDs(context)), Set(try context.managedObjectContext.fetchObjectIDs(request)))
    }

    /// ``source``.
    public var description: String { source }
}
