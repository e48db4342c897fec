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

extension AttributeOption {
    /// SwiftData's value-transformer option, which does not map here: Foundation on Linux has no
    /// `ValueTransformer`, so writing it is a compile-time error saying what to write instead (a
    /// `Codable` type, stored as JSON text, or `Data` with a computed property).
    @available(
        *, unavailable,
        message: "@Attribute(.transformable(by:)) needs Foundation's ValueTransformer, which Foundation on Linux does not have; make the property's type Codable (a composite attribute, stored as JSON text) or RawRepresentable, or keep its bytes in a Data property and convert in a computed property (docs/swift-models.md, Transformable attributes)"
    )
    public static func transformable(by transformerType: AnyClass) -> AttributeOption {
        AttributeOption(name: "transformable")
    }

    /// SwiftData's value-transformer option by transformer name, which does not map here (see
    /// the form taking the transformer's class).
    @available(
        *, unavailable,
        message: "@Attribute(.transformable(by:)) needs Foundation's ValueTransformer, which Foundation on Linux does not have; make the property's type Codable (a composite attribute, stored as JSON text) or RawRepresentable, or keep its bytes in a Data property and convert in a computed property (docs/swift-models.md, Transformable attributes)"
    )
    public static func transformable(by transformerName: String) -> AttributeOption {
        AttributeOption(name: "transformable")
    }
}
