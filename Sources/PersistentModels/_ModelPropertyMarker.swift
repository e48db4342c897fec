/// The empty stored property `@Model` adds beside each persisted property, so that the
/// compiler checks the class's initializers set every persisted property (it holds nothing).
public struct _ModelPropertyMarker: Sendable {
    /// The marker.
    public init() {}
}
