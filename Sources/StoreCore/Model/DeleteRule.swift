/// What deleting an object does to the objects a relationship points at (Core Data's
/// `NSDeleteRule`).
public enum DeleteRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Remove the deleted object from the destinations' inverse relationship.
    case nullify
    /// Delete the destinations too (transitively, cycle-safe).
    case cascade
    /// Refuse the delete at save (error 1600) while the relationship is not empty.
    case deny
    /// Do nothing: the destinations keep a dangling reference until the caller fixes it.
    case noAction
}
