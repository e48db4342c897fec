import Foundation

/// A Swift type a non-optional `@Model` attribute can have. Reading such a property when its
/// object holds no value (a fault whose row was deleted elsewhere, an object of a context that
/// went away) gives ``persistentFallbackValue`` rather than trapping.
public protocol PersistentAttributeValue: StoreValueConvertible {
    /// What a missing value reads as: zero, false, empty, the reference date, the nil UUID,
    /// the root file URL.
    static var persistentFallbackValue: Self { get }
}

extension String: PersistentAttributeValue {
    /// The empty string.
    public static var persistentFallbackValue: String { "" }
}

extension Bool: PersistentAttributeValue {
    /// false.
    public static var persistentFallbackValue: Bool { false }
}

extension Int: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Int { 0 }
}

extension Int8: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Int8 { 0 }
}

extension Int16: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Int16 { 0 }
}

extension Int32: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Int32 { 0 }
}

extension Int64: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Int64 { 0 }
}

extension UInt: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: UInt { 0 }
}

extension UInt8: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: UInt8 { 0 }
}

extension UInt16: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: UInt16 { 0 }
}

extension UInt32: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: UInt32 { 0 }
}

extension UInt64: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: UInt64 { 0 }
}

extension Double: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Double { 0 }
}

extension Float: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Float { 0 }
}

extension Decimal: PersistentAttributeValue {
    /// 0.
    public static var persistentFallbackValue: Decimal { 0 }
}

extension Date: PersistentAttributeValue {
    /// The reference date (2001-01-01 00:00:00 UTC).
    public static var persistentFallbackValue: Date { Date(timeIntervalSinceReferenceDate: 0) }
}

extension Data: PersistentAttributeValue {
    /// Empty data.
    public static var persistentFallbackValue: Data { Data() }
}

extension UUID: PersistentAttributeValue {
    /// The nil UUID (all zeros).
    public static var persistentFallbackValue: UUID {
        UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }
}

extension URL: PersistentAttributeValue {
    /// The root file URL.
    public static var persistentFallbackValue: URL { URL(fileURLWithPath: "/") }
}
