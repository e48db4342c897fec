/// A fetched property: a property whose value is the result of a fetch run against the
/// destination entity (Core Data's `NSFetchedPropertyDescription`).
///
/// The predicate is kept as its format string (`"author == $FETCH_SOURCE"`), exactly as the
/// model file wrote it; fetched properties are never stored, so they do not take part in the
/// entity version hash.
///
/// ```swift
/// Entity("Author") {
///     Attribute("name", .string)
///     FetchedPropertyDescription("recentBooks", entity: "Book", predicate: "author == $FETCH_SOURCE")
/// }
/// ```
public struct FetchedPropertyDescription: Sendable, Hashable, Codable {
    /// The property name.
    public var name: String
    /// The entity the fetch runs against.
    public var destinationEntityName: String
    /// The fetch's predicate as a format string (may use `$FETCH_SOURCE` and
    /// `$FETCHED_PROPERTY`); nil for every object of the destination entity.
    public var predicateFormat: String?
    /// Whether the property may be empty (Core Data's default: true).
    public var isOptional: Bool
    /// The name this property had in an earlier model version.
    public var renamingIdentifier: String?
    /// Changes the version hash without another change (kept for round-tripping; fetched
    /// properties do not take part in the hash).
    public var versionHashModifier: String?
    /// Free-form user info.
    public var userInfo: [String: String]

    /// Creates a fetched property description.
    public init(
        _ name: String, entity destination: String, predicate: String? = nil, optional: Bool = true,
        renamingIdentifier: String? = nil, versionHashModifier: String? = nil, userInfo: [String: String] = [:]
    ) {
        self.name = name
        self.destinationEntityName = destination
        self.predicateFormat = predicate
        self.isOptional = optional
        self.renamingIdentifier = renamingIdentifier
        self.versionHashModifier = versionHashModifier
        self.userInfo = userInfo
    }

    private enum CodingKeys: String, CodingKey {
        case name, destinationEntityName, predicateFormat, isOptional, renamingIdentifier, versionHashModifier, userInfo
    }

    /// Decodes a fetched property; keys other than the name and destination may be missing.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            try c.decode(String.self, forKey: .name),
            entity: try c.decode(String.self, forKey: .destinationEntityName),
            predicate: try c.decodeIfPresent(String.self, forKey: .predicateFormat),
            optional: try c.decodeIfPresent(Bool.self, forKey: .isOptional) ?? true,
            renamingIdentifier: try c.decodeIfPresent(String.self, forKey: .renamingIdentifier),
            versionHashModifier: try c.decodeIfPresent(String.self, forKey: .versionHashModifier),
            userInfo: try c.decodeIfPresent([String: String].self, forKey: .userInfo) ?? [:])
    }
}
