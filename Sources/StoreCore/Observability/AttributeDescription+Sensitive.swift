import Foundation

extension AttributeDescription {
    /// The `userInfo` key that marks an attribute's values as sensitive (passwords, tokens,
    /// personal data): `"PersistentStores.sensitive"` with the value `"YES"` (or `"true"`, `"1"`).
    /// Values of sensitive attributes never appear in logs: a statement that reads or writes
    /// the attribute's column logs every bound value as `<redacted>`. In an Xcode model, add the
    /// key in the attribute's User Info.
    public static let sensitiveUserInfoKey = "PersistentStores.sensitive"

    /// Whether the attribute's values are kept out of logs (``sensitiveUserInfoKey``).
    public var isSensitive: Bool {
        get {
            switch userInfo[Self.sensitiveUserInfoKey]?.lowercased() {
            case "yes", "true", "1": return true
            default: return false
            }
        }
        set { userInfo[Self.sensitiveUserInfoKey] = newValue ? "YES" : nil }
    }
}
