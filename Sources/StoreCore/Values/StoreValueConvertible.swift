import Foundation

/// A Swift type that converts to and from ``StoreValue``; typed accessors on
/// ``ManagedObject`` use it (`object.value(forKey: "age", as: Int.self)`).
public protocol StoreValueConvertible: Sendable {
    /// The value as a ``StoreValue``.
    var storeValue: StoreValue { get }
    /// The Swift value for a ``StoreValue``, or nil when the case or range does not fit.
    init?(storeValue: StoreValue)
}

extension String: StoreValueConvertible {
    /// `.string(self)`.
    public var storeValue: StoreValue { .string(self) }
    /// The string of a `.string`.
    public init?(storeValue: StoreValue) {
        guard case .string(let v) = storeValue else { return nil }
        self = v
    }
}

extension Bool: StoreValueConvertible {
    /// `.bool(self)`.
    public var storeValue: StoreValue { .bool(self) }
    /// The boolean of a `.bool`, or of an `.int` 0 / 1.
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .bool(let v): self = v
        case .int(0): self = false
        case .int(1): self = true
        default: return nil
        }
    }
}

extension Int64: StoreValueConvertible {
    /// `.int(self)`.
    public var storeValue: StoreValue { .int(self) }
    /// The integer of an `.int`.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue else { return nil }
        self = v
    }
}

extension Int: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = Int(exactly: v) else { return nil }
        self = x
    }
}

extension Int32: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = Int32(exactly: v) else { return nil }
        self = x
    }
}

extension Int16: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = Int16(exactly: v) else { return nil }
        self = x
    }
}

extension Int8: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = Int8(exactly: v) else { return nil }
        self = x
    }
}

extension UInt8: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = UInt8(exactly: v) else { return nil }
        self = x
    }
}

extension UInt16: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = UInt16(exactly: v) else { return nil }
        self = x
    }
}

extension UInt32: StoreValueConvertible {
    /// `.int(Int64(self))`.
    public var storeValue: StoreValue { .int(Int64(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = UInt32(exactly: v) else { return nil }
        self = x
    }
}

extension UInt64: StoreValueConvertible {
    /// `.int` when the value fits an `Int64`; above `Int64.max`, a `.decimal` of it, which no
    /// integer attribute accepts (setting it fails with 1550 rather than storing another number).
    public var storeValue: StoreValue { Int64(exactly: self).map(StoreValue.int) ?? .decimal(Decimal(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = UInt64(exactly: v) else { return nil }
        self = x
    }
}

extension UInt: StoreValueConvertible {
    /// `.int` when the value fits an `Int64`; above `Int64.max`, a `.decimal` of it, which no
    /// integer attribute accepts (setting it fails with 1550 rather than storing another number).
    public var storeValue: StoreValue { Int64(exactly: self).map(StoreValue.int) ?? .decimal(Decimal(self)) }
    /// The integer of an `.int` that fits.
    public init?(storeValue: StoreValue) {
        guard case .int(let v) = storeValue, let x = UInt(exactly: v) else { return nil }
        self = x
    }
}

extension Double: StoreValueConvertible {
    /// `.double(self)`.
    public var storeValue: StoreValue { .double(self) }
    /// The number of a `.double`, or an `.int` that converts exactly.
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .double(let v): self = v
        case .int(let v): guard let x = Double(exactly: v) else { return nil }; self = x
        default: return nil
        }
    }
}

extension Float: StoreValueConvertible {
    /// `.double(Double(self))`.
    public var storeValue: StoreValue { .double(Double(self)) }
    /// The number of a `.double` (rounded to `Float`), or an `.int` that converts exactly.
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .double(let v): self = Float(v)
        case .int(let v): guard let x = Float(exactly: v) else { return nil }; self = x
        default: return nil
        }
    }
}

extension Decimal: StoreValueConvertible {
    /// `.decimal(self)`.
    public var storeValue: StoreValue { .decimal(self) }
    /// The number of a `.decimal` or `.int`.
    public init?(storeValue: StoreValue) {
        switch storeValue {
        case .decimal(let v): self = v
        case .int(let v): self = Decimal(v)
        default: return nil
        }
    }
}

extension Date: StoreValueConvertible {
    /// `.date(self)`.
    public var storeValue: StoreValue { .date(self) }
    /// The date of a `.date`.
    public init?(storeValue: StoreValue) {
        guard case .date(let v) = storeValue else { return nil }
        self = v
    }
}

extension Data: StoreValueConvertible {
    /// `.data(self)`.
    public var storeValue: StoreValue { .data(self) }
    /// The bytes of a `.data`.
    public init?(storeValue: StoreValue) {
        guard case .data(let v) = storeValue else { return nil }
        self = v
    }
}

extension UUID: StoreValueConvertible {
    /// `.uuid(self)`.
    public var storeValue: StoreValue { .uuid(self) }
    /// The UUID of a `.uuid`.
    public init?(storeValue: StoreValue) {
        guard case .uuid(let v) = storeValue else { return nil }
        self = v
    }
}

extension URL: StoreValueConvertible {
    /// `.uri(self)`.
    public var storeValue: StoreValue { .uri(self) }
    /// The URL of a `.uri`.
    public init?(storeValue: StoreValue) {
        guard case .uri(let v) = storeValue else { return nil }
        self = v
    }
}

extension ObjectID: StoreValueConvertible {
    /// `.objectID(self)`.
    public var storeValue: StoreValue { .objectID(self) }
    /// The ID of an `.objectID`.
    public init?(storeValue: StoreValue) {
        guard case .objectID(let v) = storeValue else { return nil }
        self = v
    }
}

extension StoreValue: StoreValueConvertible {
    /// The value itself.
    public var storeValue: StoreValue { self }
    /// The value itself.
    public init?(storeValue: StoreValue) { self = storeValue }
}
