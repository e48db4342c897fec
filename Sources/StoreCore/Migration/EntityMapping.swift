import Foundation

/// How the objects of one source entity become objects of one destination entity: Core Data's
/// `NSEntityMapping` with its attribute value expressions and its `NSEntityMigrationPolicy`.
///
/// ```swift
/// var people = EntityMapping(source: "Person", destination: "Contact")
/// people.attributes["fullName"] = .expression { source in
///     guard case .string(let first)? = source.attributeValue(forKey: "first"),
///           case .string(let last)? = source.attributeValue(forKey: "last") else { return nil }
///     return .string("\(first) \(last)")
/// }
/// people.transform = { source, destination in
///     if destination.attributeValue(forKey: "fullName") == nil { destination.setValue("?", forAttribute: "fullName") }
/// }
/// ```
///
/// Destination properties not listed take the source property of the same name when there is
/// one (an attribute converted to the destination's type, a relationship with its destinations
/// mapped), otherwise the attribute's default value, or nil.
public struct EntityMapping: Sendable {
    /// Where one destination attribute's value comes from.
    public enum AttributeSource: Sendable {
        /// The value of a source attribute, converted to the destination attribute's type.
        case attribute(String)
        /// A constant.
        case constant(StoreValue)
        /// A value computed from the source object (Core Data's value expression).
        case expression(@Sendable (StoreNode) throws -> StoreValue?)
        /// The destination attribute's default value (nil when it has none).
        case defaultValue
    }

    /// The source entity whose objects are migrated (its own objects, not its sub-entities').
    public var sourceEntityName: String
    /// The entity the objects become.
    public var destinationEntityName: String
    /// Destination attribute → where its value comes from; unlisted attributes take the source
    /// attribute of the same name.
    public var attributes: [String: AttributeSource]
    /// Destination relationship → source relationship whose destinations it takes; unlisted
    /// relationships take the source relationship of the same name.
    public var relationships: [String: String]
    /// Runs for every migrated object after its values are mapped: the source object (IDs of
    /// the source store) and the destination object to change (Core Data's
    /// `createDestinationInstances(forSource:in:manager:)` of an entity migration policy). A
    /// thrown error stops the migration and leaves the store as it was.
    public var transform: (@Sendable (_ source: StoreNode, _ destination: inout StoreNode) throws -> Void)?

    /// Creates a mapping from `source` to `destination` that copies properties by name.
    public init(
        source: String, destination: String, attributes: [String: AttributeSource] = [:], relationships: [String: String] = [:],
        transform: (@Sendable (_ source: StoreNode, _ destination: inout StoreNode) throws -> Void)? = nil
    ) {
        self.sourceEntityName = source
        self.destinationEntityName = destination
        self.attributes = attributes
        self.relationships = relationships
        self.transform = transform
    }
}
