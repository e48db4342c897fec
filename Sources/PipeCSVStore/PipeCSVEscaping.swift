/// The PipeCSV escaping rules, on UTF-8 bytes.
///
/// The original format had no escaping, so a value holding `|`, `=`, `,` or a newline corrupted
/// its line. Here a backslash escapes the next byte: `\|`, `\=`, `\,`, `\\`; `\n` stands for a
/// newline and `\r` for a carriage return; any other escaped byte stands for itself (so `\(null)`
/// is the string "(null)", not nil). A file without backslashes — every file the original wrote
/// — reads exactly as before.
///
/// Everything works on bytes: the separators are ASCII, which never occurs inside a multi-byte
/// UTF-8 sequence, and splitting on `Character`s would glue a separator to a following
/// combining mark.
enum PipeCSVEscaping {
    static let fieldSeparator = UInt8(ascii: "|")
    static let keyValueSeparator = UInt8(ascii: "=")
    static let listSeparator = UInt8(ascii: ",")
    static let escape = UInt8(ascii: "\\")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    /// `(null)`: a nil attribute or to-one, an empty to-many.
    static let null: [UInt8] = Array("(null)".utf8)

    /// Appends `bytes` escaped to `buffer`. A value that is exactly `(null)` gets its first byte
    /// escaped so it does not read as nil.
    static func append<Bytes: Collection>(escaped bytes: Bytes, to buffer: inout [UInt8]) where Bytes.Element == UInt8 {
        if bytes.count == null.count, bytes.elementsEqual(null) { buffer.append(escape) }
        for byte in bytes {
            switch byte {
            case fieldSeparator, keyValueSeparator, listSeparator, escape:
                buffer.append(escape)
                buffer.append(byte)
            case newline:
                buffer.append(escape)
                buffer.append(UInt8(ascii: "n"))
            case carriageReturn:
                buffer.append(escape)
                buffer.append(UInt8(ascii: "r"))
            default:
                buffer.append(byte)
            }
        }
    }

    /// Appends a string escaped to `buffer`.
    static func append(escaped string: String, to buffer: inout [UInt8]) {
        var string = string
        string.withUTF8 { append(escaped: $0, to: &buffer) }
    }

    /// The bytes of `range` in `line` with escapes resolved. A backslash at the very end stands
    /// for itself (nothing follows it to escape).
    static func unescape(_ line: [UInt8], _ range: Range<Int>) -> [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(range.count)
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = line[index]
            index += 1
            guard byte == escape, index < range.upperBound else {
                result.append(byte)
                continue
            }
            let next = line[index]
            index += 1
            switch next {
            case UInt8(ascii: "n"): result.append(newline)
            case UInt8(ascii: "r"): result.append(carriageReturn)
            default: result.append(next)
            }
        }
        return result
    }

    /// The number of bytes ``unescape(_:_:)`` returns for `range` of `line`, counted without
    /// building them.
    static func unescapedCount(_ line: [UInt8], _ range: Range<Int>) -> Int {
        var count = 0
        var index = range.lowerBound
        while index < range.upperBound {
            // An escape and the byte after it stand for one byte; a final backslash for itself.
            index += line[index] == escape && index + 1 < range.upperBound ? 2 : 1
            count += 1
        }
        return count
    }

    /// Whether `range` of `line` contains a backslash (when not, the bytes are the value).
    static func hasEscapes(_ line: [UInt8], _ range: Range<Int>) -> Bool {
        line[range].contains(escape)
    }

    /// Splits `range` of `line` at every unescaped `separator`.
    static func split(_ line: [UInt8], _ range: Range<Int>, at separator: UInt8) -> [Range<Int>] {
        var parts: [Range<Int>] = []
        parts.reserveCapacity(8)
        var start = range.lowerBound
        line.withUnsafeBufferPointer { buffer in
            // Every read is below `end`, within the buffer whatever range a caller passes.
            let end = min(range.upperBound, buffer.count)
            var index = range.lowerBound
            while index < end {
                let byte = buffer[index]
                if byte == escape {
                    index += 2
                    continue
                }
                if byte == separator {
                    parts.append(start..<index)
                    start = index + 1
                }
                index += 1
            }
        }
        parts.append(start..<range.upperBound)
        return parts
    }

    /// The position of the first unescaped `separator` in `range` of `line`.
    static func firstUnescaped(_ separator: UInt8, in line: [UInt8], _ range: Range<Int>) -> Int? {
        var index = range.lowerBound
        while index < range.upperBound {
            let byte = line[index]
            if byte == escape {
                index += 2
                continue
            }
            if byte == separator { return index }
            index += 1
        }
        return nil
    }

    /// Whether `range` of `line` is exactly the unescaped `(null)`.
    static func isNull(_ line: [UInt8], _ range: Range<Int>) -> Bool {
        range.count == null.count && line[range].elementsEqual(null)
    }
}
