import Foundation
import StoreCore

extension XMLStore: InventoryReportingStore {
    /// The most distinct entity types an inventory lists; a file naming more is refused (memory
    /// stays proportional to what a model could have, whatever the file holds).
    static let inventoryEntityLimit = 100_000

    /// The entities of the XML store file at `url` and their object counts, read without a
    /// model: the `type` of every `<object>` element, counted (the names as the file writes
    /// them, which Core Data's XML format upper-cases: `StoreInventory.namesAreExact` is
    /// false), each with the model's probable spelling (`probableModelName`: `VEHICLEPICTURE`
    /// reads as `VehiclePicture`, cut at the other entity names it contains; a guess, for
    /// reports). The objects are skipped, not parsed; the file is read with the same safe
    /// reader as ``load()`` and is not written.
    ///
    /// - Throws: 134010 for a file that is not an XML store; 134080 for malformed XML, naming
    ///   the file and line.
    public static func inventory(forStoreAt url: URL, options: StoreOptions) throws -> StoreInventory {
        try StoreFile.requireRegularFileOrNothing(at: url, storeType: storeType)
        guard try XMLStoreReader.hasContent(url) else {
            throw StoreError(.persistentStoreOperation, "There is no XML store at \(url.path)", fileURL: url)
        }
        return try inventory(reading: XMLTextReader(url: url))
    }

    /// The inventory of a document held in memory, exactly as ``inventory(forStoreAt:options:)``
    /// reads a file: the entry point of the fuzz harness.
    @_spi(Fuzzing)
    public static func inventory(of data: Data) throws -> StoreInventory {
        try inventory(reading: XMLTextReader(data: data, url: URL(fileURLWithPath: "/memory.xml")))
    }

    /// The entities `reader`'s document names and their object counts.
    private static func inventory(reading reader: XMLTextReader) throws -> StoreInventory {
        let url = reader.url
        var counts: [String: Int] = [:]
        try reader.capturingLibraryErrors {
            var sawRoot = false
            while try reader.read() {
                guard reader.kind == .element else { continue }
                if !sawRoot {
                    guard reader.nameString == "database" else {
                        throw XMLStoreReader.notAStore(url, "its root element is <\(reader.nameString)>, not Core Data's <database>")
                    }
                    sawRoot = true
                    continue
                }
                if reader.depth == 1, reader.nameString == "object" {
                    var type: String?
                    reader.forEachAttribute { name, value in
                        if XMLTextReader.string(name) == "type" { type = XMLTextReader.string(value) }
                    }
                    guard let type, !type.isEmpty else {
                        throw StoreError.malformedFile(url, line: reader.line, "an <object> without a type attribute")
                    }
                    if counts[type] == nil, counts.count >= inventoryEntityLimit {
                        throw StoreError.malformedFile(
                            url, line: reader.line, "the file names more than \(inventoryEntityLimit) entity types")
                    }
                    counts[type, default: 0] += 1
                }
                try reader.skipElement()
            }
            guard sawRoot else { throw XMLStoreReader.notAStore(url, "it has no root element") }
        }
        let spellings = XMLEntityNameSpelling.probableModelNames(for: counts.keys)
        return StoreInventory(
            entities: counts.keys.sorted().map {
                StoreInventory.Entity(name: $0, objectCount: counts[$0], probableModelName: spellings[$0])
            },
            namesAreExact: false)
    }
}
