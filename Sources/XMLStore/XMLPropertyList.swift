import Foundation
import StoreCore

/// Store metadata as the XML property list Core Data embeds in `databaseInfo/metadata`
/// (`<plist version="1.0"><dict>…</dict></plist>`), written with ``XMLTextWriter`` and read from
/// the same ``XMLTextReader`` that reads the rest of the store — no second parser, no DOM.
///
/// Elements: `dict` (`key` + value pairs, keys sorted when written), `array`, `string`,
/// `integer`, `real` (shortest round-trip text; `+infinity`, `-infinity`, `nan`), `true`,
/// `false`, `date` (`2011-07-30T22:18:37Z`), `data` (base64). Two additions keep every value
/// exact where the plist format cannot: a date with a fractional second is written with the
/// fraction (`2011-07-30T22:18:37.125Z`), and a string or key holding characters XML 1.0 cannot
/// carry is written in base64 with `encoding="base64"`.
enum XMLPropertyList {
    /// Seconds from 1970-01-01 to 2001-01-01, Core Data's reference date.
    private static let referenceDateOffset: Int64 = 978_307_200

    // MARK: Writing

    /// Writes `<plist version="1.0">` with `metadata` as its dictionary, its start tag on the
    /// current line and its content indented from `level`.
    static func write(_ metadata: StoreMetadata, to writer: XMLTextWriter, level: Int) throws {
        try writer.startElement("plist")
        try writer.attribute("version", "1.0")
        try writer.newline(indent: level + 1)
        try write(.dictionary(metadata), key: "", to: writer, level: level + 1)
        try writer.newline(indent: level)
        try writer.fullEndElement()
    }

    private static func write(_ value: MetadataValue, key: String, to writer: XMLTextWriter, level: Int) throws {
        switch value {
        case .string(let text):
            try writeString("string", text, to: writer)
        case .int(let number):
            try element("integer", String(number), to: writer)
        case .double(let number):
            try element("real", realText(number), to: writer)
        case .bool(let flag):
            try writer.startElement(flag ? "true" : "false")
            try writer.endElement()
        case .date(let date):
            guard let text = dateText(date) else {
                throw StoreError(
                    .persistentStoreSave,
                    "Metadata key \(key) holds a date (\(date.timeIntervalSinceReferenceDate) seconds since 2001) that a property list cannot hold",
                    fileURL: writer.destination)
            }
            try element("date", text, to: writer)
        case .data(let bytes):
            try element("data", bytes.base64EncodedString(), to: writer)
        case .array(let items):
            try writer.startElement("array")
            guard !items.isEmpty else { return try writer.endElement() }
            for (index, item) in items.enumerated() {
                try writer.newline(indent: level + 1)
                try write(item, key: "\(key)[\(index)]", to: writer, level: level + 1)
            }
            try writer.newline(indent: level)
            try writer.fullEndElement()
        case .dictionary(let entries):
            try writer.startElement("dict")
            guard !entries.isEmpty else { return try writer.endElement() }
            for name in entries.keys.sorted() {
                guard let item = entries[name] else { continue }
                try writer.newline(indent: level + 1)
                try writeString("key", name, to: writer)
                try writer.newline(indent: level + 1)
                try write(item, key: key.isEmpty ? name : "\(key).\(name)", to: writer, level: level + 1)
            }
            try writer.newline(indent: level)
            try writer.fullEndElement()
        }
    }

    private static func element(_ name: String, _ text: String, to writer: XMLTextWriter) throws {
        try writer.startElement(name)
        try writer.text(text)
        try writer.fullEndElement()
    }

    private static func writeString(_ name: String, _ text: String, to writer: XMLTextWriter) throws {
        try writer.startElement(name)
        if XMLValueCodec.isXMLText(text) {
            try writer.text(text)
        } else {
            try writer.attribute("encoding", XMLValueCodec.base64Encoding)
            try writer.text(Data(text.utf8).base64EncodedString())
        }
        try writer.fullEndElement()
    }

    /// A `real`'s text: shortest round-trip form, Apple's spellings for infinities and NaN.
    static func realText(_ number: Double) -> String {
        if number.isNaN { return "nan" }
        if number.isInfinite { return number < 0 ? "-infinity" : "+infinity" }
        return number.description
    }

