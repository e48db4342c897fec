import Foundation

/// The identity of a managed object: which store holds it, its entity, and the store's
/// reference object for it — or a temporary identity before the object is first saved.
///
/// An ID is a Sendable value, so IDs cross threads and tasks while objects do not.
/// ``uriRepresentation`` is Core Data's form:
/// - permanent `x-coredata://<STORE-UUID>/<Entity>/p<int>` (string references as
///   `s<percent-escaped>`, UUID references as `u<UUID>`);
/// - temporary `x-coredata:///<Entity>/t<UUID>`.
///
/// ``PersistentStoreCoordinator/managedObjectID(forURIRepresentation:)`` turns a URI back into
/// an ID.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Permanent (store + reference) or temporary.
    public enum Kind: Sendable, Hashable {
        /// A saved object: its store's identifier and its reference object there.
        case permanent(storeIdentifier: String, reference: ReferenceObject)
        /// A new object that has not been saved yet.
        case temporary(UUID)
    }

    // The entity name and store identifier are interned (``NameTable``): an ID holds two
    // pointers and its reference, so copying one retains nothing for integer references, and
    // comparing or hashing one never reads text. `unowned(unsafe)` is safe because interned
    // names are never freed (the tables keep each one for the life of the process).
    private unowned(unsafe) let entity: InternedName
    /// The store; nil for a temporary ID (whose reference is then `.uuid`).
    private unowned(unsafe) let store: InternedName?
    private let reference: ReferenceObject

    /// A permanent ID.
    public init(storeIdentifier: String, entityName: String, reference: ReferenceObject) {
        self.init(entity: NameTable.entities.intern(entityName), store: NameTable.stores.intern(storeIdentifier), reference: reference)
    }

    /// A permanent ID of the same entity and store with another reference object, made without
    /// looking the entity name and store identifier up again (what a loader making thousands of
    /// IDs of one entity uses); nil when this ID is temporary.
    public func permanentID(withReference reference: ReferenceObject) -> ObjectID? {
        guard let store else { return nil }
        return ObjectID(entity: entity, store: store, reference: reference)
    }

    init(entity: InternedName, store: InternedName?, reference: ReferenceObject) {
        self.entity = entity
        self.store = store
        self.reference = reference
    }

    /// A new temporary ID for an object of `entityName`.
    public static func temporary(entityName: String) -> ObjectID {
        ObjectID(entity: NameTable.entities.intern(entityName), store: nil, reference: .uuid(UUIDGenerator.next()))
    }

    /// A new temporary ID for an object of an interned entity (no table lookup).
    static func temporary(entity: InternedName) -> ObjectID {
        ObjectID(entity: entity, store: nil, reference: .uuid(UUIDGenerator.next()))
    }

    /// The entity of the object (the concrete entity, never an abstract parent).
    public var entityName: String { entity.text }

    /// Permanent or temporary, with the parts of each.
    public var kind: Kind {
        guard let store else {
            // Temporary IDs are made with a UUID reference only (the initialisers above).
            if case .uuid(let uuid) = reference { return .temporary(uuid) }
            return .temporary(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        }
        return .permanent(storeIdentifier: store.text, reference: reference)
    }

    /// The interned entity name (compiled entities are looked up by its number).
    var internedEntity: InternedName { entity }

    /// A number unique to the entity name in this process (stores key per-entity caches by it).
    package var entityNumber: Int { entity.number }

    /// Equal when entity, store and reference are: two pointer comparisons and the reference.
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        lhs.entity === rhs.entity && lhs.store === rhs.store && lhs.reference == rhs.reference
    }

    /// Hashes the entity (as a pointer) and the reference object (or the temporary UUID): the
    /// store rarely tells IDs apart, and equal IDs still hash alike.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(entity))
        switch reference {
        case .int(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .uuid(let value): hasher.combine(value)
        }
    }

    /// Whether the ID is temporary (the object was never saved).
    public var isTemporaryID: Bool { store == nil }

    /// The identifier of the store holding the object; nil for a temporary ID.
    public var storeIdentifier: String? { store?.text }

    /// Whether the ID is a permanent ID of the store with this interned identifier.
    func belongs(to storeName: InternedName) -> Bool { store === storeName }

    /// The store's reference object; nil for a temporary ID.
    public var referenceObject: ReferenceObject? { store == nil ? nil : reference }

    /// Core Data's URI form of the ID (see the type's documentation).
    public var uriRepresentation: URL {
        let text: String
        switch kind {
        case .permanent(let store, let reference):
            text = "x-coredata://\(Self.escape(store))/\(Self.escape(entityName))/\(reference.uriComponent)"
        case .temporary(let uuid):
            text = "x-coredata:///\(Self.escape(entityName))/t\(uuid.uuidString)"
        }
        // Every component is percent-escaped above, so the text is always a valid URL.
        return URL(string: text) ?? URL(fileURLWithPath: "/")
    }

    /// Parses a URI written by ``uriRepresentation``; nil for anything else.
    public init?(uriRepresentation uri: URL) {
        let text = uri.absoluteString
        let prefix = "x-coredata://"
        guard text.hasPrefix(prefix) else { return nil }
        let parts = text.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 3,
            let entity = Self.unescape(parts[1]), !entity.isEmpty
        else { return nil }
        if parts[0].isEmpty {
            guard parts[2].first == "t", let uuid = UUID(uuidString: String(parts[2].dropFirst())) else { return nil }
            self.init(entity: NameTable.entities.intern(entity), store: nil, reference: .uuid(uuid))
        } else {
            guard let store = Self.unescape(parts[0]),
                let reference = ReferenceObject(uriComponent: parts[2])
            else { return nil }
            self.init(storeIdentifier: store, entityName: entity, reference: reference)
        }
    }

    /// The URI as text.
    public var description: String { uriRepresentation.absoluteString }

    /// Encodes as the URI string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(uriRepresentation.absoluteString)
    }

    /// Decodes the URI string.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        guard let url = URL(string: text), let id = ObjectID(uriRepresentation: url) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "not an object ID URI: \(text)")
        }
        self = id
    }

    private static let unreserved: CharacterSet = {
        var set = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        set.insert(charactersIn: "-._~")
        return set
    }()

    /// Reverses ``escape(_:)``: `%XX` bytes decoded as UTF-8, exactly (Foundation's
    /// `removingPercentEncoding` drops a leading U+FEFF); nil for malformed escapes or UTF-8.
    static func unescape(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
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

    /// Percent-escapes everything but unreserved ASCII.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
