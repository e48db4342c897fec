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
