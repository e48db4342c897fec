import Foundation

/// Limits on what a store accepts from its file, set with store options, with defaults that no
/// reasonable store reaches and that keep a hostile file from exhausting memory.
///
/// | Option | Default | Checked |
/// |---|---|---|
/// | ``maximumFileSizeOption`` | 2 GiB | before an atomic store's file is read; before SQLite opens a file |
/// | ``maximumObjectCountOption`` | 50,000,000 | as an atomic store's reader counts the file's objects, before it makes room for them |
/// | ``maximumValueLengthOption`` | 256 MiB | each string (UTF-8 bytes) and binary value an atomic store reads, before it is built; SQLite's `SQLITE_LIMIT_LENGTH` for every value it reads or writes |
/// | ``maximumNestingDepthOption`` | 64 (at most 1,000) | metadata arrays and dictionaries in a Binary or XML store file |
///
/// An exceeded limit is a 134080 ``StoreError`` naming the file, the limit and its option. Other
/// bounds are fixed: libxml2's (a text node of at most 10,000,000 bytes, 256 levels of
/// elements) for the XML store, CoreFoundation's for property lists, and the Binary store's
/// inflated-size limit (its own option).
///
/// ```swift
/// try coordinator.addPersistentStore(type: "Binary", at: url, options: [
///     StoreLimits.maximumFileSizeOption: .int(64 << 20),
///     StoreLimits.maximumObjectCountOption: .int(100_000),
/// ])
/// ```
public struct StoreLimits: Sendable, Hashable {
    /// Option key: the largest store file accepted, in bytes (an integer).
    public static let maximumFileSizeOption = "PersistentStores.MaximumFileSize"
    /// Option key: the most objects a store file may hold (an integer).
    public static let maximumObjectCountOption = "PersistentStores.MaximumObjectCount"
    /// Option key: the longest string (in UTF-8 bytes) or binary value a store file may hold,
    /// in bytes (an integer).
    public static let maximumValueLengthOption = "PersistentStores.MaximumValueLength"
    /// Option key: the deepest nesting of arrays and dictionaries in a store file's metadata
    /// (an integer).
    public static let maximumNestingDepthOption = "PersistentStores.MaximumNestingDepth"

    /// The defaults: 2 GiB files, 50 million objects, 256 MiB values, 64 levels of nesting.
    public static let `default` = StoreLimits(
        maximumFileSize: 2 << 30, maximumObjectCount: 50_000_000, maximumValueLength: 256 << 20, maximumNestingDepth: 64)

    /// The largest store file accepted, in bytes.
    public var maximumFileSize: Int
    /// The most objects a store file may hold.
    public var maximumObjectCount: Int
    /// The longest string (UTF-8 bytes) or binary value a store file may hold.
    public var maximumValueLength: Int
    /// The deepest nesting of arrays and dictionaries in a store file's metadata.
    public var maximumNestingDepth: Int

    /// Limits with the given values.
    public init(maximumFileSize: Int, maximumObjectCount: Int, maximumValueLength: Int, maximumNestingDepth: Int) {
        self.maximumFileSize = maximumFileSize
        self.maximumObjectCount = maximumObjectCount
        self.maximumValueLength = maximumValueLength
        self.maximumNestingDepth = maximumNestingDepth
    }

    /// The limits `options` set, the defaults for the others. An option that is not a positive
    /// integer fails with 134070 naming it.
    public init(options: StoreOptions) throws {
        func limit(_ key: String, _ standard: Int) throws -> Int {
            guard let given = options[key] else { return standard }
            switch given {
            case .int(let value) where value > 0: return Int(clamping: value)
            case .string(let text):
                if let value = Int(text), value > 0 { return value }
            default: break
            }
            throw StoreError(.persistentStoreOperation, "The option \(key) must be a positive integer, not \(given)")
        }
        let standard = Self.default
        self.init(
            maximumFileSize: try limit(Self.maximumFileSizeOption, standard.maximumFileSize),
            maximumObjectCount: try limit(Self.maximumObjectCountOption, standard.maximumObjectCount),
            maximumValueLength: try limit(Self.maximumValueLengthOption, standard.maximumValueLength),
            // Reading recurses once per level: a deeper limit could overflow a thread's stack.
            maximumNestingDepth: min(try limit(Self.maximumNestingDepthOption, standard.maximumNestingDepth), 1000))
    }

    /// Throws unless a file of `size` bytes at `url` is within ``maximumFileSize``.
    public func checkFileSize(_ size: Int, of url: URL) throws {
        guard size > maximumFileSize else { return }
        throw StoreError(
            .persistentStoreOpen,
            "\(url.path) is \(size) bytes, more than the limit of \(maximumFileSize) bytes; nothing was read (raise the limit with the option \(Self.maximumFileSizeOption))",
            fileURL: url)
    }

    /// Why a file holding `count` objects is refused: a reason naming the limit and its option,
    /// or nil within ``maximumObjectCount``. Loaders call it as they count objects, before they
    /// allocate room for them.
    public func objectCountExcess(_ count: Int) -> String? {
        guard count > maximumObjectCount else { return nil }
        return "the file holds more than \(maximumObjectCount) objects, the limit (raise it with the option \(Self.maximumObjectCountOption))"
    }

    /// Why a value of `length` bytes (a string's UTF-8 or a binary value) of `entityName.key` is
    /// refused: a reason naming the limit and its option, or nil within ``maximumValueLength``.
    /// Loaders call it with the length the file declares or the stored text implies, before
    /// they build the value.
    public func valueLengthExcess(_ length: Int, entityName: String, key: String) -> String? {
        guard length > maximumValueLength else { return nil }
        return "\(entityName).\(key) holds a value of \(length) bytes, more than the limit of \(maximumValueLength) bytes (raise it with the option \(Self.maximumValueLengthOption))"
    }

    /// The number of bytes base64 text decodes to, counted without decoding it: characters
    /// outside the base64 alphabet (whitespace, padding) are not counted. For a text that is
    /// not valid base64 the count is a bound the decoder never exceeds.
    public static func base64DecodedLength(_ text: UnsafeBufferPointer<UInt8>) -> Int {
        var symbols = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "+"), UInt8(ascii: "/"):
                symbols += 1
            default: continue
            }
        }
        return symbols / 4 * 3 + max(0, symbols % 4 - 1)
    }

    /// The first value of `node` longer than ``maximumValueLength``: its key and length.
    func overlongValue(in node: StoreNode) -> (key: String, length: Int)? {
        if let layout = node.layout {
            // A slotted node: read its value slots in place (its `attributes` view would build a
            // dictionary for every node a load adds), in slot order.
            let values = node.slots(in: layout).values
            for slot in 0..<min(layout.attributeCount, values.count) {
                let length: Int
                switch values[slot] {
                case .string(let text): length = text.utf8.count
                case .data(let data): length = data.count
                default: continue
                }
                if length > maximumValueLength { return (layout.attributeNames[slot], length) }
            }
            return nil
        }
        for (key, value) in node.attributes {
            let length: Int
            switch value {
            case .string(let text): length = text.utf8.count
            case .data(let data): length = data.count
            default: continue
            }
            if length > maximumValueLength { return (key, length) }
        }
        return nil
    }
}
