import Foundation

/// The type of an attribute, Core Data's `NSAttributeType` without the `NS`.
public enum AttributeType: String, Sendable, Hashable, Codable, CaseIterable {
    /// 16-bit integer, held as `.int`.
    case integer16
    /// 32-bit integer, held as `.int`.
    case integer32
    /// 64-bit integer, held as `.int`.
    case integer64
    /// Decimal number, held as `.decimal`.
    case decimal
    /// Double-precision float, held as `.double`.
    case double
    /// Single-precision float, held as `.double` rounded to `Float`.
    case float
    /// String, held as `.string`.
    case string
    /// Boolean, held as `.bool`.
    case boolean
    /// Date, held as `.date`.
    case date
    /// Binary data, held as `.data`.
    case binaryData
    /// UUID, held as `.uuid`.
    case uuid
    /// URI, held as `.uri`.
    case uri
    /// A transformed value, held as `.data` (the transformer's output).
    case transformable
    /// An object ID, held as `.objectID`.
    case objectID

    /// Whether values of this type are numbers (for range validation and arithmetic).
    public var isNumeric: Bool {
        switch self {
        case .integer16, .integer32, .integer64, .decimal, .double, .float: return true
        default: return false
        }
    }

    /// Whether ``coerce(_:)`` returns `value` itself (a non-nil value of this type, in range):
    /// a store binding a value can skip the coercion then.
    package func holdsAsIs(_ value: StoreValue) -> Bool {
        // A switch on the value alone, the type compared as a raw number: a switch on the pair
        // built a tuple holding a copy of the value (a retain and a release of a string's
        // storage per value bound).
        switch value {
        case .int(let v):
            switch self {
            case .integer16: return Int16(exactly: v) != nil
            case .integer32: return Int32(exactly: v) != nil
            case .integer64: return true
            default: return false
            }
        case .double: return self == .double
        case .decimal: return self == .decimal
        case .bool: return self == .boolean
        case .string: return self == .string
        case .date: return self == .date
        case .data: return self == .binaryData || self == .transformable
        case .uuid: return self == .uuid
        case .uri: return self == .uri
        case .objectID: return self == .objectID
        case .null: return false
        }
    }

    /// The value normalised for this type, or nil when it does not fit.
    ///
    /// Rules (never lossy, never a silent conversion between unrelated types): `.null` fits every
    /// type; integers must be `.int` within the type's range; `.double`/`.float` take `.double` or an
    /// exactly representable `.int` (a float is rounded to `Float` precision, as Core Data stores
    /// it); `.decimal` takes `.decimal` or `.int`; `.boolean` takes `.bool` or `.int` 0/1; the
    /// other types take only their own case (transformable takes `.data`).
    public func coerce(_ value: StoreValue) -> StoreValue? {
        if case .null = value { return .null }
        switch (self, value) {
        case (.integer16, .int(let v)): return Int16(exactly: v) != nil ? .some(value) : .none
        case (.integer32, .int(let v)): return Int32(exactly: v) != nil ? .some(value) : .none
        case (.integer64, .int): return value
        case (.double, .double): return value
        case (.double, .int(let v)): return Double(exactly: v).map(StoreValue.double)
        case (.float, .double(let v)): return .double(Double(Float(v)))
        case (.float, .int(let v)): return Float(exactly: v).map { .double(Double($0)) }
        case (.decimal, .decimal): return value
        case (.decimal, .int(let v)): return .decimal(Decimal(v))
        case (.boolean, .bool): return value
        case (.boolean, .int(let v)) where v == 0 || v == 1: return .bool(v == 1)
        case (.string, .string), (.date, .date), (.binaryData, .data), (.transformable, .data),
            (.uuid, .uuid), (.uri, .uri), (.objectID, .objectID):
            return value
        default: return nil
        }
    }
}
