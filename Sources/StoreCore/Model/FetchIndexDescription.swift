/// A fetch index of an entity (Core Data's `NSFetchIndexDescription`): the properties (or
/// expressions) a store may index together to answer fetches faster.
///
/// ```swift
/// Entity("Player", fetchIndexes: [
///     FetchIndexDescription("byName", elements: [.init(property: "lastName"), .init(property: "firstName")])
/// ]) { … }
/// ```
///
/// Indexes are a hint for stores; they never change what a fetch returns and do not take part
/// in the entity version hash.
public struct FetchIndexDescription: Sendable, Hashable, Codable {
    /// How an index element is organised.
    public enum CollationType: String, Sendable, Hashable, Codable, CaseIterable {
        /// An ordinary ordered index.
        case binary
        /// A spatial (R-tree) index.
        case rTree
    }

    /// One component of a fetch index: a property or an expression, and its order.
    public struct Element: Sendable, Hashable, Codable {
        /// The indexed property's name; nil for an expression element.
        public var propertyName: String?
        /// The indexed expression's format string, when the element is not a property.
        public var expression: String?
        /// Binary or R-tree.
        public var collationType: CollationType
        /// Ascending (default) or descending order.
        public var isAscending: Bool

        /// An element over a property.
        public init(property: String, collationType: CollationType = .binary, ascending: Bool = true) {
            self.propertyName = property
            self.expression = nil
            self.collationType = collationType
            self.isAscending = ascending
        }

        /// An element over an expression (kept as its format string).
        public init(expression: String, collationType: CollationType = .binary, ascending: Bool = true) {
            self.propertyName = nil
            self.expression = expression
            self.collationType = collationType
            self.isAscending = ascending
        }

        private enum CodingKeys: String, CodingKey { case propertyName, expression, collationType, isAscending }

        /// Decodes an element; the collation type and order may be missing.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.propertyName = try c.decodeIfPresent(String.self, forKey: .propertyName)
            self.expression = try c.decodeIfPresent(String.self, forKey: .expression)
            self.collationType = try c.decodeIfPresent(CollationType.self, forKey: .collationType) ?? .binary
            self.isAscending = try c.decodeIfPresent(Bool.self, forKey: .isAscending) ?? true
        }
    }

    /// The index name, unique in its entity.
    public var name: String
    /// The indexed components, in order.
    public var elements: [Element]
    /// A predicate (format string) restricting the index to some rows; nil for every row.
    public var partialIndexPredicateFormat: String?

    /// Creates a fetch index description.
    public init(_ name: String, elements: [Element], partialIndexPredicate: String? = nil) {
        self.name = name
        self.elements = elements
        self.partialIndexPredicateFormat = partialIndexPredicate
    }

    private enum CodingKeys: String, CodingKey { case name, elements, partialIndexPredicateFormat }

    /// Decodes a fetch index; the partial-index predicate may be missing.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.name = try c.decode(String.self, forKey: .name)
        self.elements = try c.decode([Element].self, forKey: .elements)
        self.partialIndexPredicateFormat = try c.decodeIfPresent(String.self, forKey: .partialIndexPredicateFormat)
    }
}
