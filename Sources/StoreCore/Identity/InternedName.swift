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

/// The store and entity parts of object IDs, interned once, for stores that make many IDs of
/// one entity (a fetch's rows): ``objectID(_:)`` makes an ID without a table lookup.
package struct ObjectIDPrefix: Sendable {
    // Interned names are never freed (see ``InternedName``), so holding them strongly here
    // costs nothing beyond the table's own reference.
    let entity: InternedName
    let store: InternedName

    /// The prefix of permanent IDs of `entityName` in the store `storeIdentifier`.
    package init(storeIdentifier: String, entityName: String) {
        entity = NameTable.entities.intern(entityName)
        store = NameTable.stores.intern(storeIdentifier)
    }

    /// The prefix of permanent IDs of the entity of `objectID` in the store `storeIdentifier`.
    package init(storeIdentifier: String, entityOf objectID: ObjectID) {
        entity = objectID.internedEntity
        store = NameTable.stores.intern(storeIdentifier)
    }

    /// The store identifier.
    package var storeIdentifier: String { store.text }

    /// The permanent ID with this reference.
    package func objectID(_ reference: ReferenceObject) -> ObjectID {
        ObjectID(entity: entity, store: store, reference: reference)
    }
}
