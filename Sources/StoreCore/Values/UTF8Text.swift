/// Strings made from UTF-8 bytes in a reader's buffer, for the stores' loaders.
///
/// `String(validating:as:)` over a buffer runs the standard library's generic validation,
/// which is not specialised for the caller's collection type: it looks up type metadata at run
/// time for every string. ASCII (most names, references and many values) is checked here eight
/// bytes at a time and decoded by the specialised `String(decoding:as:)` (which needs no second
/// validation of ASCII); anything else still goes through the full validation.
package enum UTF8Text {
    /// The string that `raw` spells, or nil when it is not valid UTF-8.
    @inline(__always)
    package static func string(_ raw: UnsafeBufferPointer<UInt8>) -> String? {
        if isASCII(raw) { return String(decoding: raw, as: UTF8.self) }
        return String(validating: raw, as: UTF8.self)
    }

    /// Whether every byte of `raw` is below 0x80.
    package static func isASCII(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = raw.count
        guard let start = raw.baseAddress else { return true }
        let words = UnsafeRawPointer(start)
        var offset = 0
        var accumulated: UInt64 = 0
        while offset + 8 <= count {
            accumulated |= words.loadUnaligned(fromByteOffset: offset, as: UInt64.self)  // offset + 8 <= count
            offset += 8
        }
        while offset < count {
            accumulated |= UInt64(start[offset])  // offset < count
            offset += 1
        }
        return accumulated & 0x8080_8080_8080_8080 == 0
    }
}
