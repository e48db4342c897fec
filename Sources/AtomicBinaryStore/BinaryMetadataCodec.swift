import Foundation
import StoreCore

/// The metadata section of a Binary store file: the metadata dictionary (the model's JSON
/// included, under `PersistentStores.ModelJSON`) as one tagged value, keys in sorted order so
/// that the same metadata always gives the same bytes.
///
/// Values use the tags of ``BinaryTag``: `string`, `int`, `double`, `false`/`true`, `date`,
/// `data`, `array` (count, values) and `dictionary` (count, then key string and value per
/// entry). Nesting deeper than ``maximumDepth`` is refused, so a hostile file cannot exhaust
/// the stack.
enum BinaryMetadataCodec {
    /// The deepest nesting of arrays and dictionaries read by default
    /// (``StoreLimits/maximumNestingDepthOption`` sets another).
    static let maximumDepth = StoreLimits.default.maximumNestingDepth

    /// The section's bytes for `metadata`.
    static func encode(_ metadata: StoreMetadata) -> [UInt8] {
        let writer = BinaryWriter(capacity: 4096)
        write(.dictionary(metadata), to: writer)
        return Array(writer.bytes)
    }

    private static func write(_ value: MetadataValue, to writer: BinaryWriter) {
        switch value {
        case .string(let v):
            writer.tag(.string)
            writer.string(v)
        case .int(let v):
            writer.tag(.int)
            writer.signedVarint(v)
        case .double(let v):
            writer.tag(.double)
            writer.double(v)
        case .bool(let v):
            writer.tag(v ? .true : .false)
        case .date(let v):
            writer.tag(.date)
            writer.double(v.timeIntervalSinceReferenceDate)
        case .data(let v):
            writer.tag(.data)
            writer.data(v)
        case .array(let items):
            writer.tag(.array)
            writer.varint(items.count)
            for item in items { write(item, to: writer) }
        case .dictionary(let entries):
            writer.tag(.dictionary)
            writer.varint(entries.count)
            for key in entries.keys.sorted() {
                writer.string(key)
                // key comes from entries.keys.
                write(entries[key] ?? .string(""), to: writer)
            }
        }
    }

    /// The metadata the section's bytes hold; the whole section must be one dictionary.
    static func decode(
        _ bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int = maximumDepth
    ) throws(BinaryReadFailure) -> StoreMetadata {
        var reader = BinaryReader(bytes)
        guard case .dictionary(let metadata) = try read(&reader, depth: 0, maximumDepth: maximumDepth, what: "the metadata") else {
            throw reader.failure("the metadata is not a dictionary", at: 0)
        }
        guard reader.isAtEnd else {
            throw reader.failure("\(reader.remaining) unexpected byte(s) after the metadata dictionary")
        }
        return metadata
    }

    private static func read(
        _ reader: inout BinaryReader, depth: Int, maximumDepth: Int, what: String
    ) throws(BinaryReadFailure) -> MetadataValue {
        let start = reader.position
        let tag = try reader.tag(what)
        switch tag {
        case .string: return .string(try reader.string(what))
        case .int: return .int(try reader.signedVarint(what))
        case .double: return .double(try reader.double(what))
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: try reader.double(what)))
        case .data: return .data(try reader.data(what))
        case .array, .dictionary:
            guard depth < maximumDepth else {
                throw reader.failure(
                    "\(what) nests deeper than \(maximumDepth) levels, the limit (option \(StoreLimits.maximumNestingDepthOption))",
                    at: start)
            }
            let count = try reader.count("the number of entries of \(what)")
            if tag == .array {
                var items: [MetadataValue] = []
                items.reserveCapacity(count)  // count <= the remaining bytes
                for index in 0..<count {
                    items.append(try read(&reader, depth: depth + 1, maximumDepth: maximumDepth, what: "item \(index) of \(what)"))
                }
                return .array(items)
            }
            var entries: [String: MetadataValue] = [:]
            entries.reserveCapacity(count)  // count <= the remaining bytes
            for _ in 0..<count {
                let keyStart = reader.position
                let key = try reader.string("a key of \(what)")
                let value = try read(&reader, depth: depth + 1, maximumDepth: maximumDepth, what: "metadata key \"\(key)\"")
                guard entries.updateValue(value, forKey: key) == nil else {
                    throw reader.failure("the key \"\(key)\" appears twice in \(what)", at: keyStart)
                }
            }
            return .dictionary(entries)
        case .null, .decimal, .uuid, .uri, .objectID, .toOne, .toMany:
            throw reader.failure("bad tag 0x\(String(tag.rawValue, radix: 16)) (\(tag.name)) for \(what): metadata holds no such values", at: start)
        }
    }
}
