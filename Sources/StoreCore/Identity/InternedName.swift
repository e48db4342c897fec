import Foundation

/// A name (an entity name or a store identifier) stored once per process, so that object IDs
/// compare and hash it as a pointer instead of as text.
///
/// Interned names are never freed: ``NameTable`` keeps every one it hands out for the life of
/// the process. That is what makes the `unowned(unsafe)` references in ``ObjectID`` safe, and it
/// costs one small object per distinct entity name and per store ever added.
final class InternedName: Sendable {
    /// The text.
    let text: String
    /// A small number, unique within the name's table, in the order names were first seen.
    let number: Int

    fileprivate init(text: String, number: Int) {
        self.text = text
        self.number = number
    }
}

/// A process-wide table of interned names. Entity names and store identifiers have a table each,
/// so entity numbers stay small and dense (models index their compiled entities by them).
final class NameTable: Sendable {
    /// Entity names.
    static let entities = NameTable()
    /// Store identifiers.
    static let stores = NameTable()

    private let names = Locked<[String: InternedName]>([:])

    /// The number of `text` if it was interned; nil otherwise (and nothing is interned: a
    /// lookup by an arbitrary name leaves the table as it was).
    func existingNumber(of text: String) -> Int? {
        names.withLock { $0[text]?.number }
    }

    /// The interned name for `text` (the same object for equal texts, for ever).
    func intern(_ text: String) -> InternedName {
        names.withLock { names in
            if let existing = names[text] { return existing }
            let name = InternedName(text: text, number: names.count)
            names[text] = name
            return name
        }
    }
}

/// The entity and store of object IDs (no store for temporary IDs), interned together so that
/// an ``ObjectID`` holds both as one pointer.
///
/// Scopes are never freed: the table keeps every one it hands out for the life of the process
/// (one small object per entity and per entity and store pair ever used), which makes the
/// `unowned(unsafe)` reference in ``ObjectID`` safe.
final class ObjectIDScope: Sendable {
    // The names are never freed (see ``InternedName``), so the scope refers to them
    // `unowned(unsafe)`, and what IDs ask per object (temporary or not, the entity's and the
    // store's numbers) is kept in plain fields: reading a name through a strong reference
    // retained and released it. Those counts are shared by every thread that reads objects of
    // the entity, so two readers each fetching 100,000 objects moved the names' cache lines
    // between their cores about six times per object (W13, docs/benchmarks.md).
    /// The entity name.
    unowned(unsafe) let entity: InternedName
    /// The store identifier; nil for temporary IDs.
    unowned(unsafe) let store: InternedName?
    /// Whether IDs of this scope are temporary (``store`` is nil).
    let isTemporary: Bool
    /// The entity name's ``InternedName/number``.
    let entityNumber: Int
    /// The store identifier's ``InternedName/number``; -1 for temporary IDs.
    let storeNumber: Int
    /// A small number, unique to the scope in this process, in the order scopes were first made
    /// (what ``ObjectIDTable`` keeps the rows of one entity and store together by).
    let number: Int

    private init(entity: InternedName, store: InternedName?, number: Int) {
        self.entity = entity
        self.store = store
        isTemporary = store == nil
        entityNumber = entity.number
        storeNumber = store?.number ?? -1
        self.number = number
    }

    private static let table = Locked<[Int: ObjectIDScope]>([:])

    /// The scope of an interned entity and store (the same object for equal names, for ever).
    static func scope(entity: InternedName, store: InternedName?) -> ObjectIDScope {
        // Entity and store numbers are small and dense: one integer keys the pair.
        let key = entity.number << 32 | (store.map { $0.number + 1 } ?? 0)
        return table.withLock { table in
            if let existing = table[key] { return existing }
            let scope = ObjectIDScope(entity: entity, store: store, number: table.count)
            table[key] = scope
            return scope
        }
    }

    /// The scope of permanent IDs of `entityName` in the store `storeIdentifier`.
    static func permanent(entityName: String, storeIdentifier: String) -> ObjectIDScope {
        scope(entity: NameTable.entities.intern(entityName), store: NameTable.stores.intern(storeIdentifier))
    }

    /// The scope of temporary IDs of `entityName`.
    static func temporary(entityName: String) -> ObjectIDScope {
        scope(entity: NameTable.entities.intern(entityName), store: nil)
    }
}

/// The store and entity parts of object IDs, interned once, for stores that make many IDs of
/// one entity (a fetch's rows): ``objectID(_:)`` makes an ID without a table lookup.
package struct ObjectIDPrefix: Sendable {
    // Scopes are never freed (see ``ObjectIDScope``): the prefix refers to its scope
    // `unowned(unsafe)`, as ``ObjectID`` does, so making an ID from it retains nothing (a strong
    // reference was retained and released per ID made, on a count every reading thread shares).
    unowned(unsafe) let scope: ObjectIDScope

    /// The prefix of permanent IDs of `entityName` in the store `storeIdentifier`.
    package init(storeIdentifier: String, entityName: String) {
        scope = ObjectIDScope.permanent(entityName: entityName, storeIdentifier: storeIdentifier)
    }

    /// The prefix of permanent IDs of the entity of `objectID` in the store `storeIdentifier`.
    package init(storeIdentifier: String, entityOf objectID: ObjectID) {
        scope = ObjectIDScope.scope(entity: objectID.internedEntity, store: NameTable.stores.intern(storeIdentifier))
    }

    /// The store identifier.
    package var storeIdentifier: String { scope.store?.text ?? "" }

    /// The permanent ID with this reference.
    @inline(__always)
    package func objectID(_ reference: ReferenceObject) -> ObjectID {
        if case .int(let key) = reference { return ObjectID(scope: scope, key: key) }
        return ObjectID(scope: scope, reference: reference)
    }
}
