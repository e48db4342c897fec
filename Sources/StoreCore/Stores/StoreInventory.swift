import Foundation

/// What a store file says about its contents without a model: the entities it holds objects
/// of and how many, as far as the file alone tells (``InventoryReportingStore``).
///
/// ```swift
/// let inventory = try SQLiteStore.inventory(forStoreAt: url, options: [:])
/// for entity in inventory.entities { print(entity.name, entity.objectCount.map(String.init) ?? "?") }
/// ```
public struct StoreInventory: Sendable, Hashable {
    /// One entity the file names.
    public struct Entity: Sendable, Hashable {
        /// The entity's name as the file spells it (Core Data's XML format upper-cases it).
        public var name: String
        /// The objects of exactly this entity in the file; nil when the file alone does not tell.
        public var objectCount: Int?
        /// Where the file does not keep the model's spelling (``StoreInventory/namesAreExact``
        /// false), the spelling the model most likely uses, guessed from the file alone (the XML
        /// format's `VEHICLEPICTURE` reads as `VehiclePicture`); nil where `name` is exact or
        /// nothing better can be said. For reports only: stores are read by the model's names.
        public var probableModelName: String?

        /// Creates an entry.
        public init(name: String, objectCount: Int?, probableModelName: String? = nil) {
            self.name = name
            self.objectCount = objectCount
            self.probableModelName = probableModelName
        }
    }

    /// The entities, sorted by name.
    public var entities: [Entity]
    /// Whether the names are the model's spelling (false for the XML format's upper-cased ones).
    public var namesAreExact: Bool

    /// Creates an inventory.
    public init(entities: [Entity], namesAreExact: Bool = true) {
        self.entities = entities
        self.namesAreExact = namesAreExact
    }
}

/// A store type that can list the entities of a file and count their objects without a model
/// (`storectl info` on a file it has no model for).
public protocol InventoryReportingStore: PersistentStore {
    /// The inventory of the store file at `url`, read without adding the store (nothing is
    /// written).
    static func inventory(forStoreAt url: URL, options: StoreOptions) throws -> StoreInventory
}
