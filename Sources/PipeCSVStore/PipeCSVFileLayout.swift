import Foundation
import StoreCore

/// The frame of a PipeCSV file as this store writes it:
///
/// ```
/// #PipeCSV|format=1|metadata=<base64 of the metadata as a binary property list>
/// Entity|reference|attribute=value|…|toOne=reference|toMany=reference,reference
/// …
/// #PipeCSV-end|records=<number of record lines>|crc32=<CRC-32 of every byte before this line>
/// ```
///
/// The header makes the data file carry its own metadata, so the rename of the data file is the
/// one moment a save takes effect: the metadata sidecar (`X.plist`) is a copy written after it,
/// and when a crash lands between the two the header wins. The end line detects truncation and
/// corruption. Both lines start with `#`, which is no entity name, so the original format's
/// reader (which skips lines with an unknown entity) reads the records and ignores the frame.
enum PipeCSVFileLayout {
    /// The start of the header line.
    static let headerPrefix: [UInt8] = Array("#PipeCSV|".utf8)
    /// The start of the end line.
    static let trailerPrefix: [UInt8] = Array("#PipeCSV-end|".utf8)
    /// The version of the frame; a reader refuses a newer one.
    static let formatVersion = 1

    /// The header line (with its newline) for metadata serialised as a property list.
    static func headerLine(metadataPropertyList: Data) -> [UInt8] {
        var line: [UInt8] = headerPrefix
        line += Array("format=\(formatVersion)|metadata=".utf8)
        PipeCSVEscaping.append(escaped: metadataPropertyList.base64EncodedString(), to: &line)
        line.append(PipeCSVEscaping.newline)
        return line
    }

    /// The end line (with its newline).
    static func trailerLine(records: Int, checksum: CRC32) -> [UInt8] {
        Array("#PipeCSV-end|records=\(records)|crc32=\(checksum.hex)\n".utf8)
    }

    /// Whether `bytes` start with `prefix`.
    static func hasPrefix<Bytes: Collection>(_ bytes: Bytes, _ prefix: [UInt8]) -> Bool where Bytes.Element == UInt8 {
        bytes.count >= prefix.count && bytes.prefix(prefix.count).elementsEqual(prefix)
    }

    /// The `key=value` fields after the first field of a frame line, unescaped.
    static func fields(of line: [UInt8]) -> [String: String] {
        var result: [String: String] = [:]
        let parts = PipeCSVEscaping.split(line, 0..<line.count, at: PipeCSVEscaping.fieldSeparator)
        for part in parts.dropFirst() {
            guard let equals = PipeCSVEscaping.firstUnescaped(PipeCSVEscaping.keyValueSeparator, in: line, part) else { continue }
            let key = String(decoding: PipeCSVEscaping.unescape(line, part.lowerBound..<equals), as: UTF8.self)
            result[key] = String(decoding: PipeCSVEscaping.unescape(line, equals + 1..<part.upperBound), as: UTF8.self)
        }
        return result
    }

    /// The metadata a header line holds, or a reason why it cannot be read.
    static func metadata(fromHeader line: [UInt8]) -> Result<StoreMetadata, HeaderFailure> {
        let fields = fields(of: line)
        guard let version = fields["format"].flatMap({ Int($0) }) else { return .failure(.malformed("it has no format version")) }
        guard version <= formatVersion else {
            return .failure(.malformed("it has format version \(version); this reader knows versions up to \(formatVersion)"))
        }
        guard let encoded = fields["metadata"], let data = Data(base64Encoded: encoded) else {
            return .failure(.malformed("its metadata is not base64"))
        }
        do throws(MetadataValue.PropertyListFailure) {
            return .success(try MetadataValue.decodeMetadata(fromPropertyList: data))
        } catch {
            return .failure(.malformed(error.isTooLarge ? error.reason : "its metadata is not a property-list dictionary"))
        }
    }

    /// Why a header line cannot be read.
    enum HeaderFailure: Error {
        case malformed(String)
    }
}
