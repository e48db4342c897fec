/// Managed objects in predicates: as the object a predicate is evaluated on (pending changes,
/// in-memory filtering) and as a `%@` argument (it stands for its object ID).
///
/// ```swift
/// let crewMembers = try FetchPredicate(format: "team == %@", crew)
/// let unsaved = try crewMembers.evaluate(with: player)
/// ```
extension ManagedObject: PredicateEvaluable, PredicateArgument {
    /// The object's ID.
    public var predicateObjectID: ObjectID? { objectID }

    /// An attribute as its value, a to-one as the related object, a to-many as the related
    /// objects (loading a to-many fault; a fault that cannot be loaded throws).
    public func predicateValue(forKey key: String) throws -> PredicateKeyValue {
        if let relationship = model?.relationship(key, of: entity.name) {
            if relationship.isToMany { return .objects(try loadObjects(forKey: key)) }
            return .object(object(forKey: key))
        }
        return .value(value(forKey: key))
    }

    /// `.constant(.objectID(objectID))`.
    public var predicateExpression: FetchExpression { .constant(.objectID(objectID)) }
}
