/// Something a ``FetchPredicate`` can be evaluated on: it gives the value of a key as a scalar,
/// a to-one object, or a to-many collection of objects.
///
/// Three kinds of objects conform:
/// - store nodes, through ``GraphNode`` (a node plus the ``NodeGraph`` that resolves the object
///   IDs of its relationships, so `team.name` and `posts.title` work over an atomic store's cache
///   or the InMemory store's tables);
/// - dictionaries `[String: StoreValue]` (dictionary fetch results; a to-one held as an
///   `.objectID` compares with object constants but has no keys to follow);
/// - managed objects, by returning their attributes as ``PredicateKeyValue/value(_:)`` and
///   their relationships as related objects:
///
/// ```swift
/// extension ManagedObject: PredicateEvaluable {
///     public var predicateObjectID: ObjectID? { objectID }
///     public func predicateValue(forKey key: String) throws -> PredicateKeyValue {
///         if let relationship = entity.relationshipsByName[key] {
///             return relationship.isToMany
///                 ? .objects(try relatedObjects(forKey: key))      // [ManagedObject]
///                 : .object(try relatedObject(forKey: key))        // ManagedObject?
///         }
///         return .value(try value(forKey: key))                    // StoreValue, .null for nil
///     }
/// }
/// ```
///
/// Evaluation is synchronous and happens where the object lives, so conforming types need not
/// be `Sendable`.
public protocol PredicateEvaluable {
    /// The object's identity: what `SELF == %@`, `team == %@` and `ANY tags == %@` compare with
    /// an object-ID constant. Nil for values without identity (dictionaries).
    var predicateObjectID: ObjectID? { get }

    /// The value of a property: an attribute as ``PredicateKeyValue/value(_:)`` (`.null` for
    /// nil or an unknown key), a to-one as ``PredicateKeyValue/object(_:)``, a to-many as
    /// ``PredicateKeyValue/objects(_:)``.
    func predicateValue(forKey key: String) throws -> PredicateKeyValue
}

extension Dictionary: PredicateEvaluable where Key == String, Value == StoreValue {
    /// Nil: a dictionary has no identity.
    public var predicateObjectID: ObjectID? { nil }

    /// The value under `key` (`.null` when absent).
    public func predicateValue(forKey key: String) throws -> PredicateKeyValue { .value(self[key] ?? .null) }
}
