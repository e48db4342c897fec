import Foundation

/// Who is editing through a store (SwiftData's `EditingState`): each context has one, and
/// requests carry it.
public struct EditingState: Sendable, Hashable {
    /// A unique identifier of the editing context.
    public let id: UUID
    /// The author saves are recorded under; nil when none was set.
    public let author: String?

    /// An editing state for a context.
    public init(id: UUID = UUID(), author: String? = nil) {
        self.id = id
        self.author = author
    }
}
