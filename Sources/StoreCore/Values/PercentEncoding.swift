/// `%XX` escapes decoded exactly, as UTF-8 bytes: shared by object ID URIs and connection URIs
/// (Foundation's `removingPercentEncoding` drops a leading U+FEFF and accepts `%00`).
enum PercentEncoding {
    /// `text` with its `%XX` escapes decoded as UTF-8; nil for a broken escape, for bytes that
    /// are not UTF-8, and, unless `allowingZero`, for an escaped zero byte (`%00`).
    static func decode(_ text: Substring, allowingZero: Bool = true) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            let value = high << 4 | low
            guard allowingZero || value != 0 else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