    /// `yyyy-MM-ddTHH:mm:ss[.fraction]Z` in UTC; nil for dates out of range.
    static func dateText(_ date: Date) -> String? {
        let seconds = date.timeIntervalSinceReferenceDate
        guard seconds.isFinite, abs(seconds) < 1e15 else { return nil }
        let whole = seconds.rounded(.down)
        let fraction = seconds - whole  // exact: the fractional bits of `seconds`
        let unix = Int64(whole) + referenceDateOffset
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        var text = year < 0 ? "-" : ""
        text += pad(abs(year), 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        text += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction > 0 {
            for digits in [3, 6, 9, 12, 17, 20, 30, 60, 340, 1100] {
                let fixed = XMLValueCodec.fixed(fraction, fractionDigits: digits)
                guard Double(fixed) == fraction, let point = fixed.firstIndex(of: ".") else { continue }
                var decimals = fixed[point...]
                while decimals.last == "0" { decimals = decimals.dropLast() }
                text += decimals
                break
            }
        }
        return text + "Z"
    }

    private static func pad(_ number: Int64, _ width: Int) -> String {
        let digits = String(number)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    // MARK: Reading

    /// Reads the `metadata` element the reader is on (to its end tag): its `plist` (or a bare
    /// `dict`); empty metadata gives an empty dictionary. `failure(line, message)` makes the
    /// error for malformed content; text or an entity reference where the format allows none
    /// throws ``XMLTextReader/UnexpectedContent``. Arrays and dictionaries may nest
    /// `maximumDepth` levels, the metadata dictionary included (``StoreLimits/maximumNestingDepth``).
    static func read(
        from reader: XMLTextReader, maximumDepth: Int = StoreLimits.default.maximumNestingDepth,
        failure: @escaping (Int, String) -> StoreError
    ) throws -> StoreMetadata {
        if reader.isEmptyElement { return [:] }
        let depth = reader.depth
        var metadata: StoreMetadata?
        while try reader.nextChildElement(parentDepth: depth) {
            guard metadata == nil else { throw failure(reader.line, "the metadata holds more than one property list") }
            var value: MetadataValue
            if reader.nameString == "plist" {
                let plistDepth = reader.depth
                guard !reader.isEmptyElement,
                    try reader.nextChildElement(parentDepth: plistDepth)
                else { throw failure(reader.line, "the metadata's <plist> is empty") }
                value = try readValue(from: reader, nesting: Nesting(top: reader.depth, maximum: maximumDepth), failure: failure)
                if try reader.nextChildElement(parentDepth: plistDepth) {
                    throw failure(reader.line, "the metadata's <plist> holds more than one value")
                }
            } else {
                value = try readValue(from: reader, nesting: Nesting(top: reader.depth, maximum: maximumDepth), failure: failure)
            }
            guard case .dictionary(let dictionary) = value else {
                throw failure(reader.line, "the metadata is not a dictionary")
            }
            metadata = dictionary
        }
        return metadata ?? [:]
    }

    /// The element depth of the metadata's top value and the most levels of arrays and
    /// dictionaries allowed below it.
    private struct Nesting {
        let top: Int
        let maximum: Int
    }

    /// Reads the value element the reader is on, to its end tag.
    private static func readValue(
        from reader: XMLTextReader, nesting: Nesting, failure: @escaping (Int, String) -> StoreError
    ) throws -> MetadataValue {
        let line = reader.line
        let name = reader.nameString
        let depth = reader.depth
        var buffer: [UInt8] = []
        func text() throws -> String {
            try reader.readText(into: &buffer)
            return String(decoding: buffer, as: UTF8.self)
        }
        func bad(_ what: String, _ text: String) -> StoreError {
            let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
            return failure(line, "the metadata's <\(name)> \"\(shown)\" is not \(what)")
        }
        if name == "dict" || name == "array", depth - nesting.top >= nesting.maximum {
            throw failure(
                line,
                "the metadata nests deeper than \(nesting.maximum) levels, the limit (option \(StoreLimits.maximumNestingDepthOption))")
        }
        switch name {
        case "dict":
            var entries: [String: MetadataValue] = [:]
            if reader.isEmptyElement { return .dictionary(entries) }
            while try reader.nextChildElement(parentDepth: depth) {
                guard reader.nameString == "key" else {
                    throw failure(reader.line, "the metadata's <dict> holds a <\(reader.nameString)> where a <key> belongs")
                }
                guard case .string(let key) = try readValue(from: reader, nesting: nesting, failure: failure) else {
                    throw failure(reader.line, "a metadata key is not text")
                }
                guard try reader.nextChildElement(parentDepth: depth) else {
                    throw failure(reader.line, "metadata key \"\(key)\" has no value")
                }
                entries[key] = try readValue(from: reader, nesting: nesting, failure: failure)
            }
            return .dictionary(entries)
        case "array":
            var items: [MetadataValue] = []
            if reader.isEmptyElement { return .array(items) }
            while try reader.nextChildElement(parentDepth: depth) {
                items.append(try readValue(from: reader, nesting: nesting, failure: failure))
            }
            return .array(items)
        case "string", "key":
            var isBase64 = false
            reader.forEachAttribute { attribute, value in
                if XMLTextReader.string(attribute) == "encoding", XMLTextReader.string(value) == XMLValueCodec.base64Encoding {
                    isBase64 = true
                }
            }
            let content = try text()
            guard isBase64 else { return .string(content) }
            guard let decoded = XMLValueCodec.base64(content).flatMap({ String(validating: $0, as: UTF8.self) }) else {
                throw bad("base64 of UTF-8 text", content)
            }
            return .string(decoded)
        case "integer":
            let content = try text()
            guard let number = Int64(XMLValueCodec.trimmed(content)) else { throw bad("a 64-bit integer", content) }
            return .int(number)
        case "real":
            let content = try text()
            let trimmed = XMLValueCodec.trimmed(content)
            switch trimmed.lowercased() {
            case "+infinity", "infinity", "+inf", "inf": return .double(.infinity)
            case "-infinity", "-inf": return .double(-.infinity)
            case "nan": return .double(.nan)
            default:
                guard let number = Double(trimmed) else { throw bad("a number", content) }
                return .double(number)
            }
        case "true", "false":
            let content = try text()
            guard XMLValueCodec.trimmed(content).isEmpty else { throw bad("empty", content) }
            return .bool(name == "true")
        case "date":
            let content = try text()
            guard let date = parseDate(XMLValueCodec.trimmed(content)) else { throw bad("a date (yyyy-MM-ddTHH:mm:ssZ)", content) }
            return .date(date)
        case "data":
            let content = try text()
            guard let data = XMLValueCodec.base64(content) else { throw bad("base64", content) }
            return .data(data)
        default:
            throw failure(line, "the metadata holds <\(name)>, which is not a property-list element")
        }
    }

    /// Parses `[-]yyyy-MM-ddTHH:mm:ss[.fraction]Z`.
    static func parseDate(_ text: Substring) -> Date? {
        var bytes = Array(text.utf8)[...]
        var negative = false
        if bytes.first == UInt8(ascii: "-") {
            negative = true
            bytes = bytes.dropFirst()
        }
        func number(_ count: Int?) -> Int64? {
            var digits = 0
            var value: Int64 = 0
            while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte), digits < (count ?? 12) {
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                digits += 1
                bytes = bytes.dropFirst()
            }
            if let count { return digits == count ? value : nil }
            return digits >= 4 ? value : nil
        }
        func expect(_ character: Character) -> Bool {
            guard let ascii = character.asciiValue, bytes.first == ascii else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let rawYear = number(nil), expect("-"), let month = number(2), expect("-"), let day = number(2), expect("T"),
            let hour = number(2), expect(":"), let minute = number(2), expect(":"), let second = number(2),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            var digits = "0."
            while let byte = bytes.first, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                digits.unicodeScalars.append(Unicode.Scalar(byte))
                bytes = bytes.dropFirst()
            }
            guard digits.count > 2, let value = Double(digits) else { return nil }
            fraction = value
        }
        guard expect("Z"), bytes.isEmpty else { return nil }
        let year = negative ? -rawYear : rawYear
        let days = days(fromCivil: year, month, day)
        let whole = days * 86_400 + hour * 3600 + minute * 60 + second - referenceDateOffset
        return Date(timeIntervalSinceReferenceDate: Double(whole) + fraction)
    }

    // MARK: Calendar (proleptic Gregorian, UTC)

    /// Days since 1970-01-01 of a civil date.
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01.
    private static func civil(fromDays count: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = count + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
