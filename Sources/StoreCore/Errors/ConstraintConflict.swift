/// Objects that a save would leave with the same values for a uniqueness constraint (Core
/// Data's `NSConstraintConflict`), listed by a 133021 error
/// (``StoreError/constraintConflicts``).
///
/// ```swift
/// do { try context.save() } catch let error as StoreError where error.code == .managedObjectConstraintMerge {
///     for conflict in error.constraintConflicts { print(conflict.constraint, conflict.values, conflict.objectIDs) }
/// }
/// ```
public struct ConstraintConflict: Sendable, Hashable, CustomStringConvertible {
    /// The entity that declares the constraint (its sub-entities share it).
    public let entityName: String
    /// The constrained properties, as the model lists them.
    public let constraint: [String]
    /// The values the objects share, by property.
    public let values: [String: StoreValue]
    /// The objects being saved with these values.
    public let objectIDs: [ObjectID]
    /// The object already in a store with these values (Core Data's `databaseObject`); nil when
    /// the conflict is between objects being saved only.
    public let storedObjectID: ObjectID?

    /// Creates a conflict.
    public init(entityName: String, constraint: [String], values: [String: StoreValue], objectIDs: [ObjectID], storedObjectID: ObjectID?) {
        self.entityName = entityName
        self.constraint = constraint
        self.values = values
        self.objectIDs = objectIDs
        self.storedObjectID = storedObjectID
    }

    /// "Person (email = "a@b.c"): objects … and the stored object …".
    public var description: String {
        let shared = constraint.map { "\($0) = \(values[$0].map { "\($0)" } ?? "nil")" }.joined(separator: ", ")
        let saved = objectIDs.map { "\($0)" }.joined(separator: ", ")
        if let storedObjectID {
            return "\(entityName) (\(shared)): \(saved) and the stored object \(storedObjectID)"
        }
        return "\(entityName) (\(shared)): \(saved)"
    }
}
