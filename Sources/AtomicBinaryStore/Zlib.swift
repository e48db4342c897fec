import CZlib
import Foundation

/// The Binary store's use of zlib: CRC-32 checksums and deflate compression (the zlib format,
/// RFC 1950, with its own Adler-32 inside).
enum Zlib {
    /// The largest factor by which deflate can shrink data (RFC 1951 allows about 1032:1); a
    /// decompressed length the header states beyond `compressed × ratio` is a corrupted header,
    /// and nothing is allocated for it.
    static let maximumRatio = 1032

    /// The CRC-32 (zlib's, the polynomial of PNG and gzip) of `bytes`.
    static func crc32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        return UInt32(truncatingIfNeeded: crc32_z(0, start, z_size_t(bytes.count)))
    }

    /// The CRC-32 of an array of bytes.
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { crc32($0) }
    }

    /// `bytes` deflated at `level` (1 fastest … 9 smallest), or a reason why zlib refused.
    static func compress(_ bytes: UnsafeBufferPointer<UInt8>, level: Int32) -> Result<[UInt8], ZlibFailure> {
        let bound = Int(compressBound(uLong(bytes.count)))
        var output = [UInt8](repeating: 0, count: max(bound, 1))
        var length = uLong(output.count)
        let status = output.withUnsafeMutableBufferPointer { destination -> Int32 in
            // destination holds `bound` bytes, what compressBound says deflate may need.
            compress2(destination.baseAddress, &length, bytes.baseAddress, uLong(bytes.count), level)
        }
        guard status == Z_OK else { return .failure(ZlibFailure(status: status)) }
        output.removeLast(output.count - Int(length))
        return .success(output)
    }

    /// Inflates `bytes`, which must give exactly `expectedLength` bytes, into a new buffer the
    /// caller deallocates; a reason when the bytes are not a complete zlib stream of that length.
    static func decompress(
        _ bytes: UnsafeBufferPointer<UInt8>, expectedLength: Int
    ) -> Result<UnsafeMutableBufferPointer<UInt8>, ZlibFailure> {
        // One spare byte, so that a stream longer than stated is told apart from an exact one.
        let output = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: expectedLength + 1)
        var length = uLong(output.count)
        // output holds expectedLength + 1 bytes; zlib writes at most `length` bytes into it.
        let status = uncompress(output.baseAddress, &length, bytes.baseAddress, uLong(bytes.count))
        guard status == Z_OK, Int(length) == expectedLength else {
            output.deallocate()
            return .failure(ZlibFailure(status: status, length: status == Z_OK ? Int(length) : nil))
        }
        return .success(output)
    }
}

/// Why zlib could not compress or decompress.
struct ZlibFailure: Error {
    /// zlib's status code.
    let status: Int32
    /// The number of bytes produced, when a stream decompressed to the wrong length.
    var length: Int? = nil

    /// zlib's name for the status.
    var reason: String {
        switch status {
        case Z_BUF_ERROR: return "the compressed data is incomplete or longer than stated (Z_BUF_ERROR)"
        case Z_OK where length != nil:
            return "the compressed data inflates to \(length ?? 0) bytes or more, not the length the header states"
        case Z_DATA_ERROR: return "the compressed data is corrupted (Z_DATA_ERROR)"
        case Z_MEM_ERROR: return "zlib ran out of memory (Z_MEM_ERROR)"
        case Z_STREAM_ERROR: return "zlib rejected its parameters (Z_STREAM_ERROR)"
        default: return "zlib status \(status)"
        }
    }
}
