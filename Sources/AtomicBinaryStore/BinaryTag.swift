/// The one-byte type tags that precede every value of a Binary store file: attribute values,
/// relationship values, reference objects and metadata values share one table
/// (`docs/binary-format.md` lists the bytes that follow each tag).
enum BinaryTag: UInt8 {
    /// No value: a nil attribute or a nil to-one. Nothing follows.
    case null = 0x00
    /// Boolean false. Nothing follows.
    case `false` = 0x01
    /// Boolean true. Nothing follows.
    case `true` = 0x02
    /// A signed integer: a zigzag varint.
    case int = 0x03
    /// A double: 8 bytes, the IEEE 754 bit pattern, little-endian.
    case double = 0x04
    /// A decimal number: a varint length and that many ASCII bytes (`Decimal`'s text, `NaN`).
    case decimal = 0x05
    /// A string: a varint length and that many bytes of UTF-8.
    case string = 0x06
    /// A date: 8 bytes, the bit pattern of a double counting seconds since 2001-01-01 UTC.
    case date = 0x07
    /// Bytes: a varint length and the bytes.
    case data = 0x08
    /// A UUID: its 16 bytes in order.
    case uuid = 0x09
    /// A URI: a varint length and its absolute string in UTF-8.
    case uri = 0x0A
    /// An object ID: a varint length and its URI representation in UTF-8.
    case objectID = 0x0B
    /// A to-one relationship: a varint node index.
    case toOne = 0x0C
    /// A to-many relationship: a varint count, then that many varint node indexes.
    case toMany = 0x0D
    /// A metadata array: a varint count, then that many tagged metadata values.
    case array = 0x0E
    /// A metadata dictionary: a varint count, then that many (string key, tagged value) pairs.
    case dictionary = 0x0F

    /// The tag's name, for error messages.
    var name: String {
        switch self {
        case .null: return "null"
        case .false: return "false"
        case .true: return "true"
        case .int: return "int"
        case .double: return "double"
        case .decimal: return "decimal"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .uuid: return "uuid"
        case .uri: return "uri"
        case .objectID: return "objectID"
        case .toOne: return "to-one"
        case .toMany: return "to-many"
        case .array: return "array"
        case .dictionary: return "dictionary"
        }
    }
}
