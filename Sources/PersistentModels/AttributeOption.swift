/// An option of `@Attribute` (SwiftData's `Schema.Attribute.Option`).
public struct AttributeOption: Sendable, Hashable {
    private let name: String

    /// The attribute's value is unique among the entity's objects (a uniqueness constraint;
    /// a save that would store a duplicate fails, or merges by the context's merge policy).
    public static let unique = AttributeOption(name: "unique")
    /// Large binary data may be kept outside the store's rows where the store supports it.
    public static let externalStorage = AttributeOption(name: "externalStorage")
    /// The attribute is tracked in the object but never stored (a transient attribute).
    public static let ephemeral = AttributeOption(name: "ephemeral")
}
