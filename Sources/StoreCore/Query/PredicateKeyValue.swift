/// The value of one key of a ``PredicateEvaluable``.
public enum PredicateKeyValue {
    /// An attribute value (`.null` for nil).
    case value(StoreValue)
    /// A to-one relationship's destination (nil for none).
    case object((any PredicateEvaluable)?)
    /// A to-many relationship's destinations.
    case objects([any PredicateEvaluable])
}
