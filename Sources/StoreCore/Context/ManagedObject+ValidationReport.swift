extension ManagedObject {
    /// Every validation failure the object would meet if it were saved as an update now: the
    /// model's rules for each property (required values, ranges, lengths, patterns, relationship
    /// counts) and the subclass hooks. Empty when it is valid. Used by tools that check a whole
    /// store without saving it.
    public func validationProblems() -> [StoreError] {
        validationErrors(for: .update)
    }
}
