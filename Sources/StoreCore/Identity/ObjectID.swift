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
/// an ID. An ID is three words (24 bytes) and retains nothing when its reference is an integer.
public struct ObjectID: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Permanent (store + reference) or temporary.
    public enum Kind: Sendable, Hashable {
        /// A saved object: its store's identifier and its reference object there.
        case permanent(storeIdentifier: String, reference: ReferenceObject)
        /// A new object that has not been saved yet.
        case temporary(UUID)
    }

    // An ID is three words. The entity and the store are interned together as one
    // ``ObjectIDScope`` (a pointer: comparing or hashing it never reads text). An integer
    // reference (SQLite's `Z_PK`, the Binary and XML stores' numbers) is held in `key` with no
    // box; so is a temporary ID made by this process (the counter of its UUID, see
    // ``UUIDGenerator``). String and UUID references, and temporary UUIDs from elsewhere, are
    // held in a box. Each ID has exactly one of these forms, so equal IDs have equal fields.
    // `unowned(unsafe)` is safe because scopes are never freed (the table keeps each one for
    // the life of the process); copying an integer ID therefore retains nothing.
    private unowned(unsafe) let scope: ObjectIDScope
    private let key: Int64
    private let box: ReferenceBox?

    /// A permanent ID.
    public init(storeIdentifier: String, entityName: String, reference: ReferenceObject) {
        self.init(scope: ObjectIDScope.permanent(entityName: entityName, storeIdentifier: storeIdentifier), reference: reference)
    }

    /// A permanent ID of the same entity and store with another reference object, made without
    /// looking the entity name and store identifier up again (what a loader making thousands of
    /// IDs of one entity uses); nil when this ID is temporary.
    public func permanentID(withReference reference: ReferenceObject) -> ObjectID? {
        guard !scope.isTemporary else { return nil }
        return ObjectID(scope: scope, reference: reference)
    }

    /// A permanent ID of a scope with a store.
    init(scope: ObjectIDScope, reference: ReferenceObject) {
        self.scope = scope
        if case .int(let value) = reference {
            key = value
            box = nil
        } else {
            key = 0
            box = ReferenceBox(reference)
        }
    }

    /// An ID of its three parts (``parts``), as an object keeps them.
    @inline(__always)
    init(scope: ObjectIDScope, key: Int64, box: ReferenceBox?) {
        self.scope = scope
        self.key = key
        self.box = box
    }

    /// The ID's scope, integer key and box (nil for an integer reference or a temporary ID
    /// this process made), for keeping them apart (``ManagedObject`` keeps the box with its
    /// extras) and making the ID again with ``init(scope:key:box:)``.
    @inline(__always)
    var parts: (scope: ObjectIDScope, key: Int64, box: ReferenceBox?) { (scope, key, box) }

    /// Whether the ID has a box (tested without retaining it).
    @inline(__always)
    var hasBox: Bool { box != nil }

    /// A permanent ID with an integer reference (no box).
    @inline(__always)
    init(scope: ObjectIDScope, key: Int64) {
        self.scope = scope
        self.key = key
        self.box = nil
    }

    /// A temporary ID with this UUID (the canonical form: a UUID this process made is kept as
    /// its counter).
    private init(temporaryScope scope: ObjectIDScope, uuid: UUID) {
        self.scope = scope
        if let count = UUIDGenerator.count(of: uuid) {
            key = Int64(bitPattern: count)
            box = nil
        } else {
            key = 0
            box = ReferenceBox(.uuid(uuid))
        }
    }

    /// A new temporary ID for an object of `entityName`.
    public static func temporary(entityName: String) -> ObjectID {
        temporary(scope: ObjectIDScope.temporary(entityName: entityName))
    }

    /// A new temporary ID in a temporary scope (no table lookup).
    static func temporary(scope: ObjectIDScope) -> ObjectID {
        ObjectID(scope: scope, key: Int64(bitPattern: UUIDGenerator.nextCount()))
    }

    /// The entity of the object (the concrete entity, never an abstract parent).
    public var entityName: String { scope.entity.text }

    /// The reference (permanent IDs) or the temporary UUID (`.uuid`).
    private var reference: ReferenceObject {
        if let box { return box.reference }
        if scope.isTemporary { return .uuid(UUIDGenerator.uuid(count: UInt64(bitPattern: key))) }
        return .int(key)
    }

    /// Permanent or temporary, with the parts of each.
    public var kind: Kind {
        guard let store = scope.store else {
            // Temporary IDs hold a UUID reference only (the initialisers above).
            if case .uuid(let uuid) = reference { return .temporary(uuid) }
            return .temporary(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)))
        }
        return .permanent(storeIdentifier: store.text, reference: reference)
    }

    /// The interned entity name (compiled entities are looked up by its number).
    var internedEntity: InternedName { scope.entity }

    /// The interned entity and store.
    var internedScope: ObjectIDScope { scope }

    /// The scope's number and the integer reference, for an ID whose reference is an integer
    /// held in the ID (SQLite's `Z_PK`, the Binary and XML stores' numbers, a temporary ID made by
    /// this process); nil for a boxed reference. Equal IDs have equal dense keys, and an ID with
    /// a dense key equals only IDs with the same one (``ObjectIDTable`` places IDs by it).
    @inline(__always)
    var denseKey: (scope: Int, key: Int64)? { box == nil ? (scope.number, key) : nil }

    /// A number unique to the entity name in this process (stores key per-entity caches by it).
    package var entityNumber: Int { scope.entityNumber }

    /// The ``entityNumber`` that IDs of `entityName` carry (the name is interned if it was not).
    package static func entityNumber(of entityName: String) -> Int { NameTable.entities.intern(entityName).number }

    /// A number unique to the store identifier in this process (the identifier is interned if it
    /// was not): what ``integerKey(inStoreNumber:)`` compares.
    package static func storeNumber(of storeIdentifier: String) -> Int { NameTable.stores.intern(storeIdentifier).number }

    /// The integer reference of a permanent ID of the store whose identifier has the number
    /// `storeNumber` (``storeNumber(of:)``); nil for a temporary ID, an ID of another store, or
    /// a reference that is not an integer. The same answer as comparing ``storeIdentifier`` and
    /// reading an `.int` ``referenceObject``, without reading text.
    @inline(__always)
    package func integerKey(inStoreNumber storeNumber: Int) -> Int64? {
        guard box == nil, scope.storeNumber == storeNumber else { return nil }
        return key
    }

    /// Equal when entity, store and reference are: a pointer comparison, an integer comparison,
    /// and the boxed reference if there is one.
    @inline(__always)
    public static func == (lhs: ObjectID, rhs: ObjectID) -> Bool {
        guard lhs.scope === rhs.scope, lhs.key == rhs.key else { return false }
        switch (lhs.box, rhs.box) {
        case (nil, nil): return true
        case (let a?, let b?): return a === b || a.reference == b.reference
        default: return false
        }
    }

    /// Hashes the scope (as a pointer) and the reference (the integer, or the boxed reference).
    @inline(__always)
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(scope))
        if let box {
            hasher.combine(box.reference)
        } else {
            hasher.combine(key)
        }
    }

    /// The hash `Dictionary` and `Set` use for an ID (Swift's underscored `Hashable`
    /// requirement): for an ID with an integer key, the scope's address and the key mixed with
    /// the table's seed by a 64-bit finalizer (MurmurHash3's), a dozen instructions instead of
    /// a SipHash round per lookup. The row cache, the registration tables and the change sets
    /// hash several IDs per object fetched or saved. Equal IDs hash alike (the same scope and
    /// key); IDs with a boxed reference take the standard hasher, as ``hash(into:)`` does.
    @inline(__always)
    public func _rawHashValue(seed: Int) -> Int {
        guard box == nil else {
            var hasher = Hasher()
            hasher.combine(seed)
            hash(into: &hasher)
            return hasher.finalize()
        }
        let scopeBits = UInt64(UInt(bitPattern: ObjectIdentifier(scope)))
        return Self.finalizedHash(UInt64(bitPattern: key) ^ UInt64(UInt(bitPattern: seed)) ^ (scopeBits << 32 | scopeBits >> 32))
    }

    /// MurmurHash3's 64-bit finalizer: the hash-table hash of a word already mixed with the
    /// table's seed (what IDs and other identities of the object layer hash with).
    @inline(__always)
    static func finalizedHash(_ word: UInt64) -> Int {
        var x = word
        x ^= x >> 33
        x &*= 0xff51_afd7_ed55_8ccd
        x ^= x >> 33
        x &*= 0xc4ce_b9fe_1a85_ec53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }

    /// Whether the ID is temporary (the object was never saved).
    public var isTemporaryID: Bool { scope.isTemporary }

    /// The identifier of the store holding the object; nil for a temporary ID.
    public var storeIdentifier: String? { scope.store?.text }

    /// Whether the ID is a permanent ID of the store with this interned identifier.
    func belongs(to storeName: InternedName) -> Bool { scope.storeNumber == storeName.number }

    /// The store's reference object; nil for a temporary ID.
    public var referenceObject: ReferenceObject? { scope.isTemporary ? nil : reference }

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
            self.init(temporaryScope: ObjectIDScope.temporary(entityName: entity), uuid: uuid)
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
    static func unescape(_ text: Substring) -> String? { PercentEncoding.decode(text) }

    /// Percent-escapes everything but unreserved ASCII.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}

/// A reference object that is not an integer (or a temporary UUID not made by this process),
/// held by the ``ObjectID``s that have one.
final class ReferenceBox: Sendable {
    let reference: ReferenceObject

    init(_ reference: ReferenceObject) {
        self.reference = reference
    }
}
