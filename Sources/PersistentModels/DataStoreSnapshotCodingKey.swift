/// The keys a ``DefaultSnapshot`` encodes with (SwiftData's `DataStoreSnapshotCodingKey`): its
/// identifier, and each modeled property by name.
public enum DataStoreSnapshotCodingKey: CodingKey, Sendable, Hashable, CustomStringConvertible {
    /// The snapshot's identifier, `persistentIdentifier`.
    case persistentIdentifier
    /// A property of the model, by name.
    case modeledProperty(String)

    /// The key's text.
    public var stringValue: String {
        switch self {
        case .persistentIdentifier: "persistentIdentifier"
        case .modeledProperty(let name): name
        }
    }

    /// The key for a text; `persistentIdentifier` is the identifier, anything else a property.
    public init?(stringValue: String) {
        self = stringValue == "persistentIdentifier" ? .persistentIdentifier : .modeledProperty(stringValue)
    }

    /// Integer keys are not used.
    public var intValue: Int? { nil }

    /// Integer keys are not used: always nil.
    public init?(intValue: Int) { nil }

    /// The key's text.
    public var description: String { stringValue }
}
