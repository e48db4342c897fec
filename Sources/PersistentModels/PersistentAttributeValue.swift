import Foundation

/// A Swift type a non-optional `@Model` attribute can have. Reading such a property when its
/// object holds no value (a fault whose row was deleted elsewhere, an object of a context that
/// went away) gives ``persistentFallbackValue`` rather than trapping.
///
/// A `RawRepresentable` type whose raw value is one of these is stored as its raw value, in an
/// attribute of the raw value's ``persistentAttributeType``.
public protocol PersistentAttributeValue: StoreValueConvertible {
    /// What a missing value reads as: zero, false, empty, the reference date, the nil UUID,
    /// the root file URL.
    static var persistentFallbackValue: Self { get }
    /// The attribute type that holds values of this type (the mapping of
    /// docs/swift-models.md: `Int` is `integer64`, `Int16` is `integer16`, ...).
    static var persistentAttributeType: AttributeType { get }
}

extension String: PersistentAttributeValue {
    /// `.string`.
    public static var persistentAttributeType: AttributeType { .string }
    /// The empty string.
    public static var persistentFallbackValue: String { "" }
}

extension Bool: PersistentAttributeValue {
    /// `.boolean`.
    public static var persistentAttributeType: AttributeType { .boolean }
    /// false.
    public static var persistentFallbackValue: Bool { false }
}

extension Int: PersistentAttributeValue {
    /// `.integer64`.
    public static var persistentAttributeType: AttributeType { .integer64 }
    /// 0.
    public static var persistentFallbackValue: Int { 0 }
}

extension Int8: PersistentAttributeValue {
    /// `.integer16`.
    public static var persistentAttributeType: AttributeType { .integer16 }
    /// 0.
    public static var persistentFallbackValue: Int8 { 0 }
}

extension Int16: PersistentAttributeValue {
    /// `.integer16`.
    public static var persistentAttributeType: AttributeType { .integer16 }
    /// 0.
    public static var persistentFallbackValue: Int16 { 0 }
}

extension Int32: PersistentAttributeValue {
    /// `.integer32`.
    public static var persistentAttributeType: AttributeType { .integer32 }
    /// 0.
    public static var persistentFallbackValue: Int32 { 0 }
}

extension Int64: PersistentAttributeValue {
    /// `.integer64`.
    public static var persistentAttributeType: AttributeType { .integer64 }
    /// 0.
    public static var persistentFallbackValue: Int64 { 0 }
}

extension UInt: PersistentAttributeValue {
    /// `.integer64`.
    public static var persistentAttributeType: AttributeType { .integer64 }
    /// 0.
    public static var persistentFallbackValue: UInt { 0 }
}

extension UInt8: PersistentAttributeValue {
    /// `.integer16`.
    public static var persistentAttributeType: AttributeType { .integer16 }
    /// 0.
    public static var persistentFallbackValue: UInt8 { 0 }
}

extension UInt16: PersistentAttributeValue {
    /// `.integer32`.
    public static var persistentAttributeType: AttributeType { .integer32 }
    /// 0.
    public static var persistentFallbackValue: UInt16 { 0 }
}

extension UInt32: PersistentAttributeValue {
    /// `.integer64`.
    public static var persistentAttributeType: AttributeType { .integer64 }
    /// 0.
    public static var persistentFallbackValue: UInt32 { 0 }
}

extension UInt64: PersistentAttributeValue {
    /// `.integer64`.
    public static var persistentAttributeType: AttributeType { .integer64 }
    /// 0.
    public static var persistentFallbackValue: UInt64 { 0 }
}

extension Double: PersistentAttributeValue {
    /// `.double`.
    public static var persistentAttributeType: AttributeType { .double }
    /// 0.
    public static var persistentFallbackValue: Double { 0 }
}

extension Float: PersistentAttributeValue {
    /// `.float`.
    public static var persistentAttributeType: AttributeType { .float }
    /// 0.
    public static var persistentFallbackValue: Float { 0 }
}

extension Decimal: PersistentAttributeValue {
    /// `.decimal`.
    public static var persistentAttributeType: AttributeType { .decimal }
    /// 0.
    public static var persistentFallbackValue: Decimal { 0 }
}

extension Date: PersistentAttributeValue {
    /// `.date`.
    public static var persistentAttributeType: AttributeType { .date }
    /// The reference date (2001-01-01 00:00:00 UTC).
    public static var persistentFallbackValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

extension Data: PersistentAttributeValue {
    /// `.binaryData`.
    public static var persistentAttributeType: AttributeType { .binaryData }
    /// Empty data.
    public static var persistentFallbackValue: Data { Data() }
}

extension UUID: PersistentAttributeValue {
    /// `.uuid`.
    public static var persistentAttributeType: AttributeType { .uuid }
    /// The nil UUID (all zeros).
    public static var persistentFallbackValue: UUID {
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }
}

extension URL: PersistentAttributeValue {
    /// `.uri`.
    public static var persistentAttributeType: AttributeType { .uri }
    /// The root file URL.
    public static var persistentFallbackValue: URL { URL(fileURLWithPath: "/") }
}
